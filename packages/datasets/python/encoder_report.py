"""What `citeflow train nli` and `citeflow train rerank` report about the model they made: its scores on
the held-out rows (the shipped int8 ONNX file, run with onnxruntime), how fast a perfect trainer would
have been on this machine, and its card."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"]


def heldout_scores(task: str, model_dir: Path, test: list[dict], batch: int = 32) -> dict | None:
    """Scores of the shipped file (onnx/model_quantized.onnx) on the held-out rows, run with onnxruntime."""
    if not test:
        return None
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(json.loads((model_dir / "tokenizer_config.json").read_text()).get("model_max_length", 256))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 1
    sess = ort.InferenceSession(str(model_dir / "onnx" / "model_quantized.onnx"), opts)
    wanted = {i.name for i in sess.get_inputs()}

    def feeds(items):
        """The model's inputs for `items` (texts or pairs), `batch` at a time, padded to each batch's longest."""
        for i in range(0, len(items), batch):
            enc = tok.encode_batch(items[i : i + batch])
            n = max(len(e.ids) for e in enc)
            pad = lambda xs: np.array([x + [0] * (n - len(x)) for x in xs], np.int64)  # noqa: E731
            feed = {"input_ids": pad([e.ids for e in enc]), "attention_mask": pad([e.attention_mask for e in enc]), "token_type_ids": pad([e.type_ids for e in enc])}
            yield {k: v for k, v in feed.items() if k in wanted}

    def logits(pairs):
        return np.concatenate([sess.run(["logits"], feed)[0] for feed in feeds(pairs)])

    if task == "nli":
        pred = logits([(r["hypothesis"], r["premise"]) for r in test]).argmax(1)
        gold = np.array([LABELS.index(r["label"]) for r in test])
        sc = [i for i, r in enumerate(test) if r["label"] != "NO_EVIDENCE"]
        sc_pred = logits([(test[i]["hypothesis"], test[i]["premise"]) for i in sc])[:, [0, 2]].argmax(1) * 2 if sc else np.array([])
        premises = sorted({r["premise"] for r in test})[:500]
        self_pred = logits([(p, p) for p in premises]).argmax(1)
        majority = max((gold[sc] == 0).mean(), (gold[sc] == 2).mean()) if sc else 0
        return {
            "held-out rows": len(test),
            "3-way accuracy": f"{(pred == gold).mean():.3f}",
            "SUPPORT vs CONTRADICT on gold rationales": f"{(sc_pred == gold[sc]).mean():.3f} on {len(sc)} (majority {majority:.3f})" if sc else "n/a",
            "a sentence against itself → SUPPORT": f"{(self_pred == 0).mean():.3f} of {len(premises)}",
        }
    def embed(texts):
        out = []
        for feed in feeds(texts):
            mask = feed["attention_mask"].astype(np.float32)
            h = sess.run(["last_hidden_state"], feed)[0]
            v = (h * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.concatenate(out)

    q, p, n = embed([r["query"] for r in test]), embed([r["positive"] for r in test]), embed([r["negative"] for r in test])
    pos, neg = (q * p).sum(1), (q * n).sum(1)
    return {"held-out triplets": len(test), "positive above hard negative (cosine)": f"{(pos > neg).mean():.3f}"}


def card(args, info: dict, files: dict[str, str], scores: dict | None) -> str:
    role = (
        "NLI (SUPPORT / NO_EVIDENCE / CONTRADICT; the claim is segment A, the evidence segment B)"
        if args.task == "nli"
        else f"reranker: a sentence encoder; (query, passage) scores the cosine of their mean-pooled embeddings, fused with the retriever's lexical score at weight {args.lexical_weight} (`citeflow_reranker` in config.json)"
    )
    base_cfg = json.loads((Path(args.base) / "config.json").read_text())
    recipe = (
        f"transformers Trainer, mean-pooled {base_cfg.get('model_type')} classifier"
        if args.task == "nli"
        else "sentence-transformers trainer, MultipleNegativesRankingLoss (in-batch and hard negatives), no-duplicates batches"
    )
    unit = "pairs" if args.task == "nli" else "triplets"
    lines = [
        f"# {Path(args.out).name}",
        "",
        f"Citeflow's {role}, trained by `citeflow train {args.task}` from Citeflow's own `citeflow export --format {args.task}` rows.",
        "",
        "| | |",
        "|---|---|",
        f"| base weights | `{args.base_name}` ({base_cfg.get('model_type')}, {base_cfg.get('num_hidden_layers')} layers, hidden {base_cfg.get('hidden_size')}); licence {args.base_licence} |",
        f"| training rows | {info['rows']} from `{args.data_name}`; {info['pairs']} training {unit}: {json.dumps(info['counts'])} |",
        f"| left out | {info['refused_heldout']} rows about held-out claims; {info['counts'].get('left_out_dev_rows', 0)} rows about the claims of {', '.join(f'`{Path(p).name}`' for p in getattr(args, 'leave_out', [])) or 'no other split'} (`--leave-out`: neither trained on nor scored); {info['bad_rows']} bad rows |",
        f"| data licence | {args.data_licence} |",
        f"| command | `{args.command}` |",
        f"| commit | {args.commit} |",
        f"| seed / threads | {args.seed} / {args.threads} |",
        f"| recipe | {recipe}, {args.epochs} epoch(s){f', max {args.max_steps} steps' if args.max_steps > 0 else ''}, batch {args.batch_size}, lr {args.lr}, warmup 10 %, max length {args.max_length}, {'bf16' if args.bf16 else 'fp32'}, torch {info['torch']} |",
        f"| device | {args.hardware}; {args.processes} process(es) |",
        f"| wall time | trained {time.strftime('%Y-%m-%d')}; {info['seconds']:.0f} s training ({info['pairs_per_second']:.1f} {unit}/s; this {'GPU' if args.device == 'cuda' else 'CPU'}'s {info['matmul_gflops']:.0f} GFLOP/s matmul{' × ' + str(args.processes) + ' processes' if args.processes > 1 else ''} bounds it at {info['flop_limit_pairs_per_second']:.1f} {unit}/s, 6 × {info['non_embedding_params'] / 1e6:.1f} M parameters × {info['mean_tokens']:.0f} tokens a sequence{'' if args.task == 'nli' else ', 3 sequences a triplet'}) |",
        "| files | `onnx/model.onnx` (fp32), `onnx/model_quantized.onnx` (int8, dynamic quantization), tokenizer, `config.json` |",
        "",
    ]
    if info.get("sources"):
        lines += ["## Other sets trained on (`--add`)", "", "| set | public origin | licence | rows | weight | used (SUPPORT / NO_EVIDENCE / CONTRADICT) |", "|---|---|---|---|---|---|"]
        lines += [f"| {s['source']} | {s['origin']} | {s['licence']} | {s['rows']} | {s['weight']} | {s['used']} ({' / '.join(str(s['labels'][l]) for l in LABELS)}) |" for s in info["sources"]]
        lines += [""]
    if scores:
        lines += ["## Held-out scores", "", f"On the fixed held-out split (`{args.heldout_name}`): claims no Citeflow model trains on.", "", "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in scores.items()]
        lines += [""]
    lines += ["## Reproducible bytes", "",
              "Training with the same rows, seed and thread count on the same CPU type gives the same weights; a different thread count or CPU "
              "can change float summation order and so the last bits; a GPU's kernels are not bit-reproducible. The fp32 ONNX file is "
              "PyTorch's export of the trained model (`torch.onnx.export`, packages/datasets/python/onnx_export.py), run beside PyTorch on "
              f"probe pairs before it is kept: its outputs are within {info['onnx_gap']:.1e} of PyTorch's (the limit is 1e-4).", "", "## SHA-256", "", "```"]
    lines += [f"{h}  {f}" for f, h in sorted(files.items())]
    lines += ["```", ""]
    return "\n".join(lines)


def matmul_gflops(dtype, device: str = "cpu") -> float:
    """This machine's rate on a square matmul (1024² on the CPU, 8192² on a GPU), now: the median of 5 runs of 10."""
    import torch

    n = 8192 if device == "cuda" else 1024
    a, b = torch.randn(n, n, dtype=dtype, device=device), torch.randn(n, n, dtype=dtype, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    a @ b
    runs = []
    for _ in range(5):
        sync()
        t = time.perf_counter()
        for _ in range(10):
            a @ b
        sync()
        runs.append((time.perf_counter() - t) / 10)
    return 2 * n**3 / sorted(runs)[2] / 1e9


def flop_limit(model, lengths: list[int], args) -> dict:
    """The pairs/s a perfect trainer would reach: this CPU's measured matmul rate (fp32, or bf16 with --bf16)
    over the training FLOPs of a pair (6 × non-embedding parameters × its tokens: forward and backward).
    `lengths`: token counts of a sample of training sequences."""
    import torch

    gflops = matmul_gflops(torch.bfloat16 if args.bf16 else torch.float32, args.device) * args.processes
    params = sum(p.numel() for n, p in model.named_parameters() if "embeddings" not in n)
    tokens = sum(lengths) / max(1, len(lengths))
    per_pair = 6 * params * tokens
    return {"matmul_gflops": gflops, "flop_limit_pairs_per_second": gflops * 1e9 / per_pair, "non_embedding_params": params, "mean_tokens": tokens}
