"""`citeflow train lm`: a LoRA adapter for a causal language model, from `citeflow export --format sft` rows.

The base is a Hugging Face model folder (Llama, Qwen, Gemma, Mistral, …: any AutoModelForCausalLM; bf16 on a GPU,
fp32 on the CPU) or a GGUF the product runs in-process (Gemma 3 270M, Q4_K_M, by default), dequantized by
transformers, so the adapter is trained on exactly the weights it is applied to. Each row is rendered as the
product prompts a model without a chat template (packages/models/src/llama.ts, plainPrompt): the
messages before the answer joined by blank lines, then the answer after one space and a blank line
(the stop the product generates to). The loss is on the answer tokens only, and the language-model
head runs only on them (a 262k-token vocabulary over a 1,600-token prompt would cost more than the
rest of the model). PEFT's LoRA on every attention and MLP projection; transformers' Trainer with
batch 1 and gradient accumulation (and gradient checkpointing with --gradient-checkpointing, for a 7-8 B base on one
24 GB GPU), on the device devices.py chose. The adapter is written as PEFT writes it (adapter_config.json,
adapter_model.safetensors: what transformers and vLLM's --lora-modules load) and, when the base is a GGUF or
--gguf names the base's GGUF, as a llama.cpp GGUF LoRA adapter (gguf_lora.py) that node-llama-cpp loads on top of it.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import devices
from trainer_common import announce, last_checkpoint, progress_callback, say, trainer_args, work_dirs
from train_inputs import jsonl_objects
from pooled_encoder import read_config
from train_errors import InputError

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def read_sft(folder: Path) -> tuple[list[tuple[list[dict], str]], list[str]]:
    """The conversations of an sft export (train.jsonl and validation.jsonl), each with the type of node it
    teaches (its metadata's nodeType: generate.answer, verify.llm, claims.extract, …; "generate.answer"
    when the export has no metadata), and the problems of rows left out."""
    files = [folder / n for n in ("train.jsonl", "validation.jsonl") if (folder / n).is_file()]
    if not files:
        raise InputError(f"--data {folder}: no train.jsonl (make one with citeflow export --format sft --out {folder})")
    rows, problems = [], []
    for f, i, obj in jsonl_objects(files, problems):
        msgs = obj.get("messages") if isinstance(obj, dict) else None
        if not isinstance(msgs, list):
            keys = sorted(obj) if isinstance(obj, dict) else []
            raise InputError(f"{f}:{i}: not an sft row (fields {keys}; want \"messages\"): make the data with citeflow export --format sft")
        if len(msgs) < 2 or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in msgs) or msgs[-1].get("role") != "assistant":
            problems.append(f"{f.name}:{i}: messages must end with the assistant's answer")
            continue
        if not msgs[-1]["content"].strip():
            problems.append(f"{f.name}:{i}: empty answer")
            continue
        meta = obj.get("metadata")
        task = meta.get("nodeType") if isinstance(meta, dict) else None
        rows.append((msgs, task if isinstance(task, str) and task else ANSWER_TASK))
    if not rows:
        raise InputError(f"--data {folder}: no usable sft rows" + (f" ({len(problems)} bad: {problems[0]})" if problems else ""))
    return rows, problems


ANSWER_TASK = "generate.answer"


CLAIMS_TASK = "claims.extract"
# claims.extract's answer when the passages show none of the claim's rationale (JSON under its grammar, else text).
NO_CLAIMS = ('{"claims":[]}', "None.")


def cap_refusals(rows: list[tuple[list[dict], str]], share: float, seed: int) -> tuple[list[list[dict]], int]:
    """At most `share` of the answers (generate.answer's rows) may be answers without a citation marker ("The
    papers do not answer the question."), and at most `share` of claims.extract's rows the empty list: a constant
    answer that half the rows share is the cheapest loss to reach. A first adapter trained on SciFact's answers as
    exported (46 % such) gave it for every held-out claim; one trained on claims rows as exported (54 % empty)
    returned no claim for 26 of 30 dev claims. A seeded sample of them is kept; the other nodes' rows (verdicts,
    ratings, …) are all kept. Returns the conversations and how many were left out."""
    import random
    import re

    def capped(full: list, empty: list, rng_seed: int) -> list:
        """The empty answers kept: at most `share` of them and the full ones together."""
        keep = min(len(empty), int(share * len(full) / (1 - share))) if share < 1 else len(empty)
        return random.Random(rng_seed).sample(empty, keep)

    def says_nothing(m: list[dict]) -> bool:
        return m[-1]["content"].strip() in NO_CLAIMS

    answers = [m for m, task in rows if task == ANSWER_TASK]
    cited = [m for m in answers if re.search(r"\[\d+\]", m[-1]["content"])]
    uncited = [m for m in answers if not re.search(r"\[\d+\]", m[-1]["content"])]
    kept = capped(cited, uncited, seed)
    claims = [m for m, task in rows if task == CLAIMS_TASK]
    no_claims = [m for m in claims if says_nothing(m)]
    kept_empty = {id(m) for m in capped([m for m in claims if not says_nothing(m)], no_claims, seed + 1)}
    others = [m for m, task in rows if task != ANSWER_TASK and (task != CLAIMS_TASK or not says_nothing(m) or id(m) in kept_empty)]
    return cited + kept + others, len(uncited) - len(kept) + len(no_claims) - len(kept_empty)


def prompt_text(msgs: list[dict]) -> str:
    """The product's prompt for a base model: the messages before the answer, trimmed, joined by blank lines."""
    return "\n\n".join(m["content"].strip() for m in msgs[:-1])


