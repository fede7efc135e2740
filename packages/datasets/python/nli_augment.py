"""The augmentations a careful NLI trainer adds to gold SUPPORT / NO_EVIDENCE / CONTRADICT pairs.

- A sentence against itself, or against one of its own clauses, is SUPPORT.
- A claim whose polarity or direction is flipped (is / is not, increases / decreases, higher /
  lower, …) turns SUPPORT into CONTRADICT and CONTRADICT back into SUPPORT: SciFact's own CONTRADICT
  claims were written from SUPPORT claims this way. A sentence against its flipped self is CONTRADICT.
- The claim as written against its evidence with the rationale sentences flipped swaps the label the
  same way (flip_evidence, for whole prompts: the judge's rows read the passages, not pairs).
- A sentence of an abstract no claim cites is a claim its paper supports (corpus_claims): with both flips, its
  wording is true in one row and false in another.

Pairs are (hypothesis, premise, label): the claim first, as Citeflow's SciFact-style models read them.
"""
import json
import random
import re

# Direction words, both ways; the first match in a sentence is swapped.
_PAIRS = [
    ("increases", "decreases"), ("increased", "decreased"), ("increase", "decrease"), ("increasing", "decreasing"),
    ("higher", "lower"), ("greater", "smaller"), ("more", "less"), ("elevated", "reduced"),
    ("upregulates", "downregulates"), ("upregulated", "downregulated"), ("upregulation", "downregulation"),
    ("up-regulates", "down-regulates"), ("up-regulated", "down-regulated"),
    ("activates", "inhibits"), ("activated", "inhibited"), ("promotes", "suppresses"), ("promoted", "suppressed"),
    ("enhances", "impairs"), ("enhanced", "impaired"), ("improves", "worsens"), ("improved", "worsened"),
    ("raises", "lowers"), ("positive", "negative"), ("positively", "negatively"), ("induces", "prevents"),
    ("accelerates", "slows"), ("gain", "loss"), ("benefit", "harm"), ("beneficial", "harmful"),
    ("efficient", "inefficient"), ("effective", "ineffective"), ("stable", "unstable"), ("common", "rare"),
    ("above", "below"), ("before", "after"), ("long", "short"), ("larger", "smaller"), ("high", "low"),
]
_SWAP = {a: b for a, b in _PAIRS} | {b: a for a, b in _PAIRS}


def _words(words) -> re.Pattern:
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + r")\b", re.IGNORECASE)


_DIRECTION = _words(_SWAP)
# The direction words that state an effect (verbs and their nouns), without those that also name a size, a time or a
# place ("high-dose", "before treatment", "more than 80%"): a long sentence's first such word is seldom its finding.
_NOT_EFFECTS = {"higher", "lower", "greater", "smaller", "more", "less", "larger", "high", "low", "above", "below", "before", "after", "long", "short", "common", "rare", "positive", "negative", "gain", "loss", "stable", "unstable", "efficient", "inefficient", "positively", "negatively"}
_EFFECT = _words(w for w in _SWAP if w not in _NOT_EFFECTS)
# An existing negation, undone first: "does not cause" → "does cause", "cannot" → "can", "no" → "".
_UNNEGATE = [(re.compile(r"\bcannot\b", re.I), "can"), (re.compile(r"\b(is|are|was|were|does|do|did|can|may|will|has|have|had|could|should)\s+not\b", re.I), r"\1"), (re.compile(r"\b(\w+)n't\b", re.I), r"\1"), (re.compile(r"\bno\b", re.I), "a"), (re.compile(r"\black(s|ed|ing)?\b", re.I), lambda m: {"": "have", "s": "has", "ed": "had", "ing": "having"}[(m.group(1) or "").lower()])]
_AUX = re.compile(r"\b(is|are|was|were|can|may|will|has|have|had|could|should|does|do|did)\b", re.IGNORECASE)


def _case(src: str, word: str) -> str:
    return word[:1].upper() + word[1:] if src[:1].isupper() else word


def flip(text: str, effects_only: bool = False) -> str | None:
    """The sentence with its polarity or direction reversed, or None when no rule applies. `effects_only`: for the long
    sentences of an abstract, where the first size or time word, or a "not" after the first auxiliary, often lands on
    a clause that does not state the finding, only an existing negation or an effect word is reversed."""
    for pattern, repl in _UNNEGATE:
        out, n = pattern.subn(repl, text, count=1)
        if n:
            return out
    m = (_EFFECT if effects_only else _DIRECTION).search(text)
    if m:
        w = m.group(0)
        return text[: m.start()] + _case(w, _SWAP[w.lower()]) + text[m.end() :]
    m = None if effects_only else _AUX.search(text)
    if m:
        return text[: m.end()] + " not" + text[m.end() :]
    return None


