#!/usr/bin/env python3
"""The size sweep: Kiln eager, Kiln compiled, torch eager and torch.compile
on the same workloads, in one run, with alternating repetitions.

benchmarks/sweep/sweep.cpp holds Kiln's side, written as a user writes it;
this script builds it through `kiln compile` (clang++ -O2) and drives it
over a pipe. Each repetition of a row times one batch of calls of each of
the four in turn (about 5 ms of Kiln eager calls per batch), so a slow
spell of the machine falls on all four columns; the table has the medians,
per call. The torch columns appear when PyTorch is importable: run the
script with the interpreter of the virtual environment that
benchmarks/torch_env.sh makes (PyTorch for this benchmark only; the build
and the tests never need it).

    bash benchmarks/torch_env.sh            # once: ~3 GB into build/torch-env
    build/torch-env/bin/python benchmarks/sweep.py [--build build] [--reps 15]

With `--device cuda` the compiled side and torch run on the GPU (Kiln eager
on the CPU, the only device it computes on) over the GPU rows: issue 40's
table. benchmarks/gpu/bundle.sh builds sweep.cpp for the GPU here and
benchmarks/gpu/run.sh runs it there with `--exe`, which takes a prebuilt
sweep instead of building one.

It prints the machine's read bandwidth (a sum over 512 MiB on all threads,
the better of a measurement before the rows and one after them)
and, for the MLP at batch 1 and 8 with its weights coming from memory
(four copies of the model in turn, 128 MiB, more than the last-level
cache), the bandwidth at which the compiled products stream their 32 MiB
of weights a call. Not a test: nothing is asserted.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from kiln_flags import build_stitched

# Row name, its sizes (sweep.cpp's setup arguments), a label for the table.
ROWS = [
    ("chain", [64], "elementwise chain [64]"),
    ("chain", [4096], "elementwise chain [4K]"),
    ("chain", [262144], "elementwise chain [256K]"),
    ("chain", [16777216], "elementwise chain [16M]"),
    ("ln_softmax", [8, 64], "layer_norm(softmax(x)+x) [8, 64]"),
    ("ln_softmax", [4096, 1024], "layer_norm(softmax(x)+x) [4096, 1024]"),
    ("mlp_cold", [1], "MLP 1024-4096-1024, batch 1, weights from memory"),
    ("mlp_cold", [8], "MLP 1024-4096-1024, batch 8, weights from memory"),
    ("mlp", [1], "MLP 1024-4096-1024, batch 1"),
    ("mlp", [8], "MLP 1024-4096-1024, batch 8"),
    ("mlp", [64], "MLP 1024-4096-1024, batch 64"),
    ("mlp", [256], "MLP 1024-4096-1024, batch 256"),
    ("gru", [8, 64, 128], "GRU cell step (batch 8, 64 -> 128)"),
    ("gpt2", [2, 256], "GPT-2 block (B=2, T=256, C=768)"),
    ("gpt2_sdpa", [2, 256], "GPT-2 block, scaled_dot_product_attention (B=2, T=256, C=768)"),
    ("gpt2_bf16", [2, 256], "GPT-2 block, bfloat16 (B=2, T=256, C=768)"),
    ("gpt2_autocast", [2, 256],
     "GPT-2 block, float32 under autocast(bfloat16), sdpa (B=2, T=256, C=768)"),
]
# The GPU rows (--device cuda): issue 40's workloads.
GPU_ROWS = [
    ("chain", [64], "elementwise chain [64], per call"),
    ("chain", [16777216], "elementwise chain [16M]"),
    ("ln_softmax", [4096, 1024], "layer_norm(softmax(x)+x) [4096, 1024]"),
    ("mlp", [256], "MLP 1024-4096-1024, batch 256"),
    ("gpt2", [8, 1024], "GPT-2 block (B=8, T=1024, C=768), attention written out"),
    ("gpt2_sdpa", [8, 1024], "GPT-2 block (B=8, T=1024, C=768), scaled_dot_product_attention"),
]
MLP_WEIGHT_BYTES = 2 * 1024 * 4096 * 4
# Seconds between Kiln's batches and torch's (see the timing loop).
SETTLE_S = 0.3


def torch_rows(device="cpu"):
    """The same workloads in PyTorch on `device` (a function and the
    argument sets that its calls take in turn), or None when torch is not
    importable."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    torch.manual_seed(0)

    def chain(x):
        return F.gelu(x * 1.5 + 0.5) * torch.sigmoid(x) - x / (x.abs() + 1.0)

    def ln_softmax(x, w, b):
        return F.layer_norm(torch.softmax(x, -1) + x, (x.shape[-1],), w, b, 1e-5)

    def mlp(x, w1, b1, w2, b2):
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

    def gru(x, h, wih, whh, bih, bhh):
        H = h.shape[-1]
        gi = F.linear(x, wih, bih)
        gh = F.linear(h, whh, bhh)
        r = torch.sigmoid(gi[..., :H] + gh[..., :H])
        z = torch.sigmoid(gi[..., H:2 * H] + gh[..., H:2 * H])
        n = torch.tanh(gi[..., 2 * H:] + r * gh[..., 2 * H:])
        return (1.0 - z) * n + z * h

    def gpt2_block(attention, x, ln1_w, ln1_b, w_attn, b_attn, w_proj, b_proj, ln2_w,
                   ln2_b, w_fc, b_fc, w_out, b_out):
        B, T, C = x.shape
        nh, hd = 12, C // 12
        h = F.layer_norm(x, (C,), ln1_w, ln1_b, 1e-5)
        q, k, v = F.linear(h, w_attn, b_attn).split(C, dim=2)
        q = q.reshape(B, T, nh, hd).transpose(1, 2)
        k = k.reshape(B, T, nh, hd).transpose(1, 2)
        v = v.reshape(B, T, nh, hd).transpose(1, 2)
        y = attention(q, k, v).transpose(1, 2).reshape(B, T, C)
        x1 = x + F.linear(y, w_proj, b_proj)
        h = F.gelu(F.linear(F.layer_norm(x1, (C,), ln2_w, ln2_b, 1e-5), w_fc, b_fc))
        return x1 + F.linear(h, w_out, b_out)

    def written_out(q, k, v):
        T, hd = q.shape[-2], q.shape[-1]
        att = (q @ k.transpose(-2, -1)) * (1.0 / hd ** 0.5)
        positions = torch.arange(T, device=q.device)
        causal = positions.unsqueeze(1) >= positions.unsqueeze(0)
        att = torch.softmax(torch.where(causal, att, float("-inf")), -1)
        return att @ v

    def gpt2(*args):
        return gpt2_block(written_out, *args)

    def gpt2_sdpa(*args):
        return gpt2_block(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                          *args)

    def gpt2_autocast(*args):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return gpt2_sdpa(*args)

    def n(*shape, std=1.0):
        return (torch.randn(*shape) * std).to(device)

    def make(name, a):
        if name == "chain":
            return chain, [(n(a[0]),)]
        if name == "ln_softmax":
            return ln_softmax, [(n(a[0], a[1]), n(a[1]), n(a[1]))]
        if name in ("mlp", "mlp_cold"):
            # mlp_cold: four copies of the weights in turn, as sweep.cpp.
            x = n(a[0], 1024)
            return mlp, [(x, n(4096, 1024, std=0.03), n(4096, std=0.02),
                          n(1024, 4096, std=0.015), n(1024, std=0.02))
                         for _ in range(1 if name == "mlp" else 4)]
        if name == "gru":
            B, I, H = a
            return gru, [(n(B, I), n(B, H, std=0.5), n(3 * H, I, std=0.1),
                          n(3 * H, H, std=0.1), n(3 * H, std=0.1), n(3 * H, std=0.1))]
        if name in ("gpt2", "gpt2_sdpa", "gpt2_bf16", "gpt2_autocast"):
            C = 768
            ones, zeros = torch.ones(C, device=device), torch.zeros(C, device=device)
            args = (n(a[0], a[1], C), ones, zeros,
                    n(3 * C, C, std=0.02), n(3 * C, std=0.02), n(C, C, std=0.02),
                    n(C, std=0.02), ones, zeros,
                    n(4 * C, C, std=0.02), n(4 * C, std=0.02), n(C, 4 * C, std=0.02),
                    n(C, std=0.02))
            if name == "gpt2_bf16":
                args = tuple(t.to(torch.bfloat16) for t in args)
            fn = {"gpt2_sdpa": gpt2_sdpa, "gpt2_autocast": gpt2_autocast}.get(name, gpt2)
            return fn, [args]
        raise ValueError(name)

    return torch, make


