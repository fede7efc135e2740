"""Trains Citeflow's NLI model or reranker from `citeflow export` output (run by `citeflow train`).

    python train/citeflow_train.py nli|rerank --data <export folder> --base <HF model folder> --out <model folder>
        [--heldout bench/scifact-heldout.json --claims claims_train.jsonl] [--epochs N] [--seed S] [--threads T]
        [--max-steps N] [--batch-size B] [--lr X] [--no-augment] [--corpus <jsonl> [--corpus-sentences N]]
        [--add <import folder>[=weight] … [--curriculum]] [--leave-out <split.json>]
        [--device auto|cpu|cuda] [--gpus N | --processes N] [--nodes M --node-rank R --master HOST:PORT]
        [--bf16 | --fp32] [--gradient-checkpointing] [--command "…"] [--commit SHA]

- nli: a 3-label cross-encoder (SUPPORT / NO_EVIDENCE / CONTRADICT, the claim first) on
  `export --format nli` rows, plus the augmentations in nli_augment.py (unless --no-augment), plus
  with --corpus pairs made from N sentences of unlabelled abstracts (nli_augment.corpus_pairs; the
  abstracts the held-out claims cite are left out), plus other labelled sets (--add), mixed in or, with
  --curriculum, first (curriculum.py).
- rerank: a sentence encoder on `export --format rerank` triplets, trained by sentence-transformers'
  trainer with MultipleNegativesRankingLoss (each query against its positive, its hard negative and
  the other passages of the batch). The reranker's score for (query, passage) is the cosine of their
  mean-pooled embeddings, fused with the retriever's lexical score (`--lexical-weight`, written into
  the model's config as `citeflow_reranker`). A cross-encoder trained from these few hundred queries
  ranked near chance (docs/training.md); the encoder starts from a model trained for exactly this.

The base is any Hugging Face text encoder (BERT, RoBERTa, DeBERTa-v2/v3, ModernBERT, XLM-R, …; all-MiniLM-L6-v2
by default). NLI training is transformers' Trainer on a mean-pooled classifier of the base's architecture
(pooled_encoder.py), on the CPU or CUDA, one process or several (devices.py). Checkpoints go to
<out>.work/checkpoints: a killed run resumes from the last one when started again with the same
arguments. The model is written to <out>.work/model, exported to ONNX by PyTorch's exporter (fp32, checked
against PyTorch) and quantized to int8 (onnx_export.py) in the Hugging Face layout transformers.js loads,
given a card (README.md) and SHA256SUMS, and only then renamed to <out>: <out> is either the previous
model or the whole new one.

Rows whose claim or query is one of the held-out claims (--heldout, --claims) are never trained
on: they are the test set. The card reports the int8 model's scores on them (NLI: 3-way accuracy,
SUPPORT vs CONTRADICT on gold rationales, each premise against itself; rerank: how often the
positive passage outscores each hard negative; nDCG after reranking is `eval retrieval --rerank`'s).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "scripts"))

import devices  # noqa: E402
from curriculum import curriculum_order  # noqa: E402
from encoder_report import LABELS, card, flop_limit, heldout_scores  # noqa: E402
from nli_augment import augment, corpus_pairs  # noqa: E402
from onnx_export import ExportError, input_names, write_model  # noqa: E402
from pooled_encoder import uses_token_types  # noqa: E402
from train_errors import InputError  # noqa: E402
from train_inputs import added_rows, heldout_claims, left_out_claims, read_corpus, read_rows  # noqa: E402
from trainer_common import announce, last_checkpoint, progress_callback, say, sha256, swap_in, trainer_args, work_dirs  # noqa: E402

def train_encoder(args, triplets, counts, rows, refused, problems, test) -> dict:
    """The reranker: all-MiniLM-style sentence encoder, MultipleNegativesRankingLoss on (query, positive, hard negative)."""
    import torch
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.training_args import BatchSamplers

    model = SentenceTransformer(str(args.base), device=args.device)
    model.max_seq_length = args.max_length
    data = Dataset.from_dict({"anchor": [t[0] for t in triplets], "positive": [t[1] for t in triplets], "negative": [t[2] for t in triplets]})
    work, ckpt = work_dirs(args)
    total_steps = announce(args, len(data), f"{len(data)} triplets", counts, refused, problems)
    targs = trainer_args(SentenceTransformerTrainingArguments, args, ckpt, total_steps, log_every=10, save_every=20, batch_sampler=BatchSamplers.NO_DUPLICATES)
    trainer = SentenceTransformerTrainer(model=model, args=targs, train_dataset=data, loss=MultipleNegativesRankingLoss(model), callbacks=[progress_callback()(args)])
    t0 = time.time()
    trainer.train(resume_from_checkpoint=last_checkpoint(ckpt))
    seconds = time.time() - t0
    tok = model.tokenizer
    sample = triplets[:256]
    lengths = [min(args.max_length, len(tok(t)["input_ids"])) for trip in sample for t in trip]
    limit = flop_limit(model, lengths, args)
    model_dir = work / "model"
    if devices.is_main():
        shutil.rmtree(model_dir, ignore_errors=True)
        model.save(str(model_dir))
    steps = total_steps
    encoder = model[0].auto_model
    probe = tok([t for trip in triplets[:6] for t in trip], padding=True, truncation=True, max_length=args.max_length, return_tensors="pt")
    return {"export": (encoder, "last_hidden_state", input_names(uses_token_types(encoder.config)), probe),
            "rows": len(rows), "pairs": len(data), "counts": counts, "refused_heldout": refused, "bad_rows": len(problems), "steps": steps,
            "seconds": seconds, "pairs_per_second": len(data) * args.epochs / seconds if args.max_steps <= 0 else steps * args.batch_size * args.processes / seconds,
            "model_dir": model_dir, "work": work, "torch": torch.__version__, "test": test, **limit, "flop_limit_pairs_per_second": limit["flop_limit_pairs_per_second"] / 3}


def train(args) -> dict:
    import torch
    from transformers import AutoTokenizer, DataCollatorWithPadding, Trainer, TrainingArguments, set_seed

    from pooled_encoder import check_encoder, load_classifier

    torch.set_num_threads(args.threads)
    set_seed(args.seed)
    base = Path(args.base)
    check_encoder(base)

    rows, problems = read_rows(Path(args.data), args.task)
    held, held_docs = heldout_claims(args)
    dev, dev_docs = left_out_claims(args)
    key = "hypothesis" if args.task == "nli" else "query"
    test = [r for r in rows if r[key].strip() in held]
    refused = len(test)
    left_out = sum(1 for r in rows if r[key].strip() in dev and r[key].strip() not in held)
    rows = [r for r in rows if r[key].strip() not in held and r[key].strip() not in dev]
    if not rows:
        raise InputError(f"{args.data}: every row is about a held-out claim ({refused}); nothing to train on")

    counts: dict = {}
    if args.task == "nli":
        triples = [(r["hypothesis"], r["premise"], r["label"]) for r in rows]
        if args.augment:
            triples, counts = augment(triples, args.seed)
        else:
            counts = {"gold": len(triples)}
        if args.corpus:
            abstracts, skipped = read_corpus(Path(args.corpus), held_docs | dev_docs)
            extra, extra_counts = corpus_pairs(abstracts, args.corpus_sentences, args.seed)
            triples += extra
            counts |= extra_counts | {"corpus_abstracts": len(abstracts), "corpus_abstracts_left_out": skipped}
        added, sources, add_problems = added_rows(args)
        problems += add_problems
        for s in sources:
            counts[f"added_{s['source']}"] = s["used"]
        if args.curriculum:
            if not added:
                raise InputError("--curriculum: give the sets to train on first with --add")
            counts["curriculum"] = f"the added sets first ({len(added)} pairs, one pass), then the export's {len(triples)} pairs for {args.epochs} epoch(s)"
            triples = added + triples
        else:
            triples += added
            if args.corpus or added:
                random.Random(args.seed).shuffle(triples)
        pairs = [(h, p, LABELS.index(label)) for h, p, label in triples]
        counts["left_out_dev_rows"] = left_out
        labels = {"num_labels": 3, "id2label": dict(enumerate(LABELS)), "label2id": {l: i for i, l in enumerate(LABELS)}}
    else:
        triplets = sorted({(r["query"], r["positive"], r["negative"]) for r in rows})
        random.Random(args.seed).shuffle(triplets)
        counts = {"triplets": len(triplets), "queries": len({t[0] for t in triplets})}
        return train_encoder(args, triplets, counts, rows, refused, problems, test)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = load_classifier(base, labels)
    token_types = uses_token_types(model.config)
    enc = tokenizer([p[0] for p in pairs], [p[1] for p in pairs], truncation=True, max_length=args.max_length, return_token_type_ids=token_types)
    # A list of examples (transformers' Trainer takes any sequence; Hugging Face datasets gives the same batches, in the same order).
    data = [{**{k: v[i] for k, v in enc.items()}, "labels": p[2]} for i, p in enumerate(pairs)]
    work, ckpt = work_dirs(args)
    run, sampling = args, "group_by_length"
    if args.curriculum:
        # The whole curriculum is one pass over examples laid out in its order (curriculum.py).
        order = curriculum_order(len(added), len(data), [len(x["input_ids"]) for x in data], args.epochs, args.batch_size * args.processes, args.seed)
        data, run, sampling = [data[i] for i in order], argparse.Namespace(**{**vars(args), "epochs": 1}), "sequential"
    total_steps = announce(run, len(data), f"{len(pairs)} pairs from {len(rows)} rows", counts, refused, problems)

    targs = trainer_args(TrainingArguments, run, ckpt, total_steps, log_every=25, save_every=200, weight_decay=0.01, train_sampling_strategy=sampling)
    trainer = Trainer(model=model, args=targs, train_dataset=data, data_collator=DataCollatorWithPadding(tokenizer), callbacks=[progress_callback()(args)])
    t0 = time.time()
    trainer.train(resume_from_checkpoint=last_checkpoint(ckpt))
    seconds = time.time() - t0
    limit = flop_limit(model, [len(x["input_ids"]) for x in data[:256]], args)

    model_dir = work / "model"
    if devices.is_main():
        shutil.rmtree(model_dir, ignore_errors=True)
        model.save_pretrained(str(model_dir), safe_serialization=True)
        tokenizer.save_pretrained(str(model_dir))
    probe = tokenizer([p[0] for p in pairs[:16]], [p[1] for p in pairs[:16]], padding=True, truncation=True, max_length=args.max_length, return_token_type_ids=token_types, return_tensors="pt")
    return {"export": (model, "logits", input_names(token_types), probe),
            "rows": len(rows), "pairs": len(pairs), "counts": counts, "refused_heldout": refused, "bad_rows": len(problems), "steps": total_steps,
            "seconds": seconds, "pairs_per_second": len(data) * run.epochs / seconds if args.max_steps <= 0 else total_steps * args.batch_size * args.processes / seconds,
            "model_dir": model_dir, "work": work, "torch": torch.__version__, "test": test, "sources": sources, **limit}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("task", choices=["nli", "rerank", "lm"])
    p.add_argument("--data", required=True)
    p.add_argument("--base", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--heldout")
    p.add_argument("--claims")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=4e-5)
    p.add_argument("--max-length", type=int, default=256)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--no-augment", dest="augment", action="store_false")
    p.add_argument("--leave-out", action="append", default=[])
    p.add_argument("--add", action="append", default=[])
    p.add_argument("--curriculum", action="store_true")
    p.add_argument("--corpus")
    p.add_argument("--corpus-sentences", type=int, default=4000)
    p.add_argument("--bf16", action="store_true")
    p.add_argument("--fp32", action="store_true")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--gpus", type=int, default=0)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--node-rank", type=int, default=0)
    p.add_argument("--master", default="")
    p.add_argument("--gradient-checkpointing", action="store_true")
    p.add_argument("--gguf", default="")
    p.add_argument("--qlora", action="store_true")
    p.add_argument("--lexical-weight", type=float, default=0.5)
    p.add_argument("--lora-rank", type=int, default=16)
    p.add_argument("--lora-alpha", type=float, default=32)
    p.add_argument("--refusal-share", type=float, default=0.2)
    p.add_argument("--opening-weight", type=float, default=8.0)
    p.add_argument("--command", default=" ".join(sys.argv))
    p.add_argument("--commit", default="unknown")
    p.add_argument("--base-name", default=None)
    p.add_argument("--base-licence", default="Apache-2.0")
    p.add_argument("--data-licence", default="as the export's dataset card says")
    args = p.parse_args()
    args.base_name = args.base_name or Path(args.base).name
    args.data_name = Path(args.data).name
    args.heldout_name = Path(args.heldout).name if args.heldout else "none"
    if args.corpus and args.task != "nli":
        say("citeflow train: --corpus is for nli (pairs from unlabelled abstracts)")
        return 2

    # Ctrl-C / SIGTERM: stop between steps; the last checkpoint stays for a resume.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        launched = devices.launch(args, Path(__file__).resolve())
        if launched is not None:
            return launched
        devices.choose(args)
        if args.task == "lm":
            import lm_train

            return lm_train.main(args, heldout_claims(args)[0])
        info = train(args)
        if not devices.is_main():
            return 0
        out = Path(args.out).resolve()
        stage = info["work"] / "out"
        shutil.rmtree(stage, ignore_errors=True)
        info["onnx_gap"] = write_model(*info.pop("export"), info["model_dir"], stage)
        say(f"  onnx: the fp32 graph's outputs are within {info['onnx_gap']:.1e} of PyTorch's")
        cfg = json.loads((stage / "config.json").read_text())
        if args.task == "nli":
            cfg["id2label"] = {str(i): l for i, l in enumerate(LABELS)}
            cfg["label2id"] = {l: i for i, l in enumerate(LABELS)}
        else:
            # How the product scores with it (packages/models/src/transformers.ts, loadReranker).
            cfg["citeflow_reranker"] = {"kind": "encoder", "pooling": "mean", "lexicalWeight": args.lexical_weight}
        (stage / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
        # The product truncates where training did: the same length in, the same model out.
        tcfg_path = stage / "tokenizer_config.json"
        tcfg = json.loads(tcfg_path.read_text())
        tcfg["model_max_length"] = args.max_length
        tcfg_path.write_text(json.dumps(tcfg, indent=2, sort_keys=True) + "\n")
        for junk in ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json", "1_Pooling"):
            target = stage / junk
            shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
        scores = heldout_scores(args.task, stage, info["test"])
        if scores:
            say("held-out: " + "; ".join(f"{k}: {v}" for k, v in scores.items()))
        files = {str(f.relative_to(stage)): sha256(f) for f in sorted(stage.rglob("*")) if f.is_file()}
        (stage / "README.md").write_text(card(args, info, files, scores), encoding="utf-8")
        (stage / "SHA256SUMS").write_text("".join(f"{h}  {f}\n" for f, h in sorted(files.items())), encoding="utf-8")
        (stage / "training.json").write_text(json.dumps({k: v for k, v in info.items() if k not in ("model_dir", "work", "test")} | {"heldout": scores, "task": args.task, "seed": args.seed, "threads": args.threads, "epochs": args.epochs, "device": args.device, "hardware": args.hardware, "processes": args.processes, "bf16": args.bf16, "command": args.command, "commit": args.commit}, indent=2) + "\n")
        swap_in(stage, out, info["work"])
        print(json.dumps({"out": str(out), "seconds": info["seconds"], "pairs": info["pairs"], "pairs_per_second": info["pairs_per_second"], "flop_limit_pairs_per_second": info["flop_limit_pairs_per_second"], "device": args.hardware, "onnx_gap": info["onnx_gap"], "heldout": scores}))
        return 0
    except InputError as e:
        say(f"citeflow train: {e}")
        return 2
    except ExportError as e:
        say(f"citeflow train: {e}")
        return 1
    except KeyboardInterrupt:
        say("citeflow train: stopped; the last checkpoint is kept — the same command resumes from it")
        return 130
    except OSError as e:
        say(f"citeflow train: {e.strerror or e} ({e.filename or 'writing the model'}); the previous model, if any, is untouched")
        return 1


if __name__ == "__main__":
    sys.exit(main())
