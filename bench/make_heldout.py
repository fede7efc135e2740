"""Writes bench/scifact-heldout.json: the fixed held-out split of SciFact's training claims.

Claims that cite a common abstract are grouped (SciFact's CONTRADICT claims are mostly rewrites of a
SUPPORT claim about the same abstract: they must fall on the same side), and whole groups are held
out in the order of sha256("citeflow-heldout-v1:" + smallest claim id) until a fifth of the claims
are. No model Citeflow ships trains on these claims, and nothing is tuned on them.

Usage: python train/make_heldout.py <claims_train.jsonl> bench/scifact-heldout.json
"""
import hashlib
import json
import sys


def main(claims_path: str, out: str) -> None:
    claims = [json.loads(line) for line in open(claims_path, encoding="utf-8") if line.strip()]
    parent = {c["id"]: c["id"] for c in claims}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    by_doc = {}
    for c in claims:
        for d in set(c["cited_doc_ids"]) | set(int(k) for k in c["evidence"]):
            if d in by_doc:
                parent[find(c["id"])] = find(by_doc[d])
            else:
                by_doc[d] = c["id"]
    groups = {}
    for c in claims:
        groups.setdefault(find(c["id"]), []).append(c["id"])
    order = sorted(groups.values(), key=lambda g: hashlib.sha256(f"citeflow-heldout-v1:{min(g)}".encode()).hexdigest())
    held, target = [], len(claims) // 5
    for g in order:
        if len(held) >= target:
            break
        held.extend(g)
    json.dump(
        {
            "description": "SciFact training claims held out from every model Citeflow trains; scores are reported on them and nothing is tuned on them. Made by train/make_heldout.py (claims sharing a cited abstract stay together).",
            "source": "SciFact claims_train.jsonl (CC BY 4.0)",
            "claims": len(claims),
            "heldout_ids": sorted(held),
        },
        open(out, "w", encoding="utf-8"),
        indent=1,
    )
    print(f"{len(held)} of {len(claims)} claims held out in {sum(1 for g in order if set(g) <= set(held))} groups → {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
