#!/usr/bin/env python3
"""Compile time against graph size, and the compile cache.

A GRU unrolled over 4, 8 and 16 steps (examples/zoo/gru.cpp with the step
loop's trip count a constant, so that the tracer unrolls it into one graph
of about 25 ops a step) is compiled with `kiln compile --time-report`:
first without the cache, then twice with an empty cache of its own (a miss,
then a hit). Prints the graph's op count, each phase's seconds and the
totals (docs/benchmarks.md, "Compile time").

    python3 benchmarks/compile_time.py [--kiln build/bin/kiln] [--steps 4,8,16]
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(HERE, "..", "examples", "zoo")
GRU = os.path.join(ZOO, "gru.cpp")
# The copy compiles outside the zoo: its own headers come from there.
CLANG_FLAGS = ["--", "-I" + os.path.abspath(ZOO)]
RUN_TIME_STEPS = "int64_t steps = xs.size(1);"


def compile_once(kiln, src, out, env, extra):
    p = subprocess.run([kiln, "compile", src, "-o", out, "--time-report"] + extra + CLANG_FLAGS,
                       env=env, capture_output=True, text=True, check=True)
    phases = {}
    for line in p.stderr.splitlines():
        m = re.match(r"\s+(.+?)\s+([0-9.]+) s$", line)
        if m:
            phases[m.group(1)] = float(m.group(2))
    return phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kiln", default="kiln")
    ap.add_argument("--steps", default="4,8,16")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kiln-compile-time-")
    try:
        print("| steps | ops | parse and trace | cpu pipeline | LLVM O3 and object | total | "
              "cached: miss | cached: hit |")
        print("|---|---|---|---|---|---|---|---|")
        for steps in [int(s) for s in args.steps.split(",")]:
            src = os.path.join(work, "gru%d.cpp" % steps)
            with open(GRU) as f:
                gru = f.read()
            assert RUN_TIME_STEPS in gru
            with open(src, "w") as f:
                f.write(gru.replace(RUN_TIME_STEPS, "const int64_t steps = %d;" % steps))
            subprocess.run([args.kiln, "compile", src, "-o", src + ".mlir",
                            "--emit=kiln"] + CLANG_FLAGS, capture_output=True, text=True,
                           check=True)
            with open(src + ".mlir") as f:
                ops = sum(1 for line in f if re.search(r"= kiln\.", line))
            env = dict(os.environ)
            t = compile_once(args.kiln, src, os.path.join(work, "a.cpp"), env, ["--no-cache"])
            env["KILN_CACHE_DIR"] = os.path.join(work, "cache%d" % steps)
            miss = compile_once(args.kiln, src, os.path.join(work, "b.cpp"), env, [])
            hit = compile_once(args.kiln, src, os.path.join(work, "c.cpp"), env, [])
            print("| %d | %d | %.2f s | %.2f s | %.2f s | %.2f s | %.2f s | %.2f s |" % (
                steps, ops, t.get("parse and trace (Clang)", 0),
                t.get("cpu pipeline (kiln -> LLVM dialect)", 0),
                t.get("LLVM O3 and object emission", 0), t["total"], miss["total"],
                hit["total"]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
