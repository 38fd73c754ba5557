#!/usr/bin/env python3
"""GPT-2 training steps side by side: Kiln (benchmarks/train_gpt2/
train_gpt2.cpp, AdamW; eager autograd, and built by `kiln compile
--autograd`: the forward and its backward compiled), PyTorch eager and
torch.compile,
on the same weights and batch, with llm.c's files and settings (AdamW lr
1e-4, betas (0.9, 0.999), eps 1e-8, no weight decay; the same batch every
step, as llm.c's test does).

The weights are random (GPT-2's initialisation, seeded), written in llm.c's
checkpoint format (gpt2_124M.bin's layout), the tokens in llm.c's data
format; nothing is downloaded. With --llmc DIR (an llm.c checkout whose
train_gpt2 binary is built), the same files would feed llm.c; it is not
available on machines without network access to GitHub, so the column is
optional.

    bash benchmarks/torch_env.sh
    build/torch-env/bin/python benchmarks/train_gpt2.py [--small] [--B 4 --T 64 --steps 10]
        [--forward] [--build build] [--cxx clang++-22]

With --forward each column times inference instead: the forward pass and
its loss, no gradient recorded (torch under no_grad), no optimizer. With
--autocast each column trains in mixed precision: the forward and loss
under kiln::autocast(kBFloat16) / torch.autocast("cpu", torch.bfloat16)
(Kiln compiled with `--autograd --autocast`: the graphs' bfloat16 twins and
their backwards); the losses then agree to bfloat16's rounding.

Prints each step's loss from the four (they agree to float32 rounding),
each one's median step time after the first step (torch.compile's first
step compiles) and its process's peak resident memory (each column runs in
a process of its own), with the machine's CPU.
"""
import argparse
import math
import os
import platform
import re
import resource
import statistics
import struct
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from kiln_flags import build_stitched

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def make_params(cfg, seed):
    """GPT-2's initialisation (nanoGPT's): normal(0, 0.02), the residual
    projections scaled by 1/sqrt(2L), biases 0, layer norms 1 and 0; in
    llm.c's order and shapes."""
    g = torch.Generator().manual_seed(seed)
    L, C, Vp, maxT = cfg["L"], cfg["C"], cfg["Vp"], cfg["maxT"]

    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=g) * std

    proj = 0.02 / math.sqrt(2 * L)
    wte = normal(Vp, C)
    wte[cfg["V"]:] = 0  # llm.c's padded rows
    return [
        ("wte", wte), ("wpe", normal(maxT, C, std=0.01)),
        ("ln1w", torch.ones(L, C)), ("ln1b", torch.zeros(L, C)),
        ("qkvw", normal(L, 3 * C, C)), ("qkvb", torch.zeros(L, 3 * C)),
        ("attprojw", normal(L, C, C, std=proj)), ("attprojb", torch.zeros(L, C)),
        ("ln2w", torch.ones(L, C)), ("ln2b", torch.zeros(L, C)),
        ("fcw", normal(L, 4 * C, C)), ("fcb", torch.zeros(L, 4 * C)),
        ("fcprojw", normal(L, C, 4 * C, std=proj)), ("fcprojb", torch.zeros(L, C)),
        ("lnfw", torch.ones(C)), ("lnfb", torch.zeros(C)),
    ]


def make_tokens(cfg, B, T, seed):
    """The batch's B*T tokens and the next one (the targets' last), seeded:
    the same in every column's process."""
    return np.random.default_rng(seed).integers(0, cfg["V"], size=B * T + 1)


def write_checkpoint(path, cfg, params):
    header = [0] * 256
    header[:8] = [20240326, 3, cfg["maxT"], cfg["V"], cfg["L"], cfg["NH"],
                  cfg["C"], cfg["Vp"]]
    with open(path, "wb") as f:
        f.write(struct.pack("256i", *header))
        for _, t in params:
            f.write(t.to(torch.float32).numpy().tobytes())


def write_tokens(path, tokens):
    header = [0] * 256
    header[:3] = [20240520, 1, len(tokens)]
    with open(path, "wb") as f:
        f.write(struct.pack("256i", *header))
        f.write(np.asarray(tokens, dtype=np.uint16).tobytes())