def clause(text: str) -> str | None:
    """The longest comma- or semicolon-separated part of at least six words, when the sentence has several."""
    parts = [p.strip() for p in re.split(r"[;,]\s", text)]
    parts = [p for p in parts if len(p.split()) >= 6]
    if len(parts) < 2 and not (len(parts) == 1 and parts[0] != text.strip()):
        return None
    return max(parts, key=len) if parts else None


def augment(rows: list[tuple[str, str, str]], seed: int) -> tuple[list[tuple[str, str, str]], dict]:
    """Gold rows plus their augmentations, and a count of each kind (for the model card)."""
    rng = random.Random(seed)
    out = list(rows)
    counts = {"gold": len(rows), "self": 0, "clause": 0, "flipped_claim": 0, "flipped_self": 0}
    premises = sorted({p for _, p, _ in rows})
    # A share of the premises is enough to teach identity, clauses and self-contradiction.
    for p in premises:
        if rng.random() < 0.3:
            out.append((p, p, "SUPPORT"))
            counts["self"] += 1
        c = clause(p)
        if c and rng.random() < 0.2:
            out.append((c, p, "SUPPORT"))
            counts["clause"] += 1
        f = flip(p)
        if f and rng.random() < 0.3:
            out.append((f, p, "CONTRADICT"))
            counts["flipped_self"] += 1
    for h, p, label in rows:
        if label == "NO_EVIDENCE":
            continue
        f = flip(h)
        if f:
            out.append((f, p, "CONTRADICT" if label == "SUPPORT" else "SUPPORT"))
            counts["flipped_claim"] += 1
    rng.shuffle(out)
    return out, counts


def corpus_pairs(abstracts: list[list[str]], sentences: int, seed: int) -> tuple[list[tuple[str, str, str]], dict]:
    """Pairs made from unlabelled abstracts, a triple per sampled sentence s (6 to 60 words):
    s or one of its clauses → SUPPORT; that hypothesis flipped → CONTRADICT; another sentence of the
    same abstract → NO_EVIDENCE. No labels are needed, so any corpus teaches the contrast SciFact's
    few hundred CONTRADICT rationales cannot."""
    rng = random.Random(seed)
    pool = [(i, j) for i, a in enumerate(abstracts) if len(a) > 1 for j, s in enumerate(a) if 6 <= len(s.split()) <= 60]
    rng.shuffle(pool)
    out: list[tuple[str, str, str]] = []
    counts = {"corpus_support": 0, "corpus_contradict": 0, "corpus_no_evidence": 0}
    for i, j in pool[:sentences]:
        s = abstracts[i][j]
        c = clause(s)
        h = c if c and rng.random() < 0.5 else s
        out.append((h, s, "SUPPORT"))
        counts["corpus_support"] += 1
        f = flip(h)
        if f:
            out.append((f, s, "CONTRADICT"))
            counts["corpus_contradict"] += 1
        other = rng.choice([k for k in range(len(abstracts[i])) if k != j])
        out.append((abstracts[i][other], s, "NO_EVIDENCE"))
        counts["corpus_no_evidence"] += 1
    return out, counts


# A flipped claim's id: the claim's own plus this, so that it never names a SciFact claim.
FLIPPED_ID = 100000


def flip_claims(claims: list[dict]) -> list[dict]:
    """SciFact claims with evidence, each with its polarity flipped where a rule applies: the same evidence with
    SUPPORT and CONTRADICT swapped, id + FLIPPED_ID, and the original text as "orig". The judge's adapter trains on
    verify.llm's calls for both (scripts/train-shipped.sh): the same passages, the opposite answer."""
    swap = {"SUPPORT": "CONTRADICT", "CONTRADICT": "SUPPORT"}
    out = []
    for c in claims:
        f = flip(c["claim"]) if c.get("evidence") else None
        if not f or f == c["claim"]:
            continue
        evidence = {d: [{"sentences": r["sentences"], "label": swap[r["label"]]} for r in rs] for d, rs in c["evidence"].items()}
        out.append({"id": FLIPPED_ID + c["id"], "claim": f, "evidence": evidence, "cited_doc_ids": c["cited_doc_ids"], "orig": c["claim"]})
    return out


# An evidence-flipped claim's id: the claim's own plus this (flip_evidence).
EVIDENCE_FLIPPED_ID = 200000


def _flip_sentences(abstract: list[str], indices: set[int]) -> list[str] | None:
    """The abstract with those sentences flipped (flip(effects_only=True)), or None when one of them does not flip."""
    out = list(abstract)
    for i in indices:
        f = flip(out[i], effects_only=True) if i < len(out) else None
        if not f or f == out[i]:
            return None
        out[i] = f
    return out


