/** `npm run lab` serves the checkout's notebooks: the server saves the shipped ones without outputs, so running one leaves the checkout clean. */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const { startLab } = await import(join(root, "scripts", "lab.mjs"));

const notebook = {
  cells: [{ cell_type: "code", source: "1 + 1", metadata: {}, execution_count: 3, outputs: [{ output_type: "execute_result", data: { "text/plain": "2" }, metadata: {}, execution_count: 3 }] }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
};

describe("the lab server's saves", () => {
  it("writes a shipped notebook without outputs, and any other notebook with them", async () => {
    const work = mkdtempSync(join(tmpdir(), "citeflow-lab-save-"));
    const dir = join(work, "root");
    mkdirSync(dir);
    const lab = await startLab({ state: join(work, "state"), root: dir, quiet: true, shippedNotebooks: [join(dir, "shipped.ipynb")] });
    try {
      for (const name of ["shipped.ipynb", "mine.ipynb"]) {
        const r = await lab.api(`/api/contents/${name}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ type: "notebook", format: "json", content: notebook }),
        });
        expect(r.ok, await r.text()).toBe(true);
      }
      const saved = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")).cells[0];
      expect(saved("shipped.ipynb")).toMatchObject({ source: ["1 + 1"], outputs: [], execution_count: null });
      expect(saved("mine.ipynb")).toMatchObject({ outputs: [expect.objectContaining({ output_type: "execute_result" })], execution_count: 3 });
    } finally {
      await lab.stop();
    }
  }, 240_000);
});