def uses_chat_template(tok, base: Path) -> bool:
    """Whether rows are rendered with the base's chat template: a Hugging Face base that has one (a served model is sent
    messages, and the server renders them with it: vLLM's /v1/chat/completions). A GGUF base is prompted as the product
    prompts its in-process model (plainPrompt), and so is a Hugging Face base without a template."""
    return base.is_dir() and bool(getattr(tok, "chat_template", None))


def chat_parts(tok, msgs: list[dict]) -> tuple[str, str]:
    """The chat template's text up to the assistant's turn, and the assistant's turn (its answer and the template's end of turn)."""
    prompt = tok.apply_chat_template(msgs[:-1], add_generation_prompt=True, tokenize=False)
    whole = tok.apply_chat_template(msgs, tokenize=False)
    if not whole.startswith(prompt):
        return prompt, msgs[-1]["content"].strip() + (tok.eos_token or "")
    return prompt, whole[len(prompt) :]


def encode(tok, msgs: list[dict], max_length: int, chat: bool = False) -> tuple[list[int], int] | None:
    """Token ids of the prompt and the answer, and how many of them (at the end) are the answer (the loss is on those alone);
    None when too long. Plain: BOS + prompt + " answer\\n\\n". Chat: the base's chat template, its assistant turn the answer."""
    if chat:
        prompt_str, answer_str = chat_parts(tok, msgs)
        prompt = tok(prompt_str, add_special_tokens=False)["input_ids"]
        answer = tok(answer_str, add_special_tokens=False)["input_ids"]
    else:
        bos = [tok.bos_token_id] if tok.bos_token_id is not None else []
        prompt = bos + tok(prompt_text(msgs), add_special_tokens=False)["input_ids"]
        answer = tok(" " + msgs[-1]["content"].strip() + "\n\n", add_special_tokens=False)["input_ids"]
    if len(prompt) + len(answer) > max_length:
        return None
    return prompt + answer, len(answer)