def flip_evidence(claims: list[dict], corpus: list[dict]) -> tuple[list[dict], list[dict]]:
    """The other twin: the claim as written, its evidence's rationale sentences flipped in a copy of the corpus, the
    labels swapped (id + EVIDENCE_FLIPPED_ID). A claim is taken when every one of its rationale sentences flips by a
    negation or an effect word and none of its evidence papers is another taken claim's, so each changed paper answers
    one claim. Returns the claims and the whole corpus with those papers changed: retrieved from it, the passages are
    the original's but for what decides the claim."""
    swap = {"SUPPORT": "CONTRADICT", "CONTRADICT": "SUPPORT"}
    docs = {str(d["doc_id"]): d for d in corpus}
    changed: dict[str, list[str]] = {}
    out = []
    for c in claims:
        ev = c.get("evidence") or {}
        if not ev or any(d in changed or d not in docs for d in ev):
            continue
        flipped = {d: _flip_sentences(docs[d]["abstract"], {i for r in rs for i in r["sentences"]}) for d, rs in ev.items()}
        if any(a is None for a in flipped.values()):
            continue
        changed.update(flipped)
        evidence = {d: [{"sentences": r["sentences"], "label": swap[r["label"]]} for r in rs] for d, rs in ev.items()}
        out.append({"id": EVIDENCE_FLIPPED_ID + c["id"], "claim": c["claim"], "evidence": evidence, "cited_doc_ids": c["cited_doc_ids"]})
    return out, [{**d, "abstract": changed[str(d["doc_id"])]} if str(d["doc_id"]) in changed else d for d in corpus]


# A corpus claim's id: this plus its index (corpus_claims), clear of SciFact's ids and their twins' offsets.
CORPUS_CLAIM_ID = 300000


def corpus_claims(corpus: list[dict], claims: list[dict], n: int, seed: int = 13) -> list[dict]:
    """Claims made from unlabelled abstracts, for rows that only reading the passages can decide: of each abstract
    (shuffled by `seed`) that no claim in `claims` cites, the last of its final three sentences of 8 to 35 words whose
    flip is the same by every rule (flip and flip(effects_only=True)), so that flip-claims on it and flip-evidence on
    its paper reverse the same word; that sentence as written is the claim, SUPPORTed by itself. With flip-claims,
    flip-evidence and flip-claims again, each gives four rows, two true and two false, the claim's wording the same
    in a true and a false one."""
    cited = {str(d) for c in claims for d in [*c.get("cited_doc_ids", []), *(c.get("evidence") or {})]}
    docs = list(corpus)
    random.Random(seed).shuffle(docs)
    out: list[dict] = []
    for d in docs:
        if len(out) >= n:
            break
        if str(d["doc_id"]) in cited:
            continue
        ab = d["abstract"]
        for j in reversed(range(max(0, len(ab) - 3), len(ab))):
            s = ab[j].strip()
            f = flip(s) if 8 <= len(s.split()) <= 35 else None
            if f and f != s and f == flip(s, effects_only=True):
                out.append({"id": CORPUS_CLAIM_ID + len(out), "claim": s, "evidence": {str(d["doc_id"]): [{"sentences": [j], "label": "SUPPORT"}]}, "cited_doc_ids": [d["doc_id"]]})
                break
    return out


def _read_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _write_jsonl(path: str, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


USAGE = """usage: nli_augment.py flip-claims <claims.jsonl> <out.jsonl>
         SciFact claims with their polarity flipped (flip_claims)
       nli_augment.py flip-evidence <claims.jsonl> <corpus.jsonl> <out-claims.jsonl> <out-corpus.jsonl>
         the claims as written, against a corpus whose rationale sentences are flipped (flip_evidence)
       nli_augment.py corpus-claims <corpus.jsonl> <claims.jsonl> <n> <out.jsonl>
         n claims from abstracts none of claims.jsonl cites, each a sentence of its paper (corpus_claims)"""

if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    if args[:1] == ["flip-claims"] and len(args) == 3:
        rows = _read_jsonl(args[1])
        flipped = flip_claims(rows)
        _write_jsonl(args[2], flipped)
        print(f"{len(flipped)} of {sum(bool(c.get('evidence')) for c in rows)} claims with evidence flipped → {args[2]}")
    elif args[:1] == ["flip-evidence"] and len(args) == 5:
        rows = _read_jsonl(args[1])
        flipped, corpus = flip_evidence(rows, _read_jsonl(args[2]))
        _write_jsonl(args[3], flipped)
        _write_jsonl(args[4], corpus)
        papers = sum(len(c["evidence"]) for c in flipped)
        print(f"{len(flipped)} of {sum(bool(c.get('evidence')) for c in rows)} claims' evidence flipped ({papers} papers) → {args[3]}, {args[4]}")
    elif args[:1] == ["corpus-claims"] and len(args) == 5 and args[3].isdigit():
        made = corpus_claims(_read_jsonl(args[1]), _read_jsonl(args[2]), int(args[3]))
        _write_jsonl(args[4], made)
        print(f"{len(made)} claims from abstracts no claim cites → {args[4]}")
    else:
        sys.exit(USAGE)
