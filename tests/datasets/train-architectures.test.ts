import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureTrainEnvironment, PYTHON_DIR, trainEnvironment } from "@citeflow/datasets";
import { loadNli } from "@citeflow/models";
import { expectSha256Sums } from "../helpers.js";

// citeflow train on any Hugging Face base: tiny RANDOM models of three encoder architectures (BERT, RoBERTa,
// DeBERTa-v2, with all-MiniLM-L6-v2's tokenizer files) and two causal LMs (Llama, Gemma 3, with a small BPE
// tokenizer), made from configs by tests/fixtures/tiny_hf.py (nothing downloaded). Each is trained a few steps on
// the CPU, exported, and read back the way the product or vLLM reads it.

const BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../fixtures/tiny_hf.py", import.meta.url));
const venv = trainEnvironment(process.env);
const work = mkdtempSync(join(tmpdir(), "citeflow-train-arch-"));
const bases = join(work, "bases");
const models = join(work, "models");
let py = "";

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}
const cli = (args: string[], timeout = 300_000): Promise<Cli> =>
  new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { timeout, env: { ...process.env, CITEFLOW_TRAIN_VENV: venv } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
const python = (code: string, ...args: string[]) => execFileSync(py, ["-c", code, ...args], { encoding: "utf8", cwd: PYTHON_DIR, env: { ...process.env, PYTHONPATH: PYTHON_DIR } });

const SUBJECTS = ["Vitamin D", "Aspirin", "Metformin", "Statins", "Exercise", "Smoking"];
const OUTCOMES = ["fracture risk", "colorectal cancer", "mortality", "blood pressure"];
function writeRows(dir: string, rows: unknown[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "train.jsonl"), rows.map((r) => JSON.stringify(r) + "\n").join(""));
  return dir;
}
const nliRows = () =>
  SUBJECTS.flatMap((s, i) =>
    OUTCOMES.map((o, j) => {
      const label = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"][(i + j) % 3]!;
      const premise = { SUPPORT: `In ${100 + i} patients, ${s.toLowerCase()} lowered ${o}.`, CONTRADICT: `${s} did not lower ${o}.`, NO_EVIDENCE: `The cohort began in ${1990 + j}.` }[label];
      return { premise, hypothesis: `${s} lowers ${o}.`, label };
    }),
  );
const sftRows = () =>
  SUBJECTS.map((s, i) => ({
    messages: [
      { role: "user", content: `Does ${s.toLowerCase()} lower mortality?\n\n[1] In trial ${i}, ${s.toLowerCase()} lowered mortality.` },
      { role: "assistant", content: `The papers report: ${s.toLowerCase()} lowered mortality in trial ${i} [1].` },
    ],
  }));

beforeAll(() => {
  py = ensureTrainEnvironment(venv, (l) => process.stderr.write(l + "\n"), process.env);
  execFileSync(py, [FIXTURE, bases, "bert", "roberta", "deberta-v2", "llama", "gemma3", "vit"], { stdio: "ignore" });
}, 900_000);