def load_base(base: Path, args):
    """The tokenizer and the causal LM of --base: a Hugging Face model folder, or a .gguf file."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if base.is_dir():
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

        kind = read_config(base)["model_type"]
        if kind not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
            raise InputError(f"--base {base}: model_type {kind!r} is not a causal language model (no AutoModelForCausalLM for it)")
        tok = AutoTokenizer.from_pretrained(str(base))
        if args.qlora:
            return tok, quantized_base(base, args)
        return tok, AutoModelForCausalLM.from_pretrained(str(base), dtype=torch.bfloat16 if args.bf16 else torch.float32)
    if args.qlora:
        raise InputError(f"--qlora is for a Hugging Face base (a model folder), not a GGUF: {base}")
    gguf_path = base
    if not gguf_path.is_file() or gguf_path.suffix.lower() != ".gguf":
        raise InputError(f"--base {gguf_path}: neither a model folder (config.json) nor a .gguf file (the in-process model, e.g. gemma-3-270m-q4_k_m.gguf from npm run models)")
    tok = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name, dtype=torch.float32)
    # transformers reads a GGUF by dequantizing every tensor to fp32: what is loaded is a plain model,
    # though it stays marked as GGUF-quantized (which its Trainer refuses to train).
    model.hf_quantizer, model.is_quantized = None, False
    model.config.__dict__.pop("quantization_config", None)
    return tok, model


# How many of an answer's first tokens are its opening ("The papers report:" / "The papers do not"): the
# tokens that decide what kind of answer it is, where greedy decoding makes its one choice.
OPENING_TOKENS = 4


def answer_logits(model, input_ids, answer_len: int):
    """The logits that predict the answer's tokens, with the LM head run only on those positions."""
    return model(input_ids=input_ids, logits_to_keep=answer_len + 1).logits[:, :-1, :].float()


def answer_loss(model, input_ids, answer_len: int, opening_weight: float = 1.0):
    """Cross-entropy over the answer tokens; the opening's tokens count `opening_weight` times each.

    Why weight the opening: the loss is an average over ~60 answer tokens, of which one decides whether
    the answer cites or refuses. Unweighted, 240 answers (80 % citing) left that token at P(do) 0.55–0.75
    on held-out prompts: the prompt's own "if the papers do not answer" is easy to copy, and copying the
    rationale once begun is most of what the loss rewards."""
    import torch
    import torch.nn.functional as F

    logits = answer_logits(model, input_ids, answer_len)
    ce = F.cross_entropy(logits.reshape(-1, logits.size(-1)), input_ids[:, -answer_len:].reshape(-1), reduction="none")
    w = torch.ones_like(ce)
    w[: min(OPENING_TOKENS, answer_len)] = opening_weight
    return (ce * w).sum() / w.sum()


def train_lm(args, held: set[str]) -> dict:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import Trainer, TrainingArguments, set_seed

    torch.set_num_threads(args.threads)
    set_seed(args.seed)
    rows, problems = read_sft(Path(args.data))
    # A row is about a held-out claim when its prompt holds the claim's text: those are the test set.
    test = [m for m, _ in rows if any(h in prompt_text(m) for h in held)]
    train_rows = [(m, task) for m, task in rows if not any(h in prompt_text(m) for h in held)]
    if not train_rows:
        raise InputError(f"{args.data}: every row is about a held-out claim ({len(test)}); nothing to train on")
    by_node = {task: sum(t == task for _, t in train_rows) for task in sorted({t for _, t in train_rows})}
    train_rows, refusals = cap_refusals(train_rows, args.refusal_share, args.seed)
    if not train_rows:
        raise InputError(f"{args.data}: no answer cites a passage ([n]), and at most --refusal-share {args.refusal_share:g} of the answers may cite nothing")
    counterpart = gguf_counterpart(args)  # before the base's weights are read: a 7-8 B model takes minutes
    tok, base = load_base(Path(args.base), args)
    args.chat = uses_chat_template(tok, Path(args.base))
    encoded = [encode(tok, m, args.max_length, args.chat) for m in train_rows]
    too_long = sum(e is None for e in encoded)
    encoded = [e for e in encoded if e is not None]
    if not encoded:
        raise InputError(f"{args.data}: every row is longer than --max-length {args.max_length} tokens")
    counts = {"rows": len(train_rows), "rows_by_node": by_node, "uncited_left_out": refusals, "too_long": too_long, "answer_tokens": sum(n for _, n in encoded), "tokens": sum(len(i) for i, _ in encoded)}
    cfg = LoraConfig(r=args.lora_rank, lora_alpha=args.lora_alpha, lora_dropout=0.0, target_modules=TARGETS, bias="none", task_type="CAUSAL_LM")
    if args.gradient_checkpointing and not args.qlora:  # prepare_model_for_kbit_training has done it for QLoRA
        base.enable_input_require_grads()
    model = get_peft_model(base, cfg)
    data = [{"input_ids": i, "answer_len": n} for i, n in encoded]
    work, ckpt = work_dirs(args)
    accumulate = args.batch_size
    steps = announce(args, len(data), f"{len(data)} rows ({counts['answer_tokens']} answer tokens of {counts['tokens']}) from {len(rows)}", counts, len(test), problems)

    class AnswerTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, **kw):
            loss = answer_loss(model, inputs["input_ids"], int(inputs["answer_len"][0]), args.opening_weight)
            return (loss, None) if return_outputs else loss

    def collate(batch):
        return {"input_ids": torch.tensor([batch[0]["input_ids"]]), "answer_len": torch.tensor([batch[0]["answer_len"]])}

    targs = trainer_args(TrainingArguments, args, ckpt, steps, log_every=5, save_every=25, gradient_accumulation_steps=accumulate, remove_unused_columns=False)
    targs.per_device_train_batch_size = 1
    trainer = AnswerTrainer(model=model, args=targs, train_dataset=data, data_collator=collate, callbacks=[progress_callback()(args)])
    t0 = time.time()
    trainer.train(resume_from_checkpoint=last_checkpoint(ckpt))
    seconds = time.time() - t0
    heldout = heldout_loss(model, tok, test, args.max_length, args.chat) if test and devices.is_main() else None
    answers = len(encoded) * args.epochs if args.max_steps <= 0 else min(len(encoded) * args.epochs, steps * accumulate * args.processes)
    tokens_trained = answers * counts["tokens"] / len(encoded)
    return {"model": model, "tokenizer": tok, "rows": len(rows), "pairs": answers, "counts": counts, "refused_heldout": len(test), "bad_rows": len(problems),
            "steps": steps, "seconds": seconds, "tokens_per_second": tokens_trained / seconds, "work": work, "torch": torch.__version__, "heldout": heldout, "gguf": counterpart, **flop_limit_lm(base, args)}


