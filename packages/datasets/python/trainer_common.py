"""What every `citeflow train` recipe shares: transformers' training arguments for the device, progress lines, checkpoints
to resume from, the work folder, the whole-or-nothing swap of the new model into place, and sha256 sums. Its own module,
so that the recipes (citeflow_train.py's encoders, lm_train.py's LoRA) import it and not each other."""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def progress_callback():
    from transformers import TrainerCallback

    class Progress(TrainerCallback):
        """One line per logging step: pairs/s and ETA measured from the first step this process ran (a resume starts mid-way)."""

        start: tuple[float, int] | None = None

        def __init__(self, args):
            self.batch = args.batch_size * args.processes

        def on_step_end(self, a, state, control, **kw):
            if self.start is None:
                self.start = (time.time(), state.global_step)

        def on_log(self, a, state, control, logs=None, **kw):
            if self.start is None or state.global_step <= self.start[1] or not state.is_world_process_zero:
                return
            per = (time.time() - self.start[0]) / (state.global_step - self.start[1])
            eta = per * (state.max_steps - state.global_step)
            loss_ = (logs or {}).get("loss")
            say(f"  step {state.global_step}/{state.max_steps}  {self.batch / per:.1f} examples/s  "
                f"{'loss %.4f  ' % float(loss_) if loss_ is not None else ''}ETA {int(eta // 60)}m{int(eta % 60):02d}s")

    return Progress


def last_checkpoint(ckpt: Path) -> str | None:
    """The newest whole checkpoint of a killed run, to resume from."""
    done = sorted((p for p in ckpt.glob("checkpoint-*") if (p / "trainer_state.json").is_file()), key=lambda p: int(p.name.split("-")[1])) if ckpt.is_dir() else []
    if done:
        say(f"  resuming from {done[-1]}")
    return str(done[-1]) if done else None


def trainer_args(cls, args, ckpt: Path, total_steps: int, log_every: int, save_every: int, **extra):
    """The training arguments every recipe shares (the device, seeds, a checkpoint to resume from, our own progress lines), and theirs."""
    return cls(
        output_dir=str(ckpt),
        num_train_epochs=args.epochs,
        max_steps=args.max_steps if args.max_steps > 0 else -1,
        per_device_train_batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_steps=0.1,
        seed=args.seed,
        data_seed=args.seed,
        bf16=args.bf16,
        use_cpu=args.device == "cpu",
        ddp_backend="gloo" if args.device == "cpu" and args.processes > 1 else None,
        **({"gradient_checkpointing": True, "gradient_checkpointing_kwargs": {"use_reentrant": False}} if args.gradient_checkpointing else {}),
        logging_steps=max(1, min(log_every, total_steps // 20)),
        save_strategy="steps",
        save_steps=max(1, min(save_every, total_steps // 4)),
        save_total_limit=1,
        dataloader_num_workers=0,
        report_to="none",
        disable_tqdm=True,
        **extra,
    )


def announce(args, n: int, what: str, counts: dict, refused: int, problems: list[str]) -> int:
    """The first progress line of a training (its n examples, what they are, what was left out) and its number of steps."""
    total_steps = args.max_steps if args.max_steps > 0 else -(-n // (args.batch_size * args.processes)) * args.epochs
    say(f"train {args.task}: {what} ({json.dumps(counts)}); {refused} held-out rows refused; {len(problems)} bad rows left out; "
        f"{total_steps} steps of {args.batch_size}{f' × {args.processes} processes' if args.processes > 1 else ''} on {args.hardware}{' in bf16' if args.bf16 else ''}")
    for p in problems[:20]:
        say(f"  left out: {p}")
    return total_steps


def work_dirs(args) -> tuple[Path, Path]:
    out = Path(args.out).resolve()
    work = out.parent / f"{out.name}.work"
    ckpt = work / "checkpoints"
    ckpt.mkdir(parents=True, exist_ok=True)
    return work, ckpt


def swap_in(stage: Path, out: Path, work: Path) -> None:
    """The old model (if any) moves aside, the whole new one takes its name, then the old one and the work folder go."""
    old = out.parent / f"{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    stage.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    say(f"model: {out}")


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
