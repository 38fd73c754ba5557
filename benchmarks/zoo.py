#!/usr/bin/env python3
"""The model zoo (examples/zoo/), eager against compiled, in one run.

For each model: `kiln compile --time-report` (its phases), a build of the
source as it is (eager) and of the stitched output (compiled), both with
clang++ -O2, then runs of the two programs alternated, `--reps` times each,
at sizes large enough for the forward pass to outweigh process start. The
times are whole-process wall times (start, weight initialisation and the
forward pass, the same work in both builds but for the forward pass), so
the ratio understates what compiling gains on the forward pass itself.

    python3 benchmarks/zoo.py [--build build] [--reps 5] [--only resnet,gru]

Prints a Markdown table (docs/benchmarks.md has one, with the machine).
Not a test: nothing is asserted.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from kiln_flags import kiln_flags

# Model, arguments of the timed runs (batch and size flags of each program).
MODELS = [
    ("gpt2", ["16", "64"]),
    ("encoder", ["16", "64"]),
    ("llama", ["8", "64"]),
    ("gru", ["64", "64"]),
    ("moe", ["8192"]),
    ("resnet", ["16", "32"]),
    ("diffusion", ["1024", "50"]),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--cxx", default="clang++-22")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.abspath(args.build)
    kiln = os.path.join(build, "bin", "kiln")
    includes, link, kernel_link = kiln_flags(root, build)
    only = set(filter(None, args.only.split(",")))

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, run_args in MODELS:
            if only and name not in only:
                continue
            src = os.path.join(root, "examples", "zoo", name + ".cpp")
            ref = os.path.join(work, name + ".ref")
            out = os.path.join(work, name + ".cpu.cpp")
            cpu = os.path.join(work, name + ".cpu")
            report = run([kiln, "compile", src, "-o", out, "--time-report"]).stderr
            phases = dict(
                (m.group(1).strip(), float(m.group(2)))
                for m in re.finditer(r"^\s+(.+?)\s+([0-9.]+) s$", report, re.M))
            run([args.cxx, "-std=c++17", "-O2", *includes, src, "-o", ref, *link])
            run([args.cxx, "-std=c++17", "-O2", *includes, out,
                 out[:-len(".cpp")] + ".o", "-o", cpu, *link, *kernel_link])
            # The two builds must agree before their times mean anything.
            if run([ref, *run_args]).stdout.split()[:3] != run([cpu, *run_args]).stdout.split()[:3]:
                print(f"{name}: the builds print different headers", file=sys.stderr)
            times = {"eager": [], "compiled": []}
            for _ in range(args.reps):
                for label, exe in (("eager", ref), ("compiled", cpu)):
                    start = time.perf_counter()
                    run([exe, *run_args])
                    times[label].append((time.perf_counter() - start) * 1e3)
            eager = statistics.median(times["eager"])
            compiled = statistics.median(times["compiled"])
            rows.append((name, " ".join(run_args), phases, eager, compiled))
            print(f"{name}: compile {phases.get('total', 0):.2f} s, eager {eager:.1f} ms, "
                  f"compiled {compiled:.1f} ms", file=sys.stderr)

    print("| model | args | parse and trace | cpu pipeline | LLVM and object | compile total "
          "| eager | compiled | eager / compiled |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, run_args, p, eager, compiled in rows:
        print(f"| {name} | {run_args} | {p.get('parse and trace (Clang)', 0):.2f} s "
              f"| {p.get('cpu pipeline (kiln -> LLVM dialect)', 0):.2f} s "
              f"| {p.get('LLVM O3 and object emission', 0):.2f} s | {p.get('total', 0):.2f} s "
              f"| {eager:.1f} ms | {compiled:.1f} ms | {eager / compiled:.2f}x |")


if __name__ == "__main__":
    main()
