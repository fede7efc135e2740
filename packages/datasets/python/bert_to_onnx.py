"""Writes a BERT encoder's safetensors weights as an ONNX graph (Hugging Face ONNX layout), without PyTorch.

Usage: python bert_to_onnx.py <folder with config.json + model.safetensors> <out folder>

The graph is BertModel's forward pass, op for op: embeddings (word + position + token type) and
LayerNorm, then per layer self-attention (scaled dot product, additive mask), output projection,
residual + LayerNorm, the GELU (erf) feed-forward, residual + LayerNorm. Inputs input_ids,
attention_mask, token_type_ids ([batch, sequence], int64); output last_hidden_state (an encoder:
pooling is the caller's, transformers.js feature-extraction) or, when the weights have a
classifier (BertForSequenceClassification: cross-encoders, NLI), logits: the pooler (dense + tanh
of the first token, or the mean over attended tokens when the config says "citeflow_pooling":
"mean", as the models `citeflow train` makes) then the classifier. Needs only numpy and onnx.
"""
import json
import shutil
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict:
    with path.open("rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        out[name.removeprefix("bert.")] = np.frombuffer(data[a:b], dtype=DTYPES[t["dtype"]]).reshape(t["shape"]).astype(np.float32 if t["dtype"] != "I64" else np.int64)
    return out


def build(cfg: dict, w: dict) -> onnx.ModelProto:
    if cfg.get("model_type") != "bert" or cfg.get("position_embedding_type", "absolute") != "absolute" or cfg.get("hidden_act") != "gelu":
        raise SystemExit("only BERT encoders with absolute positions and erf GELU are supported")
    hidden, heads, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg.get("layer_norm_eps", 1e-12)
    head = hidden // heads
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(kind, inputs, name, **attrs):
        nodes.append(helper.make_node(kind, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, out):
        y = op("MatMul", [x, const(f"{prefix}.weight_t", w[f"{prefix}.weight"].T.copy())], f"{out}/matmul")
        return op("Add", [y, const(f"{prefix}.bias", w[f"{prefix}.bias"])], out)

    def layer_norm(x, prefix, out):
        return op("LayerNormalization", [x, const(f"{prefix}.weight", w[f"{prefix}.weight"]), const(f"{prefix}.bias", w[f"{prefix}.bias"])], out, axis=-1, epsilon=eps)

    # Embeddings; positions 0..S-1 from the input's shape.
    shape = op("Shape", ["input_ids"], "ids_shape")
    seq = op("Gather", [shape, const("one_i", np.array(1, np.int64))], "seq_len")
    pos = op("Range", [const("zero_i", np.array(0, np.int64)), seq, const("step_i", np.array(1, np.int64))], "position_ids")
    words = op("Gather", [const("embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"]), "input_ids"], "emb_words")
    posv = op("Gather", [const("embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"]), pos], "emb_pos")
    types = op("Gather", [const("embeddings.token_type_embeddings.weight", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"], "emb_types")
    x = op("Add", [op("Add", [words, posv], "emb_sum1"), types], "emb_sum")
    x = layer_norm(x, "embeddings.LayerNorm", "emb_out")

    # Additive mask: 0 where attended, a large negative where padded; [B, 1, 1, S].
    maskf = op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = op("Sub", [const("one_f", np.array(1.0, np.float32)), maskf], "mask_inv")
    neg = op("Mul", [inv, const("mask_neg", np.array(np.finfo(np.float32).min, np.float32))], "mask_neg_v")
    mask = op("Unsqueeze", [neg, const("mask_axes", np.array([1, 2], np.int64))], "mask_add")

    split = const("split_shape", np.array([0, 0, heads, head], np.int64))
    merge = const("merge_shape", np.array([0, 0, hidden], np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(head), np.float32))
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        q = op("Transpose", [op("Reshape", [linear(x, f"{p}.attention.self.query", f"l{i}/q"), split], f"l{i}/q4")], f"l{i}/qt", perm=[0, 2, 1, 3])
        k = op("Transpose", [op("Reshape", [linear(x, f"{p}.attention.self.key", f"l{i}/k"), split], f"l{i}/k4")], f"l{i}/kt", perm=[0, 2, 3, 1])
        v = op("Transpose", [op("Reshape", [linear(x, f"{p}.attention.self.value", f"l{i}/v"), split], f"l{i}/v4")], f"l{i}/vt", perm=[0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k], f"l{i}/qk"), scale], f"l{i}/qk_s"), mask], f"l{i}/scores")
        probs = op("Softmax", [scores], f"l{i}/probs", axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [probs, v], f"l{i}/ctx4")], f"l{i}/ctxt", perm=[0, 2, 1, 3]), merge], f"l{i}/ctx")
        attn = linear(ctx, f"{p}.attention.output.dense", f"l{i}/attn")
        x = layer_norm(op("Add", [attn, x], f"l{i}/attn_res"), f"{p}.attention.output.LayerNorm", f"l{i}/attn_out")
        h = linear(x, f"{p}.intermediate.dense", f"l{i}/ffn_in")
        erf = op("Erf", [op("Mul", [h, const(f"l{i}/rsqrt2", np.array(1 / np.sqrt(2), np.float32))], f"l{i}/h_s")], f"l{i}/erf")
        g = op("Mul", [op("Mul", [h, const(f"l{i}/half", np.array(0.5, np.float32))], f"l{i}/h_half"), op("Add", [erf, const(f"l{i}/one", np.array(1.0, np.float32))], f"l{i}/erf1")], f"l{i}/gelu")
        out = linear(g, f"{p}.output.dense", f"l{i}/ffn_out")
        x = layer_norm(op("Add", [out, x], f"l{i}/ffn_res"), f"{p}.output.LayerNorm", f"l{i}/out")
    dims = ["batch_size", "sequence_length"]
    if "classifier.weight" in w:
        if cfg.get("citeflow_pooling") == "mean":
            # Σ over attended tokens ÷ their count (pooled_encoder.py's head).
            m3 = op("Unsqueeze", [maskf, const("mask_last", np.array([2], np.int64))], "mask_3d")
            summed = op("ReduceSum", [op("Mul", [x, m3], "masked"), const("axis_seq", np.array([1], np.int64))], "summed", keepdims=0)
            count = op("Max", [op("ReduceSum", [m3, const("axis_seq2", np.array([1], np.int64))], "count", keepdims=0), const("one_count", np.array(1.0, np.float32))], "count_1")
            pooled = op("Div", [summed, count], "pooled")
        else:
            first = op("Gather", [x, const("zero_first", np.array(0, np.int64))], "first_token", axis=1)
            pooled = op("Tanh", [linear(first, "pooler.dense", "pooler_dense")], "pooled")
        logits = linear(pooled, "classifier", "logits_out")
        nodes.append(helper.make_node("Identity", [logits], ["logits"], name="logits"))
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", w["classifier.weight"].shape[0]])]
    else:
        nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(nodes, "bert", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="citeflow bert_to_onnx")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main(src: str, dst: str) -> None:
    src_p, dst_p = Path(src), Path(dst)
    cfg = json.loads((src_p / "config.json").read_text())
    model = build(cfg, read_safetensors(src_p / "model.safetensors"))
    (dst_p / "onnx").mkdir(parents=True, exist_ok=True)
    tmp = dst_p / "onnx" / "model.onnx.partial"
    onnx.save(model, tmp)
    for f in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
        if (src_p / f).exists():
            shutil.copy2(src_p / f, dst_p / f)
    if (src_p / "1_Pooling").is_dir():
        shutil.copytree(src_p / "1_Pooling", dst_p / "1_Pooling", dirs_exist_ok=True)
    tmp.replace(dst_p / "onnx" / "model.onnx")  # last: the model file exists only when the folder is whole


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
