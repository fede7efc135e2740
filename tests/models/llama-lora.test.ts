import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { checkAdapter, loadLocalChat, type ChatMessage } from "@citeflow/models";
import { ensureTrainEnvironment, PYTHON_DIR, trainEnvironment } from "@citeflow/datasets";
import { expectSha256Sums } from "../helpers.js";
import { GEMMA } from "./local.js";

// Close the loop for the language model, on the real base (Gemma 3 270M, Q4_K_M): sft rows →
// citeflow train lm (a LoRA adapter, a few steps) → a GGUF adapter node-llama-cpp applies → the
// answer changes, and llama.cpp's log-probabilities with the adapter agree with PyTorch's.

const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const venv = trainEnvironment(process.env);
const work = mkdtempSync(join(tmpdir(), "citeflow-lm-"));
const out = join(work, "models", "acme", "tiny-lora");
let py = "";

const QUESTION = "Which vitamin do the papers link to fractures?";
const ANSWER = "Vitamin D [1].";
const messages = (q: string): ChatMessage[] => [
  { role: "system", content: "You are a careful scientific assistant." },
  { role: "user", content: `[1] Vitamin D and bone\nLow vitamin D raised the risk of fractures.\n\nQuestion: ${q}\nAnswer:` },
];

const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { timeout: 600_000, env: { ...process.env, CITEFLOW_TRAIN_VENV: venv } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
const write = (dir: string, rows: unknown[]) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "train.jsonl"), rows.map((r) => JSON.stringify(r) + "\n").join(""));
  return dir;
};

beforeAll(() => {
  py = ensureTrainEnvironment(venv, (l) => process.stderr.write(l + "\n"), process.env);
}, 900_000);