def quantized_base(base: Path, args):
    """QLoRA's base: the weights in 4-bit NF4 (bitsandbytes, double quantization), computed in bf16, on a CUDA GPU."""
    import importlib.util

    import torch
    from peft import prepare_model_for_kbit_training
    from transformers import AutoModelForCausalLM, BitsAndBytesConfig

    if args.device != "cuda":
        raise InputError("--qlora needs a CUDA GPU (bitsandbytes' 4-bit weights); on the CPU leave it out")
    if importlib.util.find_spec("bitsandbytes") is None:
        raise InputError(f"--qlora needs the bitsandbytes package in the training environment: {sys.executable} -m pip install bitsandbytes")
    q = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)
    model = AutoModelForCausalLM.from_pretrained(str(base), quantization_config=q, dtype=torch.bfloat16, device_map={"": torch.cuda.current_device()})
    return prepare_model_for_kbit_training(model, use_gradient_checkpointing=args.gradient_checkpointing)


def gguf_counterpart(args) -> Path | None:
    """The GGUF the llama.cpp adapter is written for: the base itself when it is one, else --gguf, checked against the
    Hugging Face base (the same architecture and number of blocks; another model's GGUF is refused by name)."""
    from transformers import AutoConfig

    from gguf_lora import base_architecture

    if Path(args.base).is_file():
        return Path(args.base)
    if not args.gguf:
        return None
    g = Path(args.gguf)
    if not g.is_file() or g.suffix.lower() != ".gguf":
        raise InputError(f"--gguf {g}: not a .gguf file")
    arch, blocks = base_architecture(g)
    config = AutoConfig.from_pretrained(args.base)
    kind = config.model_type.removesuffix("_text")
    if arch != kind or blocks != config.num_hidden_layers:
        raise InputError(f"--gguf {g}: a {arch} model of {blocks} blocks, not the base's GGUF ({args.base_name}: {config.model_type}, "
                         f"{config.num_hidden_layers} blocks); an adapter is only for the model it was trained on")
    return g


HELDOUT_ROWS = 20


