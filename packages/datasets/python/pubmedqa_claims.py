"""PubMedQA's expert-labelled questions as SciFact-format claims, for the judge's training and scoring.

Each yes/no question becomes a claim (the question as written: verify.llm's "true" is its "yes") with
its own abstract as the evidence: SUPPORT for "yes", CONTRADICT for "no". "maybe" questions have no
true/false answer and are left out. The abstract is the context paragraphs followed by the
conclusion (LONG_ANSWER), as the paper prints it; the conclusion is the rationale.

    pubmedqa_claims.py pqal_dev.json split.json OUT_DIR
        → OUT_DIR/corpus.jsonl (SciFact's corpus format, one abstract per PubMed id),
          OUT_DIR/claims-train.jsonl and OUT_DIR/claims-heldout.jsonl (SciFact's claims format),
          split by split.json's heldout_ids (PubMed ids that no model trains on).
"""
import json
import os
import sys


def convert(data: dict, heldout: set[str]) -> tuple[list[dict], list[dict], list[dict]]:
    """(corpus, training claims, held-out claims) from PubMedQA's records keyed by PubMed id."""
    corpus, train, held = [], [], []
    for pmid, rec in sorted(data.items(), key=lambda kv: int(kv[0])):
        contexts, conclusion, decision = rec.get("CONTEXTS"), rec.get("LONG_ANSWER"), rec.get("final_decision")
        if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts) or not isinstance(conclusion, str):
            raise ValueError(f"record {pmid}: CONTEXTS must be a list of strings and LONG_ANSWER a string")
        if not isinstance(rec.get("QUESTION"), str) or decision not in ("yes", "no", "maybe"):
            raise ValueError(f"record {pmid}: QUESTION must be a string and final_decision yes, no or maybe")
        corpus.append({"doc_id": int(pmid), "title": "", "abstract": [*contexts, conclusion]})
        if decision == "maybe":
            continue
        label = "SUPPORT" if decision == "yes" else "CONTRADICT"
        claim = {"id": int(pmid), "claim": rec["QUESTION"], "evidence": {pmid: [{"sentences": [len(contexts)], "label": label}]}, "cited_doc_ids": [int(pmid)]}
        (held if pmid in heldout else train).append(claim)
    return corpus, train, held


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: pubmedqa_claims.py <pqal_dev.json> <split.json> <out dir>: PubMedQA's yes/no questions as SciFact claims, split by split.json's heldout_ids")
    with open(sys.argv[1], encoding="utf-8") as f:
        records = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        split = {str(i) for i in json.load(f)["heldout_ids"]}
    try:
        docs, train, held = convert(records, split)
    except ValueError as e:
        sys.exit(f"{sys.argv[1]}: {e}")
    os.makedirs(sys.argv[3], exist_ok=True)
    for name, rows in (("corpus.jsonl", docs), ("claims-train.jsonl", train), ("claims-heldout.jsonl", held)):
        with open(os.path.join(sys.argv[3], name), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    print(f"{len(docs)} abstracts; {len(train)} training and {len(held)} held-out yes/no questions → {sys.argv[3]}")
