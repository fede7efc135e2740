// ESLint: JavaScript's recommended rules and typescript-eslint's (syntax only: fast, no type information).
// `npm run lint` checks it and Prettier's formatting; CI runs it before the tests.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
  // TypeScript itself reports undefined names.
  { files: ["**/*.ts", "**/*.tsx"], rules: { "no-undef": "off" } },
  // Tests reach into untyped test doubles and the browser page.
  { files: ["tests/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  // The editor benchmark's functions run in the page.
  { files: ["bench/extension.mjs"], languageOptions: { globals: { window: "readonly", document: "readonly", requestAnimationFrame: "readonly" } } },
);
