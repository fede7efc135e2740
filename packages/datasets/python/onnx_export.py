"""A trained encoder as the ONNX files the product runs: PyTorch's own exporter, then onnxruntime's int8 quantization.

fp32: `torch.onnx.export` (the dynamo exporter, opset 18, batch and sequence length dynamic) of the model as it
was trained — the classifier with its pooling (outputs `logits`) or the reranker's encoder (outputs
`last_hidden_state`, pooled by the product). Its inputs are what the architecture reads: input_ids and
attention_mask, and token_type_ids only where the encoder has segment embeddings (BERT), so a RoBERTa or DeBERTa
model is never fed the tokenizer's segment ids. The exported graph is then run on probe inputs beside PyTorch
and refused when any output differs by more than TOLERANCE: a model that scores differently in the product than
in training is never written. int8: onnxruntime's dynamic quantization, as before.
"""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path

# The largest |ONNX fp32 − PyTorch fp32| allowed on any output value (logits, or hidden states): float32 kernels
# differ in summation order, nothing more (measured ≤ 1e-7 on tiny BERT, RoBERTa, DeBERTa-v2 and ModernBERT, 1e-6
# on all-MiniLM-L6-v2).
TOLERANCE = 1e-4
OPSET = 18
FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "merges.txt", "vocab.json",
         "spm.model", "sentencepiece.bpe.model", "added_tokens.json")


class ExportError(Exception):
    """The exported graph does not compute what the trained model does."""


def input_names(uses_token_types: bool) -> list[str]:
    return ["input_ids", "attention_mask"] + (["token_type_ids"] if uses_token_types else [])


def export(model, output: str, names: list[str], probe: dict, path: Path) -> float:
    """Writes `model` (called with the named inputs, returning an object with `output`) to path as fp32 ONNX, and returns
    the largest difference from PyTorch on `probe` (tokenizer output: the names above, int64 tensors)."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch

    class Graph(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            return getattr(self.inner(input_ids=input_ids, attention_mask=attention_mask, **extra), output)

    model = model.float().cpu().eval()
    graph = Graph(model).eval()
    example = tuple(probe[n][:2] for n in names)
    batch, seq = torch.export.Dim("batch_size", min=1), torch.export.Dim("sequence_length", min=2)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(graph, example, dynamo=True, opset_version=OPSET, input_names=names, output_names=[output],
                                    dynamic_shapes={n: {0: batch, 1: seq} for n in names}, verbose=False)
    program.save(str(tmp), external_data=False)
    # The intermediate shapes the exporter annotates are left for onnx to infer again: some PyTorch versions (2.11) annotate
    # a linear layer's output with its weight's shape, which onnxruntime's quantizer then refuses. The nodes' metadata goes
    # too: the exporter records Python stack traces (source files and lines, this machine's paths), which would make the
    # same weights give other bytes from another checkout.
    proto = onnx.load(str(tmp))
    del proto.graph.value_info[:]
    for node in proto.graph.node:
        del node.metadata_props[:]
    onnx.save(proto, str(tmp))
    session = ort.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
    got = session.run([output], {n: probe[n].numpy() for n in names})[0]
    with torch.no_grad():
        want = getattr(model(**{n: probe[n] for n in names}), output).numpy()
    if output == "last_hidden_state":  # padded positions are not read by anyone; compare the attended ones
        keep = probe["attention_mask"].numpy().astype(bool)
        got, want = got[keep], want[keep]
    gap = float(np.abs(got - want).max())
    if not gap <= TOLERANCE:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"the exported ONNX graph differs from PyTorch by {gap:.2e} (more than {TOLERANCE:g}) on {len(probe['input_ids'])} probe inputs; nothing was written")
    tmp.replace(path)
    return gap


def write_model(model, output: str, names: list[str], probe: dict, src: Path, dst: Path) -> float:
    """The product's model folder at dst: the tokenizer and config files of src (the saved Hugging Face checkpoint), onnx/model.onnx
    (fp32) and onnx/model_quantized.onnx (int8); the fp32 file's gap to PyTorch."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    dst.mkdir(parents=True, exist_ok=True)
    for f in FILES:
        if (src / f).is_file():
            shutil.copy2(src / f, dst / f)
    gap = export(model, output, names, probe, dst / "onnx" / "model.onnx")
    quantize_dynamic(str(dst / "onnx" / "model.onnx"), str(dst / "onnx" / "model_quantized.onnx"), weight_type=QuantType.QInt8)
    return gap
