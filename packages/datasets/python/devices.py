"""Where `citeflow train` runs: this CPU, a CUDA GPU, or several processes started by PyTorch's launcher (torchrun).

- `--device auto` (the default) trains on CUDA when PyTorch sees a GPU (bf16 where the GPU has it, TF32 matmuls), else on
  the CPU (fp32; `--bf16` asks for bf16 autocast there).
- `--gpus N` starts the same command under `python -m torch.distributed.run` with N processes on this machine, one GPU
  each: data-parallel training (DDP through transformers' Trainer), the batch size per process. `--nodes M --node-rank R
  --master HOST:PORT` spreads it over M machines (the same command on each, R = 0 … M−1), torchrun's c10d rendezvous.
- `--processes N` does the same on the CPU (gloo), N processes of `--threads` threads each.
Only the first process writes the model; each one writes nothing else.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from train_errors import InputError


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def world() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main() -> bool:
    return rank() == 0


def _cuda_report(torch) -> str:
    build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "a build without CUDA"
    return f"PyTorch {torch.__version__} ({build}) sees {torch.cuda.device_count()} CUDA GPU(s)"


def choose(args) -> None:
    """Sets args.device ("cpu" or "cuda"), args.bf16, args.processes and args.hardware (for the card) from --device and the machine."""
    import torch

    cuda = torch.cuda.is_available()
    if args.device == "cuda" and not cuda:
        raise InputError(f"--device cuda: {_cuda_report(torch)}; leave --device out to train on the CPU")
    args.device = "cuda" if args.device == "cuda" or (args.device == "auto" and cuda) else "cpu"
    args.processes = world()
    if args.device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        args.bf16 = not args.fp32 and torch.cuda.is_bf16_supported()
        args.hardware = f"{torch.cuda.get_device_name()} (CUDA {torch.version.cuda})" + (f", {args.processes} processes (DDP)" if args.processes > 1 else "")
    else:
        args.hardware = f"{platform.machine()} CPU, {args.threads} threads" + (f" × {args.processes} processes (DDP, gloo)" if args.processes > 1 else "")


def launch(args, script: Path) -> int | None:
    """--gpus N / --processes N: this command again under torchrun, N processes (a machine of several GPUs, or several machines);
    None when there is nothing to launch (one process, or already a process torchrun started)."""
    n = args.gpus or args.processes
    if n <= 1 and args.nodes <= 1 or "LOCAL_RANK" in os.environ:
        return None
    import torch

    if args.gpus:
        if args.device == "cpu":
            raise InputError("--gpus is for CUDA GPUs; on the CPU give --processes N")
        if torch.cuda.device_count() < args.gpus:
            fewer = f"give --gpus {torch.cuda.device_count()} at most, or " if torch.cuda.device_count() else ""
            raise InputError(f"--gpus {args.gpus}: {_cuda_report(torch)}; {fewer}leave --gpus out to train on the CPU")
    elif args.device == "cuda":
        raise InputError("--processes is for the CPU; on GPUs give --gpus N")
    if args.nodes > 1 and not args.master:
        raise InputError(f"--nodes {args.nodes}: give --master HOST:PORT (the first machine's address, the same on every machine) and --node-rank")
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={max(1, n)}"]
    cmd += [f"--nnodes={args.nodes}", f"--node_rank={args.node_rank}", "--rdzv_backend=c10d", f"--rdzv_endpoint={args.master}"] if args.nodes > 1 else ["--standalone"]
    device = ["--device", "cuda" if args.gpus else "cpu"]
    return subprocess.call(cmd + [str(script), *sys.argv[1:], *device])
