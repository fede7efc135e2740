"""The language model as NLI judge, measured on a dev split of SciFact training claims (never the held-out split).

    ~/.cache/citeflow/train-venv/bin/python bench/nli_judge_dev.py <gemma-3-270m-q4_k_m.gguf> [epochs]

Gemma 3 270M (the GGUF the product runs, dequantized) with a LoRA on every projection reads
"Evidence: <sentence> / Claim: <claim> / Does the evidence support or contradict the claim? Answer:"
and is trained to put more weight on " support" or " contradict" as its next token (cross-entropy
over those two logits). Training rows: each rationale sentence of the training claims against its
claim, plus the claim flipped by Citeflow's NLI augmentation (nli_augment.flip) with the other label.
The dev split: 100 claims with evidence drawn with seed 7 from the training claims outside
bench/scifact-heldout.json; the score is SUPPORT vs CONTRADICT accuracy on their rationale sentences,
the metric the NLI model's card reports on the held-out split. bench/README.md has the figures.
"""
from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "datasets" / "python"))


def dev_split(claims: list[dict], held: set) -> set:
    """The dev split (bench/scifact-dev.json): 100 training claims with evidence outside the held-out split."""
    dev = set(json.loads((ROOT / "bench" / "scifact-dev.json").read_text())["dev_ids"])
    known = {c["id"] for c in claims if c["evidence"]}
    if dev & held or not dev <= known:
        raise SystemExit("bench/scifact-dev.json: its claims must be training claims with evidence outside the held-out split")
    return dev


def main() -> None:
    import torch
    import torch.nn.functional as F
    from peft import LoraConfig, get_peft_model

    from lm_train import TARGETS, load_base
    from nli_augment import flip

    base, epochs = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2
    torch.set_num_threads(2)
    torch.manual_seed(13)
    held = set(json.loads((ROOT / "bench" / "scifact-heldout.json").read_text())["heldout_ids"])
    claims = [json.loads(l) for l in (ROOT / "data" / "scifact" / "claims_train.jsonl").read_text().splitlines() if l.strip()]
    corpus = {str(d["doc_id"]): d["abstract"] for d in map(json.loads, (ROOT / "data" / "scifact" / "corpus.jsonl").read_text().splitlines()) if d}
    dev = dev_split(claims, held)
    rest = [c["id"] for c in claims if c["id"] not in held and c["evidence"]]

    def rows(ids: set, augment: bool) -> list[tuple[str, str, int]]:
        out = []
        for c in claims:
            if c["id"] not in ids:
                continue
            for doc, sets in c["evidence"].items():
                for s in sets:
                    for i in s["sentences"]:
                        label = 0 if s["label"] == "SUPPORT" else 1
                        out.append((c["claim"], corpus[doc][i], label))
                        flipped = flip(c["claim"]) if augment else None
                        if flipped:
                            out.append((flipped, corpus[doc][i], 1 - label))
        return out

    train, test = rows(set(rest) - dev, True), rows(dev, False)
    majority = max(sum(r[2] == 0 for r in test), sum(r[2] == 1 for r in test)) / len(test)
    print(f"train {len(train)} rows, dev {len(test)} rationales (majority {majority:.3f})", flush=True)
    tok, model = load_base(base)
    labels = [tok(w, add_special_tokens=False)["input_ids"][0] for w in (" support", " contradict")]

    def scores(batch):
        ids = [[tok.bos_token_id] + tok(f"Evidence: {e}\nClaim: {c}\nDoes the evidence support or contradict the claim? Answer:", add_special_tokens=False)["input_ids"][:200] for c, e, _ in batch]
        n = max(map(len, ids))
        x = torch.zeros(len(ids), n, dtype=torch.long)
        mask = torch.zeros(len(ids), n, dtype=torch.long)
        for i, s in enumerate(ids):
            x[i, : len(s)], mask[i, : len(s)] = torch.tensor(s), 1
        h = model(input_ids=x, attention_mask=mask, output_hidden_states=True).hidden_states[-1]
        last = h[torch.arange(len(ids)), torch.tensor([len(s) - 1 for s in ids])]
        return (last @ model.get_output_embeddings().weight[labels].T).float(), torch.tensor([r[2] for r in batch])

    def accuracy() -> float:
        model.eval()
        with torch.no_grad():
            right = sum((s.argmax(1) == y).sum().item() for s, y in (scores(test[i : i + 16]) for i in range(0, len(test), 16)))
        model.train()
        return right / len(test)

    print(f"base: {accuracy():.3f}", flush=True)
    model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=TARGETS, bias="none", task_type="CAUSAL_LM"))
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
    batch, step, t0 = 8, 0, time.time()
    steps = epochs * -(-len(train) // batch)
    for epoch in range(epochs):
        random.Random(epoch).shuffle(train)
        for i in range(0, len(train), batch):
            for g in opt.param_groups:  # 10 % warmup, then linear decay
                g["lr"] = 2e-4 * min(1.0, (step + 1) / (0.1 * steps)) * (steps - step) / steps
            s, y = scores(train[i : i + batch])
            F.cross_entropy(s, y).backward()
            opt.step()
            opt.zero_grad()
            step += 1
        print(f"epoch {epoch + 1}: {accuracy():.3f} ({time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
