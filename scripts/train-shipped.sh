#!/usr/bin/env bash
# Reproduces the models Citeflow ships (models/citeflow/nli-minilm-scifact, models/citeflow/rerank-minilm-scifact,
# models/citeflow/lm-gemma3-270m-scifact, models/citeflow/lm-gemma3-270m-scifact-claims,
# models/citeflow/lm-gemma3-270m-scifact-judge) from SciFact with `citeflow export` and `citeflow train`: retrieval runs
# for the training claims → NLI and reranker exports → training; Verif.ai's answer prompts for the same claims →
# an sft export with gold answers → the language model's LoRA adapter; arXivBot's claims prompts → the claims adapter;
# OpenScholar's true/false prompts, for the claims and their polarity-flipped twins → the judge's adapter.
# About four hours on two cores.
#
# Usage: scripts/train-shipped.sh <claims data folder> [work folder]   (SciFact from $CITEFLOW_DATA, else data/)
# The claims data folder holds the claim-verification sets the NLI model also trains on, each in its own
# public layout (check-covid/ …; read there, never copied into the repository).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${CITEFLOW_DATA:-$root/data}/scifact"
claims="${1:?usage: scripts/train-shipped.sh <claims data folder: check-covid/ …> [work folder]}"
work="${2:-$root/.citeflow/train-shipped}"
cf() { node "$root/packages/cli/dist/bin.js" "$@"; }
mkdir -p "$work"
licence="SciFact (Wadden et al., 2020): claims CC BY 4.0, abstracts ODC-By 1.0 (data/scifact/LICENSE.md)"

cf ingest "$data/corpus.jsonl" --store "$work/store" --batch 64
cf eval retrieval --store "$work/store" --queries "$data/claims_train.jsonl" --qrels "$data/qrels_train.tsv" --mode hybrid --runs "$work/runs"
cf export --runs "$work/runs" --format nli --labels "$data/claims_train.jsonl" --corpus "$data/corpus.jsonl" --out "$work/export-nli" --split 1
cf export --runs "$work/runs" --format rerank --qrels "$data/qrels_train.tsv" --out "$work/export-rerank" --split 1
# The NLI model leaves out the dev split's claims (bench/scifact-dev.json) so that its claim verdicts' calibration and
# cannot-tell band can be chosen there (bench/calibrate.mjs) on claims it never trained on, and adds three claim sets
# (their own dev/test splits kept apart): Check-COVID's train split (MIT), COVID-Fact's train split and HealthVer's
# dev split (neither states a licence). Chosen on dev over SciFact alone and over SciFact with Check-COVID alone
# (bench/README.md, "What the sets add, on dev").
for set in check-covid covidfact healthver; do cf datasets import "$set" "$claims/$set" --out "$work/$set"; done
cf train nli --data "$work/export-nli" --corpus "$data/corpus.jsonl" --out "$root/models/citeflow/nli-minilm-scifact" --heldout "$root/bench/scifact-heldout.json" --claims "$data/claims_train.jsonl" --seed 13 --threads 2 --epochs 2 --lr 3e-5 --max-length 128 --leave-out "$root/bench/scifact-dev.json" --add "$work/check-covid/train.jsonl" --add "$work/covidfact/train.jsonl" --add "$work/healthver/dev.jsonl" --data-licence "$licence"
# Shipped in int8 only, to keep the repository small: the fp32 file goes, and with it its line in the sums and the card.
int8_only() {
  rm "$1/onnx/model.onnx"
  sed -i '/  onnx\/model\.onnx$/d' "$1/SHA256SUMS" "$1/README.md"
  sed -i 's|`onnx/model.onnx` (fp32), `onnx/model_quantized.onnx` (int8, dynamic quantization)|shipped: `onnx/model_quantized.onnx` (int8, dynamic quantization); the fp32 `onnx/model.onnx` that `citeflow train` also writes is left out to keep the repository small (`scripts/train-shipped.sh`)|' "$1/README.md"
}
int8_only "$root/models/citeflow/nli-minilm-scifact"
# The reranker: a sentence encoder, fused with BM25 at weight 0.5 (chosen on 100 training claims held out of a
# first training, never on the held-out split: docs/training.md).
cf train rerank --data "$work/export-rerank" --out "$root/models/citeflow/rerank-minilm-scifact" --heldout "$root/bench/scifact-heldout.json" --claims "$data/claims_train.jsonl" --seed 13 --threads 2 --epochs 1 --lr 2e-5 --max-length 256 --lexical-weight 0.5 --data-licence "$licence"
int8_only "$root/models/citeflow/rerank-minilm-scifact"
# The language model's adapter: Verif.ai's answer prompts for every training claim (the extractive generator, so
# no language model runs), the gold answers from the labels, and LoRA on Gemma 3 270M (30 steps of 8 answers, the
# answers' openings weighted 8 times).
cf run "$root/packages/nodes/graphs/verifai-extractive.citeflow.json" --questions "$data/claims_train.jsonl" --to answer --runs "$work/runs-sft" --store "$work/store" --json >/dev/null
cf export --runs "$work/runs-sft" --format sft --labels "$data/claims_train.jsonl" --corpus "$data/corpus.jsonl" --out "$work/export-sft" --split 1
cf train lm --data "$work/export-sft" --out "$root/models/citeflow/lm-gemma3-270m-scifact" --heldout "$root/bench/scifact-heldout.json" --claims "$data/claims_train.jsonl" --max-length 4096 --epochs 1 --max-steps 30 --batch-size 8 --lr 5e-4 --opening-weight 8 --seed 13 --threads 2 --data-licence "$licence"
# arXivBot's claims adapter: claims.extract's prompts for the first 200 training claims outside the held-out and
# dev splits (Gemma 3 270M runs each, so the call is traced; the export pairs it with the claim's rationale
# sentences), then LoRA on those rows alone: the empty lists capped at a fifth, 28 steps of 8 (two epochs), the
# openings weighted 8 times (the list's first token, `":[{"` against `":`, decides whether it is empty).
node -e '
  const fs = require("fs");
  const split = (f, k) => new Set(JSON.parse(fs.readFileSync(f, "utf8"))[k]);
  const held = split(process.argv[2], "heldout_ids"), dev = split(process.argv[3], "dev_ids");
  const rows = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  console.log(rows.filter((c) => !held.has(c.id) && !dev.has(c.id)).slice(0, 200).map((c) => JSON.stringify({ id: String(c.id), claim: c.claim })).join("\n"));
