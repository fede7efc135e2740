import { existsSync } from "node:fs";
import { FailureError, UsageError } from "../errors.js";

export interface TrainCommandOptions {
  data: string;
  out: string;
  base?: string;
  heldout?: string;
  claims?: string;
  epochs?: number;
  maxSteps?: number;
  batchSize?: number;
  maxLength?: number;
  lr?: string;
  lexicalWeight?: string;
  seed?: number;
  threads?: number;
  loraRank?: number;
  loraAlpha?: string;
  refusalShare?: string;
  openingWeight?: string;
  augment: boolean;
  corpus?: string;
  corpusSentences?: number;
  leaveOut?: string[];
  add?: string[];
  curriculum: boolean;
  dataLicence?: string;
  bf16: boolean;
  fp32: boolean;
  device: string;
  gpus?: number;
  processes?: number;
  nodes?: number;
  nodeRank?: number;
  master?: string;
  gradientCheckpointing: boolean;
  gguf?: string;
  qlora: boolean;
  json: boolean;
}

/** citeflow train nli|rerank: a cross-encoder from an export folder, with a card and sha256 sums; progress on stderr. */
export async function trainCommand(task: string, opts: TrainCommandOptions): Promise<number> {
  if (task === "setup") {
    const { ensureTrainEnvironment, trainEnvironment } = await import("@citeflow/datasets");
    const venv = trainEnvironment(process.env);
    ensureTrainEnvironment(venv, (l) => process.stderr.write(l + "\n"), process.env);
    process.stdout.write(`training environment: ${venv}\n`);
    return 0;
  }
  if (task !== "nli" && task !== "rerank" && task !== "lm") throw new UsageError(`train ${task}: give nli, rerank, lm or setup`);
  if (!opts.data || !opts.out) throw new UsageError(`train ${task} needs --data <export folder> and --out <model folder>`);
  if (opts.corpus !== undefined && task !== "nli") throw new UsageError("--corpus is for train nli: pairs made from unlabelled abstracts");
  if (!opts.heldout !== !opts.claims) throw new UsageError("--heldout and --claims go together: the held-out split and the claims file its ids point into");
  if (opts.leaveOut?.length && !opts.claims) throw new UsageError("--leave-out needs --heldout and --claims: the claims file its ids point into");
  if (opts.add?.length && task !== "nli") throw new UsageError("--add is for train nli: other labelled sets of NLI pairs");
  if (opts.curriculum && !opts.add?.length) throw new UsageError("--curriculum needs --add: the sets trained on first (train nli)");
  for (const f of [...(opts.leaveOut ?? []), ...(opts.add ?? []).map((a) => a.replace(/=[^=/]*$/, ""))]) if (!existsSync(f)) throw new FailureError(`${f}: no such file or folder`);
  const lr = opts.lr === undefined ? undefined : Number(opts.lr);
  if (lr !== undefined && !(lr > 0 && lr < 1)) throw new UsageError(`--lr ${opts.lr}: give a learning rate such as 4e-5`);
  const lexicalWeight = opts.lexicalWeight === undefined ? undefined : Number(opts.lexicalWeight);
  if (lexicalWeight !== undefined && !(lexicalWeight >= 0 && lexicalWeight <= 1)) throw new UsageError(`--lexical-weight ${opts.lexicalWeight}: give a weight from 0 to 1`);
  if (lexicalWeight !== undefined && task !== "rerank") throw new UsageError("--lexical-weight is for train rerank");
  if ((opts.loraRank !== undefined || opts.loraAlpha !== undefined) && task !== "lm") throw new UsageError("--lora-rank and --lora-alpha are for train lm");
  const loraAlpha = opts.loraAlpha === undefined ? undefined : Number(opts.loraAlpha);
  const refusalShare = opts.refusalShare === undefined ? undefined : Number(opts.refusalShare);
  if (refusalShare !== undefined && !(refusalShare >= 0 && refusalShare <= 1)) throw new UsageError(`--refusal-share ${opts.refusalShare}: give a share from 0 to 1`);
  if (refusalShare !== undefined && task !== "lm") throw new UsageError("--refusal-share is for train lm");
  const openingWeight = opts.openingWeight === undefined ? undefined : Number(opts.openingWeight);
  if (openingWeight !== undefined && !(openingWeight >= 1)) throw new UsageError(`--opening-weight ${opts.openingWeight}: give a weight of 1 or more`);
  if (openingWeight !== undefined && task !== "lm") throw new UsageError("--opening-weight is for train lm");
  if (opts.device !== "auto" && opts.device !== "cpu" && opts.device !== "cuda") throw new UsageError(`--device ${opts.device}: give auto, cpu or cuda`);
  if (opts.gpus !== undefined && opts.processes !== undefined) throw new UsageError("--gpus and --processes: give one (GPUs, or processes on the CPU)");
  if ((opts.nodes ?? 1) > 1 && !opts.master) throw new UsageError(`--nodes ${opts.nodes}: give --master <host:port> (the first machine's address) and --node-rank`);
  if (opts.qlora && task !== "lm") throw new UsageError("--qlora is for train lm: LoRA on a 4-bit base");
  if (opts.gguf !== undefined && task !== "lm") throw new UsageError("--gguf is for train lm: the GGUF of its Hugging Face base");
  if (loraAlpha !== undefined && !(loraAlpha > 0)) throw new UsageError(`--lora-alpha ${opts.loraAlpha}: give a positive number such as 32`);
  const { trainModel, TrainError } = await import("@citeflow/datasets");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const r = await trainModel({
      env: process.env,
      task,
      data: opts.data,
      out: opts.out,
      augment: opts.augment,
      bf16: opts.bf16,
      fp32: opts.fp32,
      device: opts.device as "auto" | "cpu" | "cuda",
      gradientCheckpointing: opts.gradientCheckpointing,
      qlora: opts.qlora,
      ...(opts.gpus !== undefined ? { gpus: opts.gpus } : {}),
      ...(opts.processes !== undefined ? { processes: opts.processes } : {}),
      ...(opts.nodes !== undefined ? { nodes: { count: opts.nodes, rank: opts.nodeRank ?? 0, master: opts.master ?? "" } } : {}),
      ...(opts.gguf !== undefined ? { gguf: opts.gguf } : {}),
      command: ["citeflow", ...process.argv.slice(2)].join(" "),
      signal: controller.signal,
      ...(opts.base ? { base: opts.base } : {}),
      ...(opts.corpus !== undefined ? { corpus: opts.corpus } : {}),
      ...(opts.corpusSentences !== undefined ? { corpusSentences: opts.corpusSentences } : {}),
      ...(opts.leaveOut?.length ? { leaveOut: opts.leaveOut } : {}),
      ...(opts.add?.length ? { add: opts.add } : {}),
      ...(opts.curriculum ? { curriculum: true } : {}),
      ...(opts.dataLicence ? { dataLicence: opts.dataLicence } : {}),
      ...(opts.heldout && opts.claims ? { heldout: { split: opts.heldout, claims: opts.claims } } : {}),
      ...(opts.epochs !== undefined ? { epochs: opts.epochs } : {}),
      ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
      ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
      ...(opts.maxLength !== undefined ? { maxLength: opts.maxLength } : {}),
      ...(lr !== undefined ? { lr } : {}),
      ...(lexicalWeight !== undefined ? { lexicalWeight } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      ...(opts.loraRank !== undefined ? { loraRank: opts.loraRank } : {}),
      ...(loraAlpha !== undefined ? { loraAlpha } : {}),
      ...(refusalShare !== undefined ? { refusalShare } : {}),
      ...(openingWeight !== undefined ? { openingWeight } : {}),
    });
    if (opts.json) process.stdout.write(JSON.stringify(r) + "\n");
    else {
      const rate = r.tokens_per_second !== undefined ? `${r.tokens_per_second.toFixed(0)} tokens/s` : `${(r.pairs_per_second ?? 0).toFixed(1)} pairs/s`;
      process.stdout.write(`model: ${r.out} (card: ${r.out}/README.md)\ntrained on ${r.pairs} ${task === "lm" ? "answers" : "pairs"} in ${r.seconds.toFixed(0)} s (${rate})\n`);
      if (r.heldout) for (const [k, v] of Object.entries(r.heldout)) process.stdout.write(`held-out ${k}: ${v}\n`);
    }
    return 0;
  } catch (e) {
    if (e instanceof TrainError) throw new FailureError(`train ${task}: ${e.message}`);
    throw e;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