class GPT2(torch.nn.Module):
    """llm.c's forward in torch, on the same parameters."""

    def __init__(self, cfg, params):
        super().__init__()
        self.cfg = cfg
        self.p = torch.nn.ParameterDict(
            {n: torch.nn.Parameter(t.clone()) for n, t in params})

    def forward(self, idx, targets):
        cfg, p = self.cfg, self.p
        B, T = idx.shape
        C, NH, V = cfg["C"], cfg["NH"], cfg["V"]
        wte = p["wte"][:V]
        x = F.embedding(idx, wte) + p["wpe"][:T]
        for l in range(cfg["L"]):
            h = F.layer_norm(x, (C,), p["ln1w"][l], p["ln1b"][l], 1e-5)
            qkv = F.linear(h, p["qkvw"][l], p["qkvb"][l])
            q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2)
                       for t in qkv.split(C, dim=2))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).reshape(B, T, C)
            x = x + F.linear(y, p["attprojw"][l], p["attprojb"][l])
            h = F.layer_norm(x, (C,), p["ln2w"][l], p["ln2b"][l], 1e-5)
            h = F.gelu(F.linear(h, p["fcw"][l], p["fcb"][l]), approximate="tanh")
            x = x + F.linear(h, p["fcprojw"][l], p["fcprojb"][l])
        x = F.layer_norm(x, (C,), p["lnfw"], p["lnfb"], 1e-5)
        logits = x @ wte.t()
        return F.cross_entropy(logits.view(B * T, V), targets.view(-1))


def torch_steps(cfg, params, idx, targets, steps, compiled, forward=False,
                autocast=False):
    model = GPT2(cfg, params)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.999),
                            eps=1e-8, weight_decay=0.0)
    loss_fn = torch.compile(model) if compiled else model
    losses, times = [], []
    for _ in range(steps):
        start = time.perf_counter()
        if forward:
            with torch.no_grad():
                loss = loss_fn(idx, targets)
        else:
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                loss = loss_fn(idx, targets)
            loss.backward()
            opt.step()
        times.append((time.perf_counter() - start) * 1e3)
        losses.append(loss.item())
    return losses, times


def run_steps(command):
    """Runs one column's process: its losses, step times and peak resident
    memory (MiB), from its `step N loss L time_ms T` and `peak_rss_mb M`
    lines. Each column is a process of its own, so that its peak is its
    own."""
    out = subprocess.run(command, capture_output=True, text=True,
                         check=True).stdout
    losses, times = [], []
    for m in re.finditer(r"step \d+ loss ([-0-9.e+naif]+) time_ms ([0-9.]+)",
                         out):
        losses.append(float(m.group(1)))
        times.append(float(m.group(2)))
    peak = re.search(r"peak_rss_mb ([0-9.]+)", out)
    return losses, times, float(peak.group(1)) if peak else float("nan")


def kiln_steps(binary, checkpoint, tokens, B, T, steps, forward=False,
               autocast=False):
    return run_steps([binary, checkpoint, tokens, str(B), str(T), str(steps)]
                     + (["forward"] if forward else [])
                     + (["autocast"] if autocast else []))


def torch_column(args, compiled):
    """This script again, in a process of its own, for one torch column."""
    command = [sys.executable, os.path.abspath(__file__), "--torch-column",
               "compile" if compiled else "eager", "--B", str(args.B),
               "--T", str(args.T), "--steps", str(args.steps),
               "--seed", str(args.seed)]
    if args.small:
        command.append("--small")
    if args.forward:
        command.append("--forward")
    if args.autocast:
        command.append("--autocast")
    return run_steps(command)