def cpu_name():
    """The CPU's model name and the vector ISA it offers, from /proc/cpuinfo
    (every figure names the machine it was measured on)."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
    except OSError:
        pass
    isa = [name for name in ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16")
           if name in flags]
    return f"{model}, {os.cpu_count()} threads ({', '.join(isa) or 'no AVX2'})"


def gpu_name(torch):
    """The GPU's name and memory, as torch reports them."""
    props = torch.cuda.get_device_properties(0)
    return (f"{props.name}, {props.total_memory / 2**30:.0f} GiB, "
            f"{props.multi_processor_count} SMs, torch {torch.__version__}, "
            f"CUDA {torch.version.cuda}")


class Kiln:
    """sweep.cpp, built through kiln compile, behind a pipe."""

    def __init__(self, exe):
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not answer or answer.startswith("error"):
            sys.exit(f"sweep: '{line}' -> '{answer}'")
        return answer.split()


def build(root, build_dir, cxx, work, kiln_args=()):
    # -fopenmp: the read probe's own parallel loops.
    return build_stitched(root, build_dir, cxx,
                          os.path.join(root, "benchmarks", "sweep", "sweep.cpp"),
                          work, "sweep", kiln_args=kiln_args,
                          cxx_args=["-O2", "-march=native", "-fopenmp"])