describe("citeflow train nli on any Hugging Face encoder: trained, exported by PyTorch's exporter, scored by the product", { timeout: 600_000 }, () => {
  const nli = () => writeRows(join(work, "nli"), nliRows());

  it.each(["bert", "roberta", "deberta-v2"])("%s: the product's scores move off the untrained model's, and the ONNX graph gives PyTorch's outputs", async (arch) => {
    const data = nli();
    const train = (name: string, lr: string) =>
      cli(["train", "nli", "--data", data, "--out", join(models, name), "--base", join(bases, arch), "--max-steps", "6", "--batch-size", "8", "--lr", lr, "--threads", "2", "--json"]);
    // The same seed and the same head, once at a learning rate of 1e-12: the model before training, through the same export.
    const [untrained, trained] = [await train(`${arch}-lr0`, "1e-12"), await train(`${arch}-nli`, "1e-3")];
    for (const r of [untrained, trained]) expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(trained.stdout.trim().split("\n").at(-1)!) as { onnx_gap: number; device: string };
    expect(result.onnx_gap).toBeLessThanOrEqual(1e-4);
    expect(result.device).toMatch(/CPU, 2 threads/);
    expect(trained.stderr).toMatch(/onnx: the fp32 graph's outputs are within \S+ of PyTorch's/);
    const out = join(models, `${arch}-nli`);
    expectSha256Sums(out);
    const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
    expect(config.model_type).toBe(arch);
    expect(config.citeflow_pooling).toBe("mean");
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain(`mean-pooled ${arch} classifier`);
    expect(card).toMatch(/\| device \| x86_64 CPU, 2 threads; 1 process\(es\) \|/);
    // citeflow eval nli scores every pair with it; the product's NLI loader (transformers.js, int8) gives other probabilities than before training.
    const evaluated = await cli(["eval", "nli", "--pairs", join(data, "train.jsonl"), "--model", `${arch}-nli`, "--models-dir", models, "--json"]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(JSON.parse(evaluated.stdout).pairs).toBe(nliRows().length);
    const pairs = nliRows().slice(0, 4);
    const support = async (name: string) => (await (await loadNli(name, { modelsDirs: [models], dtype: "q8" })).classify(pairs)).map((p) => p.SUPPORT);
    const [before, after] = [await support(`${arch}-lr0`), await support(`${arch}-nli`)];
    expect(after.some((p, i) => Math.abs(p - before[i]!) > 1e-3)).toBe(true);
    // RoBERTa and DeBERTa read no segment ids, so their graphs take none.
    const inputs = python(`import onnx, sys; print(" ".join(i.name for i in onnx.load(sys.argv[1]).graph.input))`, join(out, "onnx", "model.onnx")).trim();
    expect(inputs).toBe(arch === "bert" ? "input_ids attention_mask token_type_ids" : "input_ids attention_mask");
    // No node carries the exporter's stack traces (this machine's paths, source lines): the same weights give the same bytes anywhere.
    const traced = python(`import onnx, sys; print(sum(len(n.metadata_props) for n in onnx.load(sys.argv[1]).graph.node))`, join(out, "onnx", "model.onnx")).trim();
    expect(traced).toBe("0");
  });

  it("the export's check can fail: a graph further from PyTorch than the tolerance is refused and nothing is written", () => {
    const said = python(
      `import sys, onnx_export, torch
from pathlib import Path
from transformers import AutoTokenizer
from pooled_encoder import load_classifier
base = Path(sys.argv[1])
model = load_classifier(base, {"num_labels": 3})
probe = AutoTokenizer.from_pretrained(str(base))(["a claim", "another"], ["its evidence", "more"], padding=True, return_tensors="pt")
onnx_export.TOLERANCE = -1.0  # no gap passes: the refusal path, as a graph that computes something else would take it
out = Path(sys.argv[2])
try:
    onnx_export.export(model, "logits", ["input_ids", "attention_mask", "token_type_ids"], probe, out)
    print("exported", out.exists())
except onnx_export.ExportError as e:
    print("refused:", e, "| written:", out.exists())`,
      join(bases, "bert"),
      join(work, "refused.onnx"),
    );
    expect(said).toMatch(/refused: the exported ONNX graph differs from PyTorch by \S+ \(more than -1\) on 2 probe inputs; nothing was written \| written: False/);
  });

  it("trains a reranker (a sentence encoder) on a RoBERTa base; its graph's hidden states are PyTorch's", async () => {
    const data = writeRows(
      join(work, "rerank"),
      SUBJECTS.map((s) => ({ query: `does ${s} lower mortality`, positive: `${s} lowered mortality in a trial.`, negative: `A survey of bird migration.` })),
    );
    const r = await cli([
      "train",
      "rerank",
      "--data",
      data,
      "--out",
      join(models, "roberta-rerank"),
      "--base",
      join(bases, "roberta"),
      "--max-steps",
      "3",
      "--batch-size",
      "4",
      "--threads",
      "2",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!).onnx_gap).toBeLessThanOrEqual(1e-4);
    expect(JSON.parse(readFileSync(join(models, "roberta-rerank", "config.json"), "utf8")).citeflow_reranker).toEqual({ kind: "encoder", pooling: "mean", lexicalWeight: 0.5 });
  });
});

describe("citeflow train lm on a Hugging Face causal LM: a PEFT adapter that transformers loads on its base", { timeout: 600_000 }, () => {
  it.each(["llama", "gemma3"])("%s: the adapter changes the base's next-token logits; the card names the device", async (arch) => {
    const data = writeRows(join(work, "sft"), sftRows());
    const out = join(models, `${arch}-lora`);
    const r = await cli([
      "train",
      "lm",
      "--data",
      data,
      "--out",
      out,
      "--base",
      join(bases, arch),
      "--max-steps",
      "4",
      "--batch-size",
      "2",
      "--lr",
      "5e-3",
      "--lora-rank",
      "4",
      "--threads",
      "2",
      "--max-length",
      "512",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expectSha256Sums(out);
    expect(JSON.parse(readFileSync(join(out, "adapter_config.json"), "utf8"))).toMatchObject({ base_model_name_or_path: arch, r: 4, peft_type: "LORA" });
    const card = readFileSync(join(out, "README.md"), "utf8");
    expect(card).toContain("`adapter_config.json`, `adapter_model.safetensors` (PEFT)");
    expect(card).not.toContain("adapter.gguf");
    expect(card).toMatch(/\| device \| x86_64 CPU, 2 threads; 1 process\(es\) \|/);
    // The tiny Llama's tokenizer has a chat template (a served model's rows are rendered with it); the tiny Gemma's has none.
    expect(card).toContain(arch === "llama" ? "rows rendered with the base's chat template" : "rows rendered as the product prompts a model without a chat template");
    expect(JSON.parse(readFileSync(join(out, "training.json"), "utf8")).chat_template).toBe(arch === "llama");
    const moved = python(
      `import sys, torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer
base = AutoModelForCausalLM.from_pretrained(sys.argv[1])
ids = AutoTokenizer.from_pretrained(sys.argv[1])("Does aspirin lower mortality?", return_tensors="pt")["input_ids"]
with torch.no_grad():
    before = base(input_ids=ids).logits
    after = PeftModel.from_pretrained(base, sys.argv[2])(input_ids=ids).logits
print(float((after - before).abs().max()))`,
      join(bases, arch),
      out,
    );
    expect(Number(moved)).toBeGreaterThan(1e-4);
  });
});

describe("data-parallel training and bad input", { timeout: 600_000 }, () => {
  it("two processes on the CPU (torchrun, gloo) train to the loss one process reaches on the same batches, within noise", async () => {
    const data = writeRows(join(work, "nli-dp"), nliRows());
    const losses = async (name: string, ...how: string[]) => {
      const r = await cli(["train", "nli", "--data", data, "--out", join(models, name), "--base", join(bases, "bert"), "--max-steps", "10", "--lr", "1e-3", ...how]);
      expect(r.code, r.stderr).toBe(0);
      return [...r.stderr.matchAll(/step \d+\/10 .* loss (\S+)/g)].map((m) => Number(m[1]));
    };
    const one = await losses("dp-one", "--batch-size", "8", "--threads", "2");
    const two = await losses("dp-two", "--batch-size", "4", "--threads", "1", "--processes", "2");
    // A loss line for every step after the first (the rate is measured from there).
    expect(one).toHaveLength(9);
    expect(two).toHaveLength(9);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Each step sees 8 pairs either way (8 in one process, 4 in each of two); the samplers deal them differently.
    expect(Math.abs(mean(two) - mean(one)) / mean(one)).toBeLessThan(0.05);
  });

  it("a base that is not a text encoder or not a causal LM, a config that is not JSON, GPUs that are not there, a GGUF of another model", async () => {
    const data = writeRows(join(work, "nli-bad"), nliRows());
    const sft = writeRows(join(work, "sft-bad"), sftRows());
    const out = join(work, "never");
    const vit = await cli(["train", "nli", "--data", data, "--out", out, "--base", join(bases, "vit")]);
    expect([vit.code, vit.stderr]).toEqual([1, expect.stringMatching(/--base .*vit: model_type 'vit' has no sequence-classification head in transformers/)]);
    const vitLm = await cli(["train", "lm", "--data", sft, "--out", out, "--base", join(bases, "vit")]);
    expect(vitLm.stderr).toMatch(/--base .*vit: model_type 'vit' is not a causal language model/);
    const broken = join(work, "broken-base");
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "config.json"), "{ not json");
    const notJson = await cli(["train", "nli", "--data", data, "--out", out, "--base", broken]);
    expect(notJson.stderr).toMatch(/--base .*broken-base: config\.json is not JSON/);
    const gpus = await cli(["train", "nli", "--data", data, "--out", out, "--base", join(bases, "bert"), "--gpus", "2"], 120_000);
    expect([gpus.code, gpus.stderr]).toEqual([1, expect.stringMatching(/--gpus 2: PyTorch \S+ \(.*\) sees 0 CUDA GPU\(s\); leave --gpus out to train on the CPU/)]);
    const cuda = await cli(["train", "nli", "--data", data, "--out", out, "--base", join(bases, "bert"), "--device", "cuda"], 120_000);
    expect(cuda.stderr).toMatch(/--device cuda: PyTorch \S+ .* sees 0 CUDA GPU\(s\)/);
    // A GGUF of another model (Gemma 3 270M's 18 blocks) for the tiny Gemma 3's adapter: refused by name.
    const other = join(work, "other.gguf");
    python(
      `import sys, gguf, numpy as np
w = gguf.GGUFWriter(sys.argv[1], "gemma3")
w.add_block_count(18)
w.add_tensor("token_embd.weight", np.zeros((4, 4), np.float32))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()`,
      other,
    );
    const wrongGguf = await cli(["train", "lm", "--data", sft, "--out", out, "--base", join(bases, "gemma3"), "--gguf", other, "--max-steps", "1"]);
    expect(wrongGguf.stderr).toMatch(/--gguf .*other\.gguf: a gemma3 model of 18 blocks, not the base's GGUF \(gemma3: gemma3_text, 2 blocks\); an adapter is only for the model it was trained on/);
    const qlora = await cli(["train", "lm", "--data", sft, "--out", out, "--base", join(bases, "llama"), "--qlora"]);
    expect([qlora.code, qlora.stderr]).toEqual([1, expect.stringMatching(/--qlora needs a CUDA GPU \(bitsandbytes' 4-bit weights\); on the CPU leave it out/)]);
    const ggufForNli = await cli(["train", "nli", "--data", data, "--out", out, "--gguf", other]);
    expect([ggufForNli.code, ggufForNli.stderr]).toEqual([2, expect.stringMatching(/--gguf is for train lm/)]);
    const both = await cli(["train", "nli", "--data", data, "--out", out, "--gpus", "2", "--processes", "2"]);
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/--gpus and --processes: give one/)]);
    expect(() => readFileSync(join(out, "config.json"))).toThrow();
  });
});