def build_compiled(build_dir, cxx, work, kiln_args):
    """train_gpt2.cpp through kiln compile with kiln_args; the binary and
    the compile's seconds."""
    return build_stitched(
        ROOT, build_dir, cxx,
        os.path.join(ROOT, "benchmarks", "train_gpt2", "train_gpt2.cpp"),
        work, "train_gpt2_compiled", kiln_args=kiln_args, cxx_args=["-O2"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true",
                    help="a 2-layer, width-128, 1024-token model (seconds)")
    ap.add_argument("--B", type=int, default=4)
    ap.add_argument("--T", type=int, default=64)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin",
                                                   "train_gpt2"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build",
                                                   "train_gpt2"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="Kiln's build directory (its kiln, headers, runtime)")
    ap.add_argument("--cxx", default="clang++-22")
    ap.add_argument("--forward", action="store_true",
                    help="inference: time the forward pass and its loss only "
                         "(no gradients, no optimizer), as issue 41's row")
    ap.add_argument("--autocast", action="store_true",
                    help="mixed precision: each column's forward and loss "
                         "under bfloat16 autocast")
    ap.add_argument("--torch-column", choices=("eager", "compile"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.forward and args.autocast:
        ap.error("--autocast times training steps: not with --forward")
    cfg = (dict(maxT=256, V=1000, Vp=1024, L=2, NH=4, C=128) if args.small
           else dict(maxT=1024, V=50257, Vp=50304, L=12, NH=12, C=768))
    if args.torch_column:
        # One torch column in this process: the same weights and batch
        # (seeded), its steps and peak memory printed as the Kiln binary
        # prints them.
        params = make_params(cfg, args.seed)
        tokens = make_tokens(cfg, args.B, args.T, args.seed)
        idx = torch.tensor(tokens[:-1], dtype=torch.long).view(args.B, args.T)
        targets = torch.tensor(tokens[1:], dtype=torch.long).view(args.B,
                                                                  args.T)
        losses, times = torch_steps(cfg, params, idx, targets, args.steps,
                                    args.torch_column == "compile",
                                    args.forward, args.autocast)
        for s, (loss, ms) in enumerate(zip(losses, times)):
            print(f"step {s} loss {loss:.6f} time_ms {ms:.1f}")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak_rss_mb {peak:.1f}")
        return 0
    os.makedirs(args.work, exist_ok=True)
    checkpoint = os.path.join(args.work, "gpt2.bin")
    tokens_path = os.path.join(args.work, "tokens.bin")
    params = make_params(cfg, args.seed)
    write_checkpoint(checkpoint, cfg, params)
    write_tokens(tokens_path, make_tokens(cfg, args.B, args.T, args.seed))

    kiln_args = ["--autograd"] + (["--autocast"] if args.autocast else [])
    compiled, compile_s = build_compiled(args.build, args.cxx, args.work,
                                         kiln_args)
    columns = {}
    columns["kiln eager"] = kiln_steps(args.kiln, checkpoint, tokens_path,
                                       args.B, args.T, args.steps, args.forward,
                                       args.autocast)
    columns["kiln compiled"] = kiln_steps(compiled, checkpoint, tokens_path,
                                          args.B, args.T, args.steps,
                                          args.forward, args.autocast)
    columns["torch eager"] = torch_column(args, False)
    columns["torch.compile"] = torch_column(args, True)

    what = ("forward pass and loss, no gradients" if args.forward
            else "training step")
    if args.autocast:
        what += " under bfloat16 autocast"
    print(f"GPT-2 {what}: L={cfg['L']} C={cfg['C']} V={cfg['V']} "
          f"B={args.B} T={args.T}{'' if args.forward else ', AdamW'}; {cpu_name()}, "
          f"{os.cpu_count()} cores, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads)")
    names = list(columns)
    print("step  " + "  ".join(f"{n:>14}" for n in names))
    for s in range(args.steps):
        print(f"{s:4d}  " + "  ".join(f"{columns[n][0][s]:14.6f}" for n in names))
    ref = columns["torch eager"][0]
    for n in names:
        worst = max(abs(a - b) for a, b in zip(columns[n][0], ref))
        med = statistics.median(columns[n][1][1:] or columns[n][1])
        print(f"{n:>14}: median step {med:9.1f} ms, "
              f"max |loss - torch eager| {worst:.2e}, "
              f"peak memory {columns[n][2]:7.0f} MiB")
    base = statistics.median(columns["torch.compile"][1][1:])
    for n in ("kiln eager", "kiln compiled"):
        kiln = statistics.median(columns[n][1][1:])
        print(f"{n} / torch.compile {'forward' if args.forward else 'step'} time: "
              f"{kiln / base:.2f}")
    print(f"kiln compile {' '.join(kiln_args)} took {compile_s:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
