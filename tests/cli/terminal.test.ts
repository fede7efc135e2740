/**
 * Terminal output is data: a corpus title, a document id, a question, a graph's param key or a bad
 * line that carries escape sequences is printed with them shown (`\u001b…`), never acted on.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { terminalText } from "@citeflow/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
// Clear screen, a fake line after a carriage return, OSC 52 (write the clipboard), set the title, a C1 CSI, a bidi override.
const HOSTILE = "\x1b[2J\rfake\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;title\x07\x9b31m\u202eevil";
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function cli(args: string[], cwd: string) {
  return new Promise<{ code: number; out: string }>((resolve) =>
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, CITEFLOW_RUNS: join(cwd, "runs") } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
}

describe("terminalText", () => {
  it("leaves no active control character, keeps tab and newline, and JSON printed through it parses back to the same value", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const shown = terminalText(s);
        expect(shown).not.toMatch(ACTIVE);
        expect(JSON.parse(terminalText(JSON.stringify(s)))).toBe(s);
      }),
    );
    expect(terminalText("a\tb\nc")).toBe("a\tb\nc");
    expect(terminalText("\x1b[2J")).toBe("\\u001b[2J");
  });
});

describe("the CLI prints data, never control sequences from it", () => {
  it("ingest's bad line, search's titles and ids, runs list's questions and validate's param keys", async () => {
    const dir = tempDir("terminal-");
    const corpus = join(dir, "corpus.jsonl");
    writeFileSync(
      corpus,
      [
        JSON.stringify({ doc_id: "d1", title: `Vitamin D ${HOSTILE}`, abstract: ["Vitamin D lowers fracture risk in older adults."] }),
        `{"doc_id": "broken ${HOSTILE}`,
        JSON.stringify({ doc_id: `id ${HOSTILE}`, title: "Id", abstract: ["An id with escapes."] }),
        JSON.stringify({ doc_id: "d2", title: "Sleep", abstract: ["Sleep restriction raises blood pressure."] }),
      ].join("\n"),
    );
    const store = join(dir, "store");
    const ingest = await cli(["ingest", corpus, "--store", store, "--embedder", "static-use-en"], dir);
    const search = await cli(["search", `vitamin ${HOSTILE}`, "--store", store, "--mode", "lexical"], dir);
    const list = await cli(["runs", "list"], dir);
    const graph = join(dir, "g.citeflow.json");
    writeFileSync(
      graph,
      JSON.stringify({
        citeflow: 1,
        name: `g ${HOSTILE}`,
        inputs: { question: { type: "Question" } },
        nodes: [{ id: "q", type: "input.question", version: 1, params: { [`k${HOSTILE}`]: 1 } }],
        edges: [],
      }),
    );
    const validate = await cli(["validate", graph], dir);
    for (const [what, r] of Object.entries({ ingest, search, list, validate })) {
      expect(r.out, what).not.toMatch(ACTIVE);
    }
    expect(ingest.out).toMatch(/corpus\.jsonl:2: not valid JSON/);
    expect(ingest.out).toMatch(/corpus\.jsonl:\d+: document id .* control character/);
    expect(search.out).toContain("Vitamin D \\u001b[2J");
    expect(list.out).toContain("\\u001b]52;c;");
    expect(validate.code).not.toBe(0);
    expect(validate.out).toContain("\\u001b");
  });
});
