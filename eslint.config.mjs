// ESLint: JavaScript's recommended rules and typescript-eslint's (syntax only: fast, no type information).
// `npm run lint` checks it and Prettier's formatting; CI runs it before the tests.
import { readFileSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The layers, from each workspace's package.json: a package's sources import only the workspace
// packages it depends on (never one above it), the editor only core's browser entry and the
// template files, and core (no I/O) none of Node's file, network or process modules.
const WORKSPACES = ["core", "models", "retrieval", "runstore", "eval", "nodes", "datasets", "host", "citeflow", "cli"].map((d) => `packages/${d}`).concat(["kernel"]);
const nameOf = (dir) => JSON.parse(readFileSync(`${dir}/package.json`, "utf8")).name;
const NAMES = WORKSPACES.map(nameOf);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const layer = (dir) => {
  const pkg = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"));
  const others = NAMES.filter((n) => n !== pkg.name && !(n in (pkg.dependencies ?? {})));
  return {
    files: [`${dir}/src/**/*.ts`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...others.map((n) => ({ regex: `^${escape(n)}(/.*)?$`, message: `${pkg.name} does not depend on ${n} (see its package.json): a package imports only the layers below it.` })),
            ...(pkg.name === "@citeflow/core"
              ? [
                  {
                    regex: "^(node:)?(fs|fs/promises|net|http|https|child_process|worker_threads|dgram|tls)$",
                    message: "core has no I/O: file, network and process work belongs to the packages above it.",
                  },
                ]
              : []),
          ],
        },
      ],
    },
  };
};
const EDITOR_LAYER = {
  files: ["extension/src/**/*.{ts,tsx}"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            regex: `^(?!@citeflow/core/browser$|@citeflow/nodes/templates/[^/]+\\.citeflow\\.json$)(${NAMES.map(escape).join("|")})(/.*)?$`,
            message: "the editor runs in the browser: it imports @citeflow/core/browser (and the template files), and asks the kernel for the rest.",
          },
          { regex: "^node:", message: "the editor runs in the browser: no Node modules." },
        ],
      },
    ],
  },
};

// The environment is read at the edges (the CLI, the kernel, the notebook package), which hand the
// layers below a configuration. The files listed still read it below the edges, each for a reason
// given there; a new reading anywhere else fails the lint.
const ENV_READERS = [
  "packages/runstore/src/redact.ts", // secrets are found wherever a store is opened, so no front end can forget them
];
const ENV_AT_EDGES = {
  files: ["core", "models", "retrieval", "runstore", "eval", "nodes", "datasets", "host"].map((d) => `packages/${d}/src/**/*.ts`),
  ignores: ENV_READERS,
  rules: {
    "no-restricted-properties": [
      "error",
      { object: "process", property: "env", message: "read the environment at an edge (the CLI, the kernel, the notebook package) and pass what it says down as configuration." },
    ],
  },
};

export default tseslint.config(
  { ignores: ["**/dist/**", "**/lib/**", "extension/labextension/**", "extension/citeflow_jupyterlab/**", "**/node_modules/**", "notebooks/**", ".citeflow/**", "test-results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        performance: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        AbortSignal: "readonly",
        fetch: "readonly",
        Response: "readonly",
        structuredClone: "readonly",
      },
    },
    rules: {
      // Unused bindings are errors, except those named to be ignored (`_`, `_rest`).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" }],
      // `ok ? a() : b()` and `x && f()` as statements are idioms here.
      "@typescript-eslint/no-unused-expressions": ["error", { allowTernary: true, allowShortCircuit: true }],
    },
  },
  ...WORKSPACES.map(layer),
  EDITOR_LAYER,
  ENV_AT_EDGES,
  // TypeScript itself reports undefined names.
  { files: ["**/*.ts", "**/*.tsx"], rules: { "no-undef": "off" } },
  // Tests reach into untyped test doubles and the browser page.
  { files: ["tests/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  // The editor benchmark's functions run in the page.
  { files: ["bench/extension.mjs", "bench/lab-start.mjs"], languageOptions: { globals: { window: "readonly", document: "readonly", requestAnimationFrame: "readonly" } } },
);