' "$data/claims_train.jsonl" "$root/bench/scifact-heldout.json" "$root/bench/scifact-dev.json" > "$work/claims-200.jsonl"
cf run "$root/packages/nodes/graphs/arxivbot-claims.citeflow.json" --questions "$work/claims-200.jsonl" --runs "$work/runs-claims" --store "$work/store" --json >/dev/null
cf export --runs "$work/runs-claims" --format sft --labels "$data/claims_train.jsonl" --corpus "$data/corpus.jsonl" --out "$work/export-claims" --split 1
cf train lm --data "$work/export-claims" --out "$root/models/citeflow/lm-gemma3-270m-scifact-claims" --heldout "$root/bench/scifact-heldout.json" --claims "$data/claims_train.jsonl" --max-length 2048 --epochs 2 --max-steps 28 --batch-size 8 --lr 5e-4 --refusal-share 0.2 --seed 13 --threads 2 --data-licence "$licence"
# OpenScholar's judge adapter: verify.llm's calls on the training claims with evidence outside the held-out and dev
# splits (`eval scifact --judge llm --binary` traces them; the base judges, so no adapter shapes the prompts), and on
# the same claims with their polarity flipped by `citeflow train nli`'s rules, where one applies (the evidence's labels
# swapped: nli_augment.py flip-claims); both exported with their labels (true when the evidence supports the claim),
# with the first 30 held-out claims' rows, which train lm refuses and scores (the card's held-out table); then LoRA on
# those rows alone: one epoch, 8 a step, the answer's deciding token weighted 8 times.
# The judge's training claims (with evidence, outside both splits) and the held-out claims, one file each.
node -e '
  const fs = require("fs");
  const split = (f, k) => new Set(JSON.parse(fs.readFileSync(f, "utf8"))[k]);
  const held = split(process.argv[2], "heldout_ids"), dev = split(process.argv[3], "dev_ids");
  const rows = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => [l, JSON.parse(l)]);
  const write = (f, keep) => fs.writeFileSync(f, rows.filter(([, c]) => keep(c)).map(([l]) => l).join("\n") + "\n");
  write(process.argv[4], (c) => !held.has(c.id) && !dev.has(c.id) && Object.keys(c.evidence).length > 0);
  write(process.argv[5], (c) => held.has(c.id));
' "$data/claims_train.jsonl" "$root/bench/scifact-heldout.json" "$root/bench/scifact-dev.json" "$work/claims-judge.jsonl" "$work/claims-judge-heldout.jsonl"
python3 "$root/packages/datasets/python/nli_augment.py" flip-claims "$work/claims-judge.jsonl" "$work/claims-judge-flipped.jsonl"
mkdir -p "$work/export-judge-all"
: > "$work/export-judge-all/train.jsonl"
for part in judge judge-flipped judge-heldout; do
  limit=(); [ "$part" = judge-heldout ] && limit=(--limit 30)
  cf eval scifact --claims "$work/claims-$part.jsonl" "${limit[@]}" --store "$work/store" --judge llm --binary --judge-model gemma-3-270m-q4_k_m --runs "$work/runs-$part" >/dev/null
  cf export --runs "$work/runs-$part" --format sft --labels "$work/claims-$part.jsonl" --corpus "$data/corpus.jsonl" --out "$work/export-$part" --split 1
  cat "$work/export-$part/train.jsonl" >> "$work/export-judge-all/train.jsonl"
done
cf train lm --data "$work/export-judge-all" --out "$root/models/citeflow/lm-gemma3-270m-scifact-judge" --heldout "$root/bench/scifact-heldout.json" --claims "$data/claims_train.jsonl" --max-length 2048 --epochs 1 --batch-size 8 --lr 5e-4 --seed 13 --threads 2 --data-licence "$licence"
