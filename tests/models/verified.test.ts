import { appendFileSync, copyFileSync, cpSync, mkdirSync, openSync, closeSync, writeSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_ADAPTER, DEFAULT_MODELS, describeModel, fileSha256, loadEmbedder, loadLocalChat, loadNli, loadReranker, ModelIntegrityError, readSums, verifyModelFile } from "@citeflow/models";
import { tempDir } from "../helpers.js";
import { GEMMA, INSTALLED } from "./local.js";

// Every model Citeflow loads is checked against the SHA256SUMS of its folder where it loads: a
// changed file is refused by name with both sums, a file added beside a verified model is refused,
// and a model with no sums loads and is said to be unverified in the run's first lines.

const SHIPPED = fileURLToPath(new URL("../../models", import.meta.url));

/** Zeroes 64 bytes of a file at `at` (past any header a loader checks first). */
function tamper(file: string, at: number): void {
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(64), 0, 64, at);
  closeSync(fd);
}

/** A copy of a model folder under a fresh models folder, as `<dir>/<id>`. */
function copyModel(src: string, id: string): { dir: string; model: string } {
  const dir = tempDir("citeflow-verified-");
  const model = join(dir, id);
  cpSync(src, model, { recursive: true });
  return { dir, model };
}

/** sha256sum's format, over the files given (relative to `folder`). */
function writeSums(folder: string, files: string[]): void {
  writeFileSync(join(folder, "SHA256SUMS"), files.map((f) => `${fileSha256(join(folder, f))}  ${f}\n`).join(""));
}

const encoders = [
  { kind: "NLI", id: DEFAULT_MODELS.nli, src: join(SHIPPED, DEFAULT_MODELS.nli), onnx: "onnx/model_quantized.onnx", load: loadNli },
  { kind: "reranker", id: DEFAULT_MODELS.reranker, src: join(SHIPPED, DEFAULT_MODELS.reranker), onnx: "onnx/model_quantized.onnx", load: loadReranker },
  { kind: "embedder", id: DEFAULT_MODELS.embedder, src: join(INSTALLED, DEFAULT_MODELS.embedder), onnx: "onnx/model.onnx", load: loadEmbedder },
] as const;

describe("models are verified where they load", () => {
  for (const m of encoders) {
    it(`${m.kind}: a changed weights file is refused, naming it and both sums`, async () => {
      const { dir, model } = copyModel(m.src, m.id);
      if (!readSums(model)) writeSums(model, ["config.json", "tokenizer.json", "tokenizer_config.json", m.onnx]);
      const expected = readSums(model)!.get(m.onnx)!;
      tamper(join(model, m.onnx), 4096);
      const err = await m.load(m.id, { modelsDirs: [dir] }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(ModelIntegrityError);
      expect(err!.message).toContain(join(model, m.onnx));
      expect(err!.message).toContain(`expected ${expected}`);
      expect(err!.message).toContain(`got ${fileSha256(join(model, m.onnx))}`);
      // The run's first lines say so too.
      expect(describeModel(m.id, [dir])).toMatch(/\(refused: .* does not match/);
      rmSync(dir, { recursive: true, force: true });
    });

    it(`${m.kind}: a file added beside a verified model is refused; without sums it loads, said to be unverified`, async () => {
      const { dir, model } = copyModel(m.src, m.id);
      if (!readSums(model)) writeSums(model, ["config.json", "tokenizer.json", "tokenizer_config.json", m.onnx]);
      const other = m.onnx === "onnx/model.onnx" ? "onnx/model_quantized.onnx" : "onnx/model.onnx";
      copyFileSync(join(model, m.onnx), join(model, other));
      await expect(m.load(m.id, { modelsDirs: [dir] })).rejects.toThrow(`${join(model, other)} is not in ${join(model, "SHA256SUMS")}`);
      rmSync(join(model, other));
      expect(describeModel(m.id, [dir])).not.toContain("unverified");
      rmSync(join(model, "SHA256SUMS"));
      await expect(m.load(m.id, { modelsDirs: [dir] })).resolves.toBeDefined();
      expect(describeModel(m.id, [dir])).toContain(`unverified: no SHA256SUMS in ${model}`);
      expect(describeModel(m.id, [dir], true)).not.toContain("unverified");
      rmSync(dir, { recursive: true, force: true });
    });
  }

  it("a damaged JSON file of an unverified model is named, with what is wrong with it, for every kind", async () => {
    for (const m of encoders)
      for (const [file, text, says] of [
        ["config.json", "{bad json", "config.json: not JSON ("],
        ["tokenizer.json", "{}", 'tokenizer.json: holds no tokenizer (no "model" in it)'],
        ["tokenizer_config.json", "[1]", "tokenizer_config.json: not a JSON object"],
      ] as const) {
        const { dir, model } = copyModel(m.src, m.id);
        rmSync(join(model, "SHA256SUMS"), { force: true });
        writeFileSync(join(model, file), text);
        await expect(m.load(m.id, { modelsDirs: [dir] }), `${m.kind} ${file}`).rejects.toThrow(`${join(model, says)}`);
        rmSync(dir, { recursive: true, force: true });
      }
  });

  it("a malformed SHA256SUMS is refused by file and line", async () => {
    const { dir, model } = copyModel(join(SHIPPED, DEFAULT_MODELS.nli), DEFAULT_MODELS.nli);
    appendFileSync(join(model, "SHA256SUMS"), "not a sum\n");
    const lines = readFileSync(join(model, "SHA256SUMS"), "utf8").trim().split("\n").length;
    await expect(loadNli(DEFAULT_MODELS.nli, { modelsDirs: [dir] })).rejects.toThrow(`${join(model, "SHA256SUMS")}:${lines}: not a sha256sum line`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("GGUF: the base and its adapter are checked against the sums beside each", async () => {
    const dir = tempDir("citeflow-verified-gguf-");
    const base = join(dir, "gemma.gguf");
    copyFileSync(GEMMA, base);
    writeSums(dir, ["gemma.gguf"]);
    const adapterDir = join(dir, "adapter");
    mkdirSync(adapterDir);
    cpSync(join(SHIPPED, DEFAULT_ADAPTER), adapterDir, { recursive: true });
    const adapter = { path: join(adapterDir, "adapter.gguf"), name: DEFAULT_ADAPTER };
    const expected = readSums(adapterDir)!.get("adapter.gguf")!;
    tamper(adapter.path, 1 << 16);
    await expect(loadLocalChat(base, { adapter, threads: 1, sequences: 1, contextSize: 256 })).rejects.toThrow(
      `${adapter.path} does not match ${join(adapterDir, "SHA256SUMS")} (expected ${expected}`,
    );
    tamper(base, 8 << 20);
    await expect(loadLocalChat(base, { threads: 1, sequences: 1, contextSize: 256 })).rejects.toThrow(`${base} does not match ${join(dir, "SHA256SUMS")}`);
    // A GGUF its folder's sums do not list loads unverified (a folder of GGUF files vouches only for those it lists).
    writeFileSync(join(dir, "SHA256SUMS"), "");
    expect(verifyModelFile(base, false)).toBe("unverified");
    expect(() => verifyModelFile(adapter.path, true)).toThrow(ModelIntegrityError);
    rmSync(dir, { recursive: true, force: true });
  });
});
