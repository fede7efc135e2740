"""How far the shipped NLI and reranker recipes go with more epochs, other rates and other data mixes,
measured on a dev split of SciFact training claims (never the held-out split).

    python bench/encoders_sweep_dev.py candidates --runs <run store> --out dev-candidates.json.gz
    python bench/encoders_sweep_dev.py sweep --base <all-MiniLM-L6-v2 folder> --nli <export-nli> \
        --rerank <export-rerank> --candidates dev-candidates.json.gz [--budget-s 420] [nli|rerank ...]

The run store and the exports are those of docs/training.md's steps 1 and 2 (the shipped models'
own). Both dev splits are the ones earlier dev figures used, so they compare:
- NLI: 100 training claims with evidence outside bench/scifact-heldout.json, drawn with seed 7
  (as bench/nli_judge_dev.py); the score is SUPPORT vs CONTRADICT accuracy on their 206 rationale
  sentences, and each of 300 corpus sentences against itself → SUPPORT.
- reranker: 100 judged training claims outside the held-out split, shuffled with seed 7; nDCG@10
  after reranking their stored hybrid top-100 (the encoder's cosine fused with BM25, each divided by
  its top, at the shipped lexical weight 0.5; and the encoder alone).
Rows about held-out or dev claims are never trained on, and abstracts they cite are left out of the
corpus pairs. Each recipe is scored after every epoch (the rate decays linearly over all its epochs).
Runs on a CPU (slowly) or a GPU (bf16); bench/README.md has the figures.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "datasets" / "python"))
sys.path.insert(0, str(ROOT / "bench"))

from nli_judge_dev import dev_split  # noqa: E402
LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"]


def read_text(path: Path) -> str:
    return gzip.open(path, "rt", encoding="utf-8").read() if path.suffix == ".gz" else path.read_text(encoding="utf-8")


def jsonl(path: Path) -> list[dict]:
    return [json.loads(l) for l in read_text(path).splitlines() if l.strip()]


def export_rows(folder: Path) -> list[dict]:
    files = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.jsonl.gz"))
    return [r for f in files for r in jsonl(f)]


CLAIMS = jsonl(ROOT / "data" / "scifact" / "claims_train.jsonl")
HELD = set(json.loads((ROOT / "bench" / "scifact-heldout.json").read_text())["heldout_ids"])
QRELS: dict[str, dict[str, int]] = {}
for n, line in enumerate((ROOT / "data" / "scifact" / "qrels_train.tsv").read_text().splitlines()):
    if n and line.strip():
        q, d, s = line.split("\t")
        QRELS.setdefault(q, {})[d] = int(s)


def candidates(args) -> None:
    """The stored hybrid top-100 of each judged non-held-out claim's run, and the 100-claim dev split."""
    store = Path(args.runs)

    def blob(h: str):
        return json.loads((store / "blobs" / h[:2] / f"{h}.json").read_text())

    items = []
    for f in sorted(glob.glob(str(store / "runs" / "*.jsonl"))):
        q = ps = None
        for line in open(f, encoding="utf-8"):
            e = json.loads(line)
            if e["type"] == "node-end" and e["nodeId"] == "question":
                q = blob(e["outputHashes"]["question"])
            if e["type"] == "node-end" and e["nodeId"] == "retrieve":
                ps = blob(e["outputHashes"]["passages"])
        if q and ps and str(q["id"]) not in {str(h) for h in HELD} and str(q["id"]) in QRELS:
            items.append({"id": str(q["id"]), "text": q["text"], "cands": [{"doc": p["id"].split("#")[0], "text": (p["title"] + "\n" + p["text"]) if p.get("title") else p["text"], "bm25": p["scores"].get("bm25", 0.0)} for p in ps]})
    random.Random(7).shuffle(items)
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        json.dump(items[:100], out)
    print(f"{len(items)} judged claims outside the held-out split; the first 100 written to {args.out}")


