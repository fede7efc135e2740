"""What `citeflow train` reads: the export's rows, the split files, other labelled sets (--add) and an unlabelled
corpus (--corpus), each checked, with bad lines named by file and line."""
from __future__ import annotations

import json
import random
from pathlib import Path

from encoder_report import LABELS
from train_errors import InputError

FIELDS = {"nli": ("premise", "hypothesis", "label"), "rerank": ("query", "positive", "negative")}


def jsonl_objects(files: list[Path], problems: list[str]):
    """(file, line number, parsed value) for each non-blank line of the export's files; a line that is not JSON goes to problems."""
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                yield f, n, json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{f}:{n}: not JSON ({e.msg})")


def read_rows(folder: Path, task: str) -> tuple[list[dict], list[str]]:
    """train.jsonl (and validation.jsonl: training uses every exported row; the held-out claims are the test set)."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such export folder (make one with `citeflow export --format {task} --out {folder}`)")
    files = [folder / f for f in ("train.jsonl", "validation.jsonl") if (folder / f).is_file()]
    if not files:
        raise InputError(f"{folder}: no train.jsonl (make one with `citeflow export --format {task} --out {folder}`)")
    rows, problems = [], []
    need = FIELDS[task]
    for f, n, row in jsonl_objects(files, problems):
        if not isinstance(row, dict) or not all(k in row for k in need):
            other = next((t for t, keys in FIELDS.items() if isinstance(row, dict) and all(k in row for k in keys)), None)
            if other is None and isinstance(row, dict) and ("messages" in row or "prompt" in row):
                other = "sft/dpo/kto"
            hint = f" (these are {other} rows: export with --format {task})" if other else ""
            problems.append(f"{f}:{n}: not a {task} row: needs {', '.join(need)}{hint}")
            continue
        if not all(isinstance(row[k], str) and row[k].strip() for k in need[:2] + ((need[2],) if task == "rerank" else ())):
            problems.append(f"{f}:{n}: empty text in {', '.join(need)}")
            continue
        if task == "nli" and row["label"] not in LABELS:
            problems.append(f"{f}:{n}: label {row['label']!r} is not one of {', '.join(LABELS)}")
            continue
        rows.append(row)
    if not rows:
        detail = "".join(f"\n  {p}" for p in problems[:5])
        raise InputError(f"{folder}: no usable {task} rows in {', '.join(f.name for f in files)}{detail}")
    return rows, problems


def split_ids(path: str) -> set:
    """The claim ids a split file names (`heldout_ids`, `dev_ids`)."""
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    ids = set(d.get("heldout_ids", [])) | set(d.get("dev_ids", []))
    if not ids:
        raise InputError(f"{path}: no heldout_ids or dev_ids in it")
    return ids


def claims_of(args, ids: set) -> tuple[set[str], set[str]]:
    """The texts of these claims, and the ids of the abstracts they cite (left out of --corpus)."""
    if not ids:
        return set(), set()
    if not args.claims:
        raise InputError("--heldout and --leave-out need --claims (the claims file the ids point into)")
    texts, docs = set(), set()
    for line in Path(args.claims).read_text(encoding="utf-8").splitlines():
        if line.strip():
            c = json.loads(line)
            if c["id"] in ids:
                texts.add(c["claim"].strip())
                docs |= {str(d) for d in c.get("cited_doc_ids", [])} | set(map(str, c.get("evidence", {})))
    return texts, docs


def heldout_claims(args) -> tuple[set[str], set[str]]:
    """The held-out claims' texts, and the ids of the abstracts they cite (left out of --corpus)."""
    return claims_of(args, set(json.loads(Path(args.heldout).read_text(encoding="utf-8"))["heldout_ids"]) if args.heldout else set())


def left_out_claims(args) -> tuple[set[str], set[str]]:
    """--leave-out: claims neither trained on nor scored (a dev split a recipe or a calibration is chosen on), and their abstracts."""
    return claims_of(args, set().union(*(split_ids(p) for p in args.leave_out)) if args.leave_out else set())


def added_rows(args) -> tuple[list[tuple[str, str, str]], list[dict], list[str]]:
    """--add <import folder or its .jsonl>[=weight]: labelled pairs from other sets (`citeflow datasets import`), each set's rows
    taken `weight` times (a fraction: that share, drawn with the seed); never a test split. The (claim, evidence, label) triples,
    what the card says of each source, and the rows that could not be read."""
    triples, sources, problems = [], [], []
    for spec in args.add or []:
        path, _, w = spec.rpartition("=") if "=" in spec else (spec, "", "1")
        try:
            weight = float(w)
        except ValueError:
            raise InputError(f"--add {spec}: the weight after = must be a number") from None
        if not weight > 0:
            raise InputError(f"--add {spec}: the weight must be above 0")
        p = Path(path)
        file = p / "train.jsonl" if p.is_dir() else p
        if file.name.startswith("test"):
            raise InputError(f"--add {spec}: {file.name} is the set's test split, kept for measurement; train on train.jsonl (or dev.jsonl where a set has no train split)")
        if not file.is_file():
            raise InputError(f"--add {spec}: no {file} (make one with `citeflow datasets import <kind> <set> --out {p}`)")
        manifest = file.parent / "import.json"
        meta = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
        rows = []
        for f, n, row in jsonl_objects([file], problems):
            if not isinstance(row, dict) or not all(isinstance(row.get(k), str) and row[k].strip() for k in ("premise", "hypothesis")) or row.get("label") not in LABELS:
                problems.append(f"{f}:{n}: not an NLI row with premise, hypothesis and a label in {', '.join(LABELS)}")
                continue
            rows.append((row["hypothesis"], row["premise"], row["label"]))
        if not rows:
            raise InputError(f"--add {spec}: no usable NLI row in {file}")
        rng = random.Random(f"{args.seed}:{file}")
        whole, part = int(weight), weight - int(weight)
        taken = rows * whole + rng.sample(rows, round(part * len(rows)))
        triples += taken
        sources.append({"source": meta.get("source", file.parent.name), "origin": meta.get("origin", "not stated (no import.json beside the rows)"),
                        "licence": meta.get("licence", "not stated (no import.json beside the rows)"), "file": str(file), "rows": len(rows),
                        "weight": weight, "used": len(taken), "labels": {l: sum(1 for t in taken if t[2] == l) for l in LABELS}})
    return triples, sources, problems


def read_corpus(path: Path, leave_out: set[str]) -> tuple[list[list[str]], int]:
    """The abstracts of a BEIR/SciFact-style corpus (one JSON object a line with `abstract`: a list of
    sentences, or `text`), less those in leave_out; and how many were left out."""
    if not path.is_file():
        raise InputError(f"--corpus {path}: no such file")
    abstracts, skipped = [], 0
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{n}: not JSON ({e.msg})") from None
        body = doc.get("abstract", doc.get("text")) if isinstance(doc, dict) else None
        if isinstance(body, str):
            body = [s for s in body.replace("? ", "?\n").replace(". ", ".\n").split("\n") if s.strip()]
        if not isinstance(body, list) or not all(isinstance(s, str) for s in body):
            raise InputError(f"{path}:{n}: no `abstract` (a list of sentences) or `text`")
        if str(doc.get("doc_id", doc.get("_id", ""))) in leave_out:
            skipped += 1
            continue
        abstracts.append(body)
    if not abstracts:
        raise InputError(f"--corpus {path}: no abstracts left ({skipped} are cited by held-out claims)")
    return abstracts, skipped
