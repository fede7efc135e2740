"""Log-probabilities of token ids under a GGUF base model, with a GGUF LoRA adapter merged in or not, in PyTorch.

    python lm_logprobs.py <base.gguf> [<adapter.gguf>] < {"tokens": [...], "from": k}

Prints {"logprobs": [...]}: log P(tokens[i] | tokens[:i]) for i ≥ from. The adapter is read back
from its GGUF file (not from the trainer's memory) and merged as W + alpha / rank · B·A, so this is
the reference the product's llama.cpp numbers are checked against (tests/models/llama-lora.test.ts).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def merge_adapter(model, adapter: Path) -> int:
    import gguf
    import torch

    r = gguf.GGUFReader(str(adapter))
    f = r.fields["adapter.lora.alpha"]
    alpha = float(f.parts[f.data[0]][0])
    tensors = {t.name: torch.from_numpy(t.data.copy()).float() for t in r.tensors}
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.GEMMA3, model.config.num_hidden_layers)
    merged = 0
    for name, module in model.named_modules():
        if not isinstance(module, torch.nn.Linear):
            continue
        g = names.get_name(name)
        a, b = tensors.get(f"{g}.weight.lora_a"), tensors.get(f"{g}.weight.lora_b")
        if a is None or b is None:
            continue
        with torch.no_grad():
            module.weight += (alpha / a.shape[0]) * (b @ a)
        merged += 1
    return merged


def main() -> int:
    import torch
    from lm_train import load_base

    req = json.load(sys.stdin)
    from types import SimpleNamespace

    _, model = load_base(Path(sys.argv[1]), SimpleNamespace(bf16=False, qlora=False))  # fp32, as the trainer on the CPU
    merged = merge_adapter(model, Path(sys.argv[2])) if len(sys.argv) > 2 else 0
    ids = torch.tensor([req["tokens"]])
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), -1)
    k = req["from"]
    out = [logp[i - 1, req["tokens"][i]].item() for i in range(k, len(req["tokens"]))]
    print(json.dumps({"logprobs": out, "merged": merged}))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