def per_call_us(fn, arg_sets, calls, sync=None):
    """Per call, in us, over calls that take the argument sets in turn;
    sync (torch.cuda.synchronize) waits for the GPU before the clock
    starts and stops."""
    if sync:
        sync()
    start = time.perf_counter()
    for i in range(calls):
        fn(*arg_sets[i % len(arg_sets)])
    if sync:
        sync()
    return (time.perf_counter() - start) / calls * 1e6


def fmt(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--cxx", default="clang++-22")
    ap.add_argument("--only", default="", help="comma-separated row names (chain, mlp, ...)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="where the compiled side and torch run (cuda: the GPU rows)")
    ap.add_argument("--profile", action="store_true",
                    help="after each row, one compiled call with KILN_PROFILE set (on the GPU: "
                         "each kernel and cuBLAS call timed, on stderr)")
    ap.add_argument("--exe", help="a sweep already built (for --device cuda: with "
                                  "kiln compile --backend=cuda, as benchmarks/gpu/bundle.sh does)")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    only = set(filter(None, args.only.split(",")))
    gpu = args.device == "cuda"
    torch_side = torch_rows(args.device)
    if torch_side is None:
        print("PyTorch is not importable: the torch columns stay empty "
              "(bash benchmarks/torch_env.sh makes an environment that has it)", file=sys.stderr)
    sync = torch_side[0].cuda.synchronize if torch_side and gpu else None

    with tempfile.TemporaryDirectory() as work:
        if args.exe:
            exe = args.exe
        else:
            # --autocast: the autocast row's compiled side (twins of the
            # product graphs; the other rows run their plain versions).
            exe, compile_s = build(root, os.path.abspath(args.build), args.cxx, work,
                                   ["--backend=cuda"] if gpu else ["--autocast"])
            print(f"kiln compile of sweep.cpp: {compile_s:.1f} s", file=sys.stderr)
        kiln = Kiln(exe)
        bandwidth = float(kiln.ask("bandwidth")[0])
        print(f"read bandwidth: {bandwidth:.1f} GB/s", file=sys.stderr)
        if gpu:
            kiln.ask("device cuda")
        results = []
        for name, sizes, label in GPU_ROWS if gpu else ROWS:
            if only and name not in only:
                continue
            _, calls, diff = kiln.ask("setup " + name + " " + " ".join(map(str, sizes)))
            calls = int(calls)
            tfn = targs = tcomp = None
            if torch_side:
                torch, make = torch_side
                torch._dynamo.reset()
                tfn, targs = make(name, sizes)
                tcomp = torch.compile(tfn, dynamic=False)
                with torch.no_grad():
                    for arg_set in targs * 2:
                        tfn(*arg_set)
                        if tcomp:
                            try:
                                tcomp(*arg_set)
                            except Exception as e:  # a machine without Inductor's compilers
                                print(f"torch.compile failed on {label}: {e}", file=sys.stderr)
                                tcomp = None
            cols = {"ke": [], "kc": [], "te": [], "tc": []}
            for _ in range(args.reps):
                ke, kc = map(float, kiln.ask("time"))
                cols["ke"].append(ke)
                cols["kc"].append(kc)
                if tfn:
                    # Each side's OpenMP threads spin a while after its last
                    # parallel region (libomp's KMP_BLOCKTIME, 200 ms;
                    # libgomp's spin count), on the cores the other side
                    # is about to time: wait them out at every switch.
                    time.sleep(SETTLE_S)
                    with torch.no_grad():
                        cols["te"].append(per_call_us(tfn, targs, calls, sync))
                        if tcomp:
                            cols["tc"].append(per_call_us(tcomp, targs, calls, sync))
                    time.sleep(SETTLE_S)
            if args.profile:
                kiln.ask("profile")
            med = {k: statistics.median(v) if v else None for k, v in cols.items()}
            results.append((name, sizes, label, med, diff))
            print(f"{label}: kiln eager {fmt(med['ke'])}, compiled {fmt(med['kc'])}, "
                  f"torch {fmt(med['te'])}, torch.compile {fmt(med['tc'])} "
                  f"(max |compiled - eager| {diff})", file=sys.stderr)
        # Again at the end (the machine's bandwidth drifts): the better one.
        bandwidth = max(bandwidth, float(kiln.ask("bandwidth")[0]))

    print(f"CPU: {cpu_name()}\n")
    if gpu and torch_side:
        print(f"GPU: {gpu_name(torch_side[0])}; Kiln compiled and torch on the GPU, "
              "Kiln eager on the CPU.\n")
    print(f"Read bandwidth in the same run: {bandwidth:.1f} GB/s (all threads).\n")
    print("| workload | Kiln eager | Kiln compiled | torch eager | torch.compile "
          "| compiled / eager | compiled / torch.compile |")
    print("|---|---|---|---|---|---|---|")
    for name, sizes, label, m, _ in results:
        print(f"| {label} | {fmt(m['ke'])} | {fmt(m['kc'])} | {fmt(m['te'])} | {fmt(m['tc'])} "
              f"| {ratio(m['kc'], m['ke'])} | {ratio(m['kc'], m['tc'])} |")
    for name, sizes, label, m, _ in results:
        if name == "mlp_cold":
            gbs = MLP_WEIGHT_BYTES / (m["kc"] * 1e-6) / 1e9
            print(f"\n{label}: compiled streams the weights at {gbs:.1f} GB/s, "
                  f"{100 * gbs / bandwidth:.0f}% of the read bandwidth", end="")
    print()


if __name__ == "__main__":
    main()
