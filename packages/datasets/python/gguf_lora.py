"""A PEFT LoRA adapter as a llama.cpp GGUF LoRA adapter, written with the `gguf` package.

llama.cpp's adapter layout: `general.type` "adapter", `adapter.type` "lora", `adapter.lora.alpha`,
the base model's architecture, and for each adapted weight `<gguf name>.weight.lora_a` (PEFT's
lora_A, rank × in) and `.lora_b` (PEFT's lora_B, out × rank), named by gguf's tensor name map for
that architecture (model.layers.0.self_attn.q_proj → blk.0.attn_q). The adapter also records the
base file's name and architecture, so that a mismatch can be named before llama.cpp is asked.
"""
from __future__ import annotations

import re
from pathlib import Path

_LORA = re.compile(r"^(?:base_model\.model\.)?(?P<base>.+)\.lora_(?P<ab>[AB])(?:\.default)?\.weight$")


def base_architecture(gguf_path: Path) -> tuple[str, int]:
    """The base GGUF's architecture name and block count."""
    import gguf

    r = gguf.GGUFReader(str(gguf_path))

    def field(key: str):
        f = r.fields[key]
        v = f.parts[f.data[0]]
        return bytes(v).decode() if f.types[0] == gguf.GGUFValueType.STRING else int(v[0])

    arch = field("general.architecture")
    return arch, field(f"{arch}.block_count")


def write_adapter(state: dict, alpha: float, base_gguf: Path, dst: Path) -> int:
    """Writes the LoRA tensors of a PEFT state dict (name → tensor) as a GGUF adapter for base_gguf; returns the tensor count."""
    import gguf
    import numpy as np

    arch_name, blocks = base_architecture(base_gguf)
    arch = next(a for a, n in gguf.MODEL_ARCH_NAMES.items() if n == arch_name)
    names = gguf.get_tensor_name_map(arch, blocks)
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for key, t in state.items():
        m = _LORA.match(key)
        if not m:
            continue
        gguf_name = names.get_name(m["base"])
        if gguf_name is None:
            raise ValueError(f"{m['base']}: no {arch_name} GGUF tensor of that name")
        pairs.setdefault(gguf_name, {})[m["ab"]] = t.detach().float().cpu().numpy()
    w = gguf.GGUFWriter(str(dst), arch_name)
    w.add_type(gguf.GGUFType.ADAPTER)
    w.add_string(gguf.Keys.Adapter.TYPE, "lora")
    w.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    w.add_string("citeflow.base_model", base_gguf.name)
    for name in sorted(pairs):
        ab = pairs[name]
        if set(ab) != {"A", "B"}:
            raise ValueError(f"{name}: the adapter has lora_{''.join(ab)} without its pair")
        w.add_tensor(f"{name}.weight.lora_a", np.ascontiguousarray(ab["A"], dtype=np.float16))
        w.add_tensor(f"{name}.weight.lora_b", np.ascontiguousarray(ab["B"], dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return 2 * len(pairs)