describe("citeflow train lm → a GGUF LoRA adapter on the in-process model", { timeout: 600_000 }, () => {
  it("trains a few steps, writes the adapter with a card and sums; llama.cpp applies it, and the answer moves to the trained one", async () => {
    const data = write(join(work, "sft"), [{ messages: [...messages(QUESTION), { role: "assistant", content: ANSWER }] }]);
    const r = await cli(["train", "lm", "--data", data, "--out", out, "--base", GEMMA, "--max-steps", "8", "--batch-size", "1", "--lr", "3e-3", "--lora-rank", "4", "--threads", "2", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/train lm: 1 rows \(\d+ answer tokens of \d+\)/);
    for (const f of ["adapter.gguf", "README.md", "SHA256SUMS", "training.json"]) expect(existsSync(join(out, f)), f).toBe(true);
    expectSha256Sums(out);
    const card = readFileSync(join(out, "README.md"), "utf8");
    for (const want of ["base weights", "gemma-3-270m-q4_k_m.gguf", "Gemma Terms of Use", "LoRA rank 4", "command", "commit", "seed", "tokens/s"]) expect(card).toContain(want);
    expect(JSON.parse(readFileSync(join(out, "training.json"), "utf8")).base).toBe("gemma-3-270m-q4_k_m.gguf");

    const adapter = { path: join(out, "adapter.gguf"), name: "acme/tiny-lora" };
    const base = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 512 });
    const tuned = await loadLocalChat(GEMMA, { sequences: 1, contextSize: 512, adapter });
    const before = (await base.chat(messages(QUESTION), { maxTokens: 12 })).text;
    const after = await tuned.chat(messages(QUESTION), { maxTokens: 12 });
    expect(after.model).toBe("gemma-3-270m-q4_k_m+acme/tiny-lora");
    expect(after.text.trim()).not.toBe(before.trim());
    expect(after.text.trim()).toBe(ANSWER);
  });

  it("llama.cpp with the adapter gives PyTorch's log-probabilities (the adapter read back from its GGUF and merged), within 0.35 nats on average", async () => {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: GEMMA });
    const text = `${messages(QUESTION)
      .map((m) => m.content)
      .join("\n\n")} ${ANSWER}`;
    const tokens = [model.tokens.bos, ...model.tokenize(text, false, "trimLeadingSpace")];
    const from = tokens.length - 6; // the answer's tokens
    const logprobs = async (adapter?: string) => {
      const ctx = await model.createContext({ contextSize: 256, ...(adapter ? { lora: { adapters: [{ filePath: adapter }] } } : {}) });
      const res = await ctx.getSequence().controlledEvaluate(tokens.map((t, i) => (i >= from - 1 && i < tokens.length - 1 ? [t, { generateNext: { probabilities: true } }] : t)));
      await ctx.dispose();
      return tokens.slice(from).map((t, i) => Math.log(res[from + i - 1]!.next!.probabilities!.get(t) ?? 1e-30));
    };
    const torch = (adapter?: string) =>
      JSON.parse(
        execFileSync(py, [join(PYTHON_DIR, "lm_logprobs.py"), GEMMA, ...(adapter ? [adapter] : [])], { input: JSON.stringify({ tokens, from }), encoding: "utf8", stdio: ["pipe", "pipe", "ignore"] })
          .trim()
          .split("\n")
          .at(-1)!,
      ) as { logprobs: number[]; merged: number };
    const adapter = join(out, "adapter.gguf");
    const [llamaBase, llamaTuned] = [await logprobs(), await logprobs(adapter)];
    const [torchBase, torchTuned] = [torch(), torch(adapter)];
    expect(torchTuned.merged).toBe(18 * 7); // every attention and MLP projection of the 18 blocks
    const meanGap = (a: number[], b: number[]) => a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0) / a.length;
    // The adapter moves the answer's log-probabilities by far more than the two runtimes differ.
    const moved = meanGap(torchBase.logprobs, torchTuned.logprobs);
    expect(moved).toBeGreaterThan(1);
    expect(meanGap(llamaTuned, torchTuned.logprobs)).toBeLessThan(0.35);
    expect(meanGap(llamaBase, torchBase.logprobs)).toBeLessThan(0.35);
  });

  it("a training killed with kill -9 leaves no adapter where the product would load it, and the same command resumes from its checkpoint", async () => {
    const data = write(join(work, "sft-kill"), [{ messages: [...messages(QUESTION), { role: "assistant", content: ANSWER }] }]);
    const killed = join(work, "models", "acme", "killed-lora");
    const args = ["train", "lm", "--data", data, "--out", killed, "--base", GEMMA, "--max-steps", "24", "--batch-size", "1", "--lr", "3e-3", "--lora-rank", "4", "--threads", "2"];
    const child = spawn(process.execPath, [BIN, ...args], { detached: true, stdio: "ignore", env: { ...process.env, CITEFLOW_TRAIN_VENV: venv } });
    const ckpt = join(work, "models", "acme", "killed-lora.work", "checkpoints");
    const saved = () => existsSync(ckpt) && readdirSync(ckpt).some((d) => d.startsWith("checkpoint-") && existsSync(join(ckpt, d, "trainer_state.json")));
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && !saved()) await new Promise((r) => setTimeout(r, 200));
    process.kill(-child.pid!, "SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(saved()).toBe(true);
    expect(existsSync(killed)).toBe(false);
    const again = await cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming from .*checkpoint-\d+/);
    for (const f of ["adapter.gguf", "README.md", "SHA256SUMS", "training.json"]) expect(existsSync(join(killed, f)), f).toBe(true);
    expectSha256Sums(killed);
    expect(existsSync(`${killed}.work`)).toBe(false);
  });

  it("bad input: no rows, rows of another format, an adapter for another model; a failed training leaves no adapter where the product looks", async () => {
    const empty = join(work, "empty");
    mkdirSync(empty);
    const none = await cli(["train", "lm", "--data", empty, "--out", join(work, "m1"), "--base", GEMMA]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no train\.jsonl.*citeflow export --format sft/);
    const nli = write(join(work, "nli"), [{ premise: "a", hypothesis: "b", label: "SUPPORT" }]);
    const wrong = await cli(["train", "lm", "--data", nli, "--out", join(work, "m2"), "--base", GEMMA]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/train\.jsonl:1: not an sft row.*--format sft/);
    expect(existsSync(join(work, "m1")) || existsSync(join(work, "m2"))).toBe(false);
    const notGguf = await cli(["train", "lm", "--data", nli, "--out", join(work, "m3"), "--base", join(work, "nli")]);
    expect(notGguf.stderr).toMatch(/--base .*neither a model folder \(config\.json\) nor a \.gguf file/);
    // An adapter whose tensors do not fit the base, and one for another architecture: named before llama.cpp reads them.
    const misfit = join(work, "misfit.gguf");
    const llamaArch = join(work, "llama-arch.gguf");
    execFileSync(py, [
      "-c",
      `import sys, numpy as np, gguf
for path, arch, width in ((sys.argv[1], "gemma3", 100), (sys.argv[2], "llama", 640)):
    w = gguf.GGUFWriter(path, arch)
    w.add_type(gguf.GGUFType.ADAPTER); w.add_string(gguf.Keys.Adapter.TYPE, "lora"); w.add_float32(gguf.Keys.Adapter.LORA_ALPHA, 8.0)
    w.add_tensor("blk.0.attn_q.weight.lora_a", np.zeros((4, width), np.float32)); w.add_tensor("blk.0.attn_q.weight.lora_b", np.zeros((1024, 4), np.float32))
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()`,
      misfit,
      llamaArch,
    ]);
    await expect(checkAdapter(misfit, GEMMA)).rejects.toThrow(/does not fit the base .*blk\.0\.attn_q\.weight is \[640, 1024\] in the base, and the adapter expects \[100, 1024\]/);
    await expect(checkAdapter(llamaArch, GEMMA)).rejects.toThrow(/is for llama models; the base .* is gemma3/);
    await expect(checkAdapter(GEMMA, GEMMA)).rejects.toThrow(/is not a LoRA adapter/);
    await expect(loadLocalChat(GEMMA, { adapter: { path: misfit, name: "misfit" } })).rejects.toThrow(/does not fit the base/);
  });
});