def ndcg10(docs: list[str], rels: dict[str, int]) -> float:
    seen: list[str] = []
    for d in docs:
        if d not in seen:
            seen.append(d)
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(seen[:10]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:10]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def sweep(args) -> None:
    import torch
    from transformers import AutoTokenizer, TrainerCallback

    from nli_augment import augment, corpus_pairs

    gpu = torch.cuda.is_available()
    t_start = time.time()
    say = lambda m: print(f"[{time.time() - t_start:5.0f} s] {m}", flush=True)  # noqa: E731
    say(f"device: {torch.cuda.get_device_name() if gpu else 'cpu'}; torch {torch.__version__}")
    budget_left = lambda: args.budget_s - (time.time() - t_start)  # noqa: E731
    tok = AutoTokenizer.from_pretrained(args.base)

    if "nli" in args.parts:
        from datasets import Dataset
        from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

        from pooled_encoder import load_classifier

        dev = dev_split(CLAIMS, HELD)
        corpus = [json.loads(l) for l in read_text(ROOT / "data" / "scifact" / "corpus.jsonl").splitlines() if l.strip()]
        abstracts = {str(d["doc_id"]): d["abstract"] for d in corpus}
        shut = {c["claim"].strip() for c in CLAIMS if c["id"] in HELD or c["id"] in dev}
        shut_docs = {str(d) for c in CLAIMS if c["id"] in HELD or c["id"] in dev for d in list(c.get("cited_doc_ids", [])) + list(c["evidence"])}
        gold = [(r["hypothesis"], r["premise"], r["label"]) for r in export_rows(Path(args.nli)) if r["hypothesis"].strip() not in shut]
        test = [(c["claim"], abstracts[d][i], 0 if s["label"] == "SUPPORT" else 2) for c in CLAIMS if c["id"] in dev for d, sets in c["evidence"].items() for s in sets for i in s["sentences"]]
        selfs = random.Random(3).sample([s for d, a in abstracts.items() if d not in shut_docs for s in a if 6 <= len(s.split()) <= 60], 300)
        free = [a for d, a in abstracts.items() if d not in shut_docs]
        majority = max(sum(t[2] == 0 for t in test), sum(t[2] == 2 for t in test)) / len(test)
        say(f"nli: {len(gold)} gold rows; dev {len(test)} rationales (majority {majority:.3f}); {len(free)} abstracts for corpus pairs")

        def nli_scores(model) -> tuple[float, float]:
            model.eval()
            dev_device = next(model.parameters()).device

            def predict(pairs):
                out = []
                for i in range(0, len(pairs), 64):
                    b = pairs[i : i + 64]
                    enc = tok([p[0] for p in b], [p[1] for p in b], truncation=True, max_length=128, padding=True, return_tensors="pt").to(dev_device)
                    with torch.no_grad():
                        out += model(**enc).logits.float().cpu().tolist()
                return out

            sc = sum((0 if l[0] >= l[2] else 2) == t[2] for l, t in zip(predict(test), test)) / len(test)
            me = sum(max(range(3), key=lambda k: l[k]) == 0 for l in predict([(s, s) for s in selfs])) / len(selfs)
            model.train()
            return sc, me

        fields = TrainingArguments.__dataclass_fields__  # the shipped trainer's batching, named as this transformers names it
        by_length = {"train_sampling_strategy": "group_by_length"} if "train_sampling_strategy" in fields else {"group_by_length": True}

        def recipe(name: str, stages: list[tuple[list, float, int]], seed: int = 13) -> None:
            """stages: (triples, lr, epochs), trained one after another on the same model."""
            if budget_left() < 60:
                say(f"nli {name}: skipped, the budget is spent")
                return
            torch.manual_seed(seed)
            model = load_classifier(Path(args.base), {"num_labels": 3})
            for s, (triples, lr, epochs) in enumerate(stages):
                enc = tok([t[0] for t in triples], [t[1] for t in triples], truncation=True, max_length=128)
                data = Dataset.from_dict({**enc, "labels": [LABELS.index(t[2]) for t in triples]})

                class Score(TrainerCallback):
                    def on_epoch_end(self, a, state, control, model=None, **kw):
                        sc, me = nli_scores(model)
                        say(f"nli {name} stage {s + 1} epoch {round(state.epoch)}: S vs C {sc:.3f}, self→SUPPORT {me:.3f} ({len(triples)} pairs, lr {lr})")
                        if budget_left() < 30:
                            control.should_training_stop = True

                targs = TrainingArguments(output_dir=f"/tmp/sweep-{name}", num_train_epochs=epochs, per_device_train_batch_size=32, learning_rate=lr, warmup_steps=0.1,
                                          weight_decay=0.01, seed=seed, data_seed=seed, bf16=gpu, use_cpu=not gpu, save_strategy="no", report_to="none", disable_tqdm=True,
                                          logging_steps=10_000, **by_length)
                Trainer(model=model, args=targs, train_dataset=data, data_collator=DataCollatorWithPadding(tok), callbacks=[Score()]).train()

        if args.limit:
            gold, test, selfs = gold[: args.limit], test[: args.limit], selfs[: args.limit]
        aug, _ = augment(gold, 13)
        c4, _ = corpus_pairs(free, args.limit or 4000, 13)
        c20, _ = corpus_pairs(free, args.limit or 20000, 13)
        sc_gold = [t for t in aug if t[2] != "NO_EVIDENCE"]
        mix = lambda *parts: random.Random(13).sample([t for p in parts for t in p], sum(map(len, parts)))  # noqa: E731
        recipe("shipped", [(mix(aug, c4), 3e-5, 4)])
        recipe("lr1e-4", [(mix(aug, c4), 1e-4, 4)])
        recipe("curriculum", [(c20, 5e-5, 1), (aug, 3e-5, 3)])
        recipe("corpus20k", [(mix(aug, c20), 5e-5, 3)])
        recipe("sc-x3", [(mix(aug, sc_gold, sc_gold, c4), 5e-5, 4)])
        recipe("lr1e-4-seed14", [(mix(aug, c4), 1e-4, 4)], seed=14)

    if "rerank" in args.parts:
        from datasets import Dataset
        from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments, losses
        from sentence_transformers.training_args import BatchSamplers

        items = json.loads(read_text(Path(args.candidates)))
        shut = {c["claim"].strip() for c in CLAIMS if c["id"] in HELD or str(c["id"]) in {o["id"] for o in items}}
        rows = sorted({(r["query"], r["positive"], r["negative"]) for r in export_rows(Path(args.rerank)) if r["query"].strip() not in shut})
        random.Random(13).shuffle(rows)
        if args.limit:
            rows, items = rows[: args.limit], items[:3]
        hybrid = sum(ndcg10([p["doc"] for p in o["cands"]], QRELS[o["id"]]) for o in items) / len(items)
        say(f"rerank: {len(rows)} triplets; dev {len(items)} claims, hybrid alone nDCG@10 {hybrid:.3f}")

        def rerank_scores(model) -> tuple[float, float]:
            fused = alone = 0.0
            for o in items:
                e = model.encode([o["text"]] + [p["text"] for p in o["cands"]], normalize_embeddings=True, batch_size=128, convert_to_tensor=True)
                cos = (e[1:] @ e[0]).float().cpu().tolist()
                top_b, top_c = max(p["bm25"] for p in o["cands"]) or 1.0, max(cos) or 1.0
                f = [0.5 * p["bm25"] / top_b + 0.5 * c / top_c for p, c in zip(o["cands"], cos)]
                docs = [p["doc"] for p in o["cands"]]
                fused += ndcg10([docs[i] for i in sorted(range(len(docs)), key=lambda i: -f[i])], QRELS[o["id"]])
                alone += ndcg10([docs[i] for i in sorted(range(len(docs)), key=lambda i: -cos[i])], QRELS[o["id"]])
            return fused / len(items), alone / len(items)

        def recipe(name: str, lr: float, epochs: int, max_length: int = 256) -> None:
            if budget_left() < 60:
                say(f"rerank {name}: skipped, the budget is spent")
                return
            model = SentenceTransformer(args.base, device="cuda" if gpu else "cpu")
            model.max_seq_length = max_length
            if name == "shipped":
                f, a = rerank_scores(model)
                say(f"rerank base model (all-MiniLM-L6-v2 untrained): fused {f:.3f}, alone {a:.3f}")
            data = Dataset.from_dict({"anchor": [t[0] for t in rows], "positive": [t[1] for t in rows], "negative": [t[2] for t in rows]})

            class Score(TrainerCallback):
                def on_epoch_end(self, a, state, control, **kw):
                    f, al = rerank_scores(model)
                    say(f"rerank {name} epoch {round(state.epoch)}: nDCG@10 fused {f:.3f}, alone {al:.3f} (lr {lr})")
                    if budget_left() < 30:
                        control.should_training_stop = True

            targs = SentenceTransformerTrainingArguments(output_dir=f"/tmp/sweep-r-{name}", num_train_epochs=epochs, per_device_train_batch_size=32, learning_rate=lr,
                                                         warmup_steps=0.1, seed=13, bf16=gpu, use_cpu=not gpu, save_strategy="no", report_to="none",
                                                         disable_tqdm=True, logging_steps=10_000, batch_sampler=BatchSamplers.NO_DUPLICATES)
            SentenceTransformerTrainer(model=model, args=targs, train_dataset=data, loss=losses.MultipleNegativesRankingLoss(model), callbacks=[Score()]).train()

        recipe("shipped", 2e-5, 4)
        recipe("lr5e-5", 5e-5, 3)
    say("done")


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("candidates")
    c.add_argument("--runs", required=True)
    c.add_argument("--out", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("--base", required=True)
    s.add_argument("--nli", required=True)
    s.add_argument("--rerank", required=True)
    s.add_argument("--candidates", required=True)
    s.add_argument("--budget-s", type=float, default=1e9)
    s.add_argument("--limit", type=int, default=0, help="a quick check: this many training rows and dev items")
    s.add_argument("parts", nargs="*", default=["nli", "rerank"])
    args = p.parse_args()
    candidates(args) if args.cmd == "candidates" else sweep(args)


if __name__ == "__main__":
    main()