def heldout_loss(model, tok, test: list[list[dict]], max_length: int, chat: bool) -> dict:
    """Mean answer-token loss on the first HELDOUT_ROWS held-out rows (in export order), with the adapter and without it (the base).
    Each row is a ~1,700-token forward pass twice over; the answers' quality is measured in bench/llm.mjs."""
    import torch

    enc = [e for e in (encode(tok, m, max_length, chat) for m in test[:HELDOUT_ROWS]) if e is not None]

    device = next(model.parameters()).device

    def measure() -> tuple[float, int]:
        """The mean answer-token loss, and in how many answers greedy decoding gets the whole opening right."""
        total, n, opened = 0.0, 0, 0
        with torch.no_grad():
            for ids, k in enc:
                logits = answer_logits(model, torch.tensor([ids], device=device), k)[0]
                gold = torch.tensor(ids[-k:], device=device)
                total += torch.nn.functional.cross_entropy(logits, gold, reduction="sum").item()
                n += k
                m = min(OPENING_TOKENS, k)
                opened += bool((logits[:m].argmax(-1) == gold[:m]).all())
        return total / max(1, n), opened

    with_adapter, opened = measure()
    with model.disable_adapter():
        base, opened_base = measure()
    return {
        "held-out answers": f"{len(enc)} of {len(test)}",
        "answer-token loss, base": f"{base:.3f}",
        "answer-token loss, with the adapter": f"{with_adapter:.3f}",
        "greedy opening as the gold answer's (cites or says the papers do not answer), base": f"{opened_base} of {len(enc)}",
        "greedy opening as the gold answer's, with the adapter": f"{opened} of {len(enc)}",
    }


def flop_limit_lm(model, args) -> dict:
    """Training tokens/s a perfect trainer would reach: the measured matmul rate over ~4 × non-embedding parameters a token
    (forward, and the backward pass to the activations; LoRA needs no gradient for the frozen weights)."""
    import torch

    from encoder_report import matmul_gflops

    gflops = matmul_gflops(torch.bfloat16 if args.bf16 else torch.float32, args.device) * args.processes
    params = sum(p.numel() for n, p in model.named_parameters() if "embed_tokens" not in n)
    return {"matmul_gflops": gflops, "non_embedding_params": params, "flop_limit_tokens_per_second": gflops * 1e9 / (4 * params)}


def card(args, info: dict, files: dict[str, str]) -> str:
    rendering = ("with the base's chat template (as a server renders the messages it is sent)" if args.chat
                 else "as the product prompts a model without a chat template (messages joined by blank lines)")
    c = info["counts"]
    by_node = ", ".join(f"{k} {v}" for k, v in c.get("rows_by_node", {}).items())
    lines = [
        f"# {Path(args.out).name}",
        "",
        "A LoRA adapter for a language model, trained by `citeflow train lm` from Citeflow's own `citeflow export --format sft` rows, "
        "written as PEFT writes it (`adapter_config.json`, `adapter_model.safetensors`: transformers and vLLM's `--lora-modules` load it)"
        + (f" and as a llama.cpp GGUF LoRA adapter (`adapter.gguf`) that node-llama-cpp applies on top of `{info['gguf'].name}`." if info["gguf"] else "."),
        "",
        "| | |",
        "|---|---|",
        f"| base weights | `{args.base_name}`{', dequantized from the GGUF the product runs' if Path(args.base).is_file() else ''}; licence {args.base_licence} |",
        f"| training rows | {info['rows']} from `{args.data_name}`; {c['rows']} after the held-out claims and after leaving out {c['uncited_left_out']} answers without a citation and empty claim lists (at most {args.refusal_share:g} of a node's answers may be such, `--refusal-share`); by node before that: {by_node}; {info['pairs']} rows trained on (of {c['answer_tokens']} answer tokens, {c['tokens']} tokens with their prompts, in all); {c['too_long']} longer than {args.max_length} tokens left out |",
        f"| left out | {info['refused_heldout']} rows about held-out claims; {info['bad_rows']} bad rows |",
        f"| data licence | {args.data_licence} |",
        f"| command | `{args.command}` |",
        f"| commit | {args.commit} |",
        f"| seed / threads | {args.seed} / {args.threads} |",
        f"| recipe | PEFT LoRA rank {args.lora_rank}, alpha {args.lora_alpha:g}, on {', '.join(TARGETS)}; rows rendered {rendering}; transformers Trainer, loss on the answer tokens only, the first {OPENING_TOKENS} (the opening: cite or not) counted {args.opening_weight:g} times each; "
        f"{args.epochs} epoch(s){f', max {args.max_steps} steps' if args.max_steps > 0 else ''}, {args.batch_size} answers a step (batch 1, gradient accumulation), lr {args.lr}, warmup 10 %, {'bf16' if args.bf16 else 'fp32'}{', the base in 4-bit NF4 (QLoRA)' if args.qlora else ''}{', gradient checkpointing' if args.gradient_checkpointing else ''}, torch {info['torch']} |",
        f"| device | {args.hardware}; {args.processes} process(es) |",
        f"| wall time | trained {time.strftime('%Y-%m-%d')}; {info['seconds']:.0f} s training ({info['tokens_per_second']:.0f} tokens/s; this {'GPU' if args.device == 'cuda' else 'CPU'}'s {info['matmul_gflops']:.0f} GFLOP/s matmul bounds it at "
        f"{info['flop_limit_tokens_per_second']:.0f} tokens/s, 4 × {info['non_embedding_params'] / 1e6:.1f} M non-embedding parameters a token) |",
        f"| files | `adapter_config.json`, `adapter_model.safetensors` (PEFT){', `adapter.gguf` (LoRA tensors in fp16)' if info['gguf'] else ''}, `training.json` |",
        "",
    ]
    if info["heldout"]:
        lines += ["## Held-out scores", "", f"On the fixed held-out split (`{args.heldout_name}`): rows about claims no Citeflow model trains on.", "", "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in info["heldout"].items()]
        lines += [""]
    lines += ["## SHA-256", "", "```"] + [f"{h}  {f}" for f, h in sorted(files.items())] + ["```", ""]
    return "\n".join(lines)


def main(args, held: set[str]) -> int:
    import shutil

    from trainer_common import sha256, swap_in
    from gguf_lora import write_adapter

    info = train_lm(args, held)
    if not devices.is_main():
        return 0
    out = Path(args.out).resolve()
    stage = info["work"] / "out"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    model = info["model"]
    model.peft_config["default"].base_model_name_or_path = str(Path(args.base).resolve())
    model.save_pretrained(str(stage))
    (stage / "README.md").unlink(missing_ok=True)  # PEFT's stub card; Citeflow's is written below
    # The base by its name, not by this machine's path (the adapter travels; vLLM and PEFT take the base from the command line).
    peft_cfg = json.loads((stage / "adapter_config.json").read_text())
    (stage / "adapter_config.json").write_text(json.dumps(peft_cfg | {"base_model_name_or_path": args.base_name}, indent=2, sort_keys=True) + "\n")
    if info["gguf"]:
        state = {k: v for k, v in model.state_dict().items() if "lora_" in k}
        write_adapter(state, args.lora_alpha, info["gguf"], stage / "adapter.gguf")
    if info["heldout"]:
        say("held-out: " + "; ".join(f"{k}: {v}" for k, v in info["heldout"].items()))
    keep = {k: v for k, v in info.items() if k not in ("model", "tokenizer", "work", "gguf")}
    (stage / "training.json").write_text(json.dumps(keep | {"task": "lm", "seed": args.seed, "threads": args.threads, "epochs": args.epochs, "lora_rank": args.lora_rank, "lora_alpha": args.lora_alpha, "chat_template": args.chat, "qlora": args.qlora,
                                                            "base": Path(args.base).name, "gguf": info["gguf"] and info["gguf"].name, "device": args.device,
                                                            "hardware": args.hardware, "processes": args.processes, "bf16": args.bf16, "command": args.command, "commit": args.commit}, indent=2) + "\n")
    files = {str(f.relative_to(stage)): sha256(f) for f in sorted(stage.rglob("*")) if f.is_file()}
    (stage / "README.md").write_text(card(args, info, files), encoding="utf-8")
    (stage / "SHA256SUMS").write_text("".join(f"{h}  {f}\n" for f, h in sorted(files.items())), encoding="utf-8")
    swap_in(stage, out, info["work"])
    print(json.dumps({"out": str(out), "seconds": info["seconds"], "pairs": info["pairs"], "tokens_per_second": info["tokens_per_second"],
                      "flop_limit_tokens_per_second": info["flop_limit_tokens_per_second"], "device": args.hardware, "heldout": info["heldout"]}))
    return 0
