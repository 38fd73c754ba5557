"""Checks libkiln_runtime's instruction set copies (lib/Runtime/Core/Parallel.h).

Disassembles the library and groups instructions by function: outside the
loop bodies' AVX2 and AVX-512 copies (runAvx2, runAvx512; and the
functions of `avx512bf16` namespaces, run only where the CPU has
AVX512-BF16) no function may touch a ymm or zmm register, so the library
runs on any x86-64-v2 CPU; the
AVX2 copies touch no zmm register; and the copies of the hottest kernels,
named on the command line as substrings of their demangled names, use ymm
(AVX2) and zmm (AVX-512) registers. And no copy calls a function of the
library that holds a vectorized loop (16 packed instructions or more) and
is no copy itself nor calls one (Kiln's functions: std::partial_sort is
not a kernel's helper): a kernel's helper left out of line runs
at the library's baseline whichever copy calls it (Parallel.h's
KILN_KERNEL_INLINE).

  isa_copies.py OBJDUMP CXXFILT LIBRARY KERNEL...
"""
import re
import subprocess
import sys

objdump, cxxfilt, library = sys.argv[1], sys.argv[2], sys.argv[3]
kernels = sys.argv[4:]
# Mangled names: a call's target is then one token (demangled template
# names hold '>' and spaces), PLT stubs' included (`name@plt`).
text = subprocess.run([objdump, "-d", "--no-show-raw-insn", library],
                      check=True, capture_output=True, text=True).stdout

functions = {}  # name -> set of register widths used
packed = {}  # name -> packed SSE/AVX instructions
calls = {}  # name -> names called
name = None
# Kiln's functions, local entities (lambdas) of them included.
KILN = re.compile(r"_Z+NK?4kiln")
PACKED = re.compile(r"\s(v?(mul|add|sub|fmadd\w*|max|min|div|cmp\w*|mov[au]|and|or|"
                    r"xor|blendv|sqrt)p[sd]|p(add|sub|mul|cmp|max|min|and|or|xor)\w*)\s")
for line in text.splitlines():
    m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
    if m:
        name = m.group(1)
        functions.setdefault(name, set())
        packed.setdefault(name, 0)
        calls.setdefault(name, set())
        continue
    if name is None or not line.startswith(" "):
        continue
    if PACKED.search(line):
        packed[name] += 1
    m = re.search(r"\scall\w*\s+\w+ <([^>@]+)", line)
    if m:
        calls[name].add(m.group(1))
    for width in ("ymm", "zmm"):
        if "%" + width in line:
            functions[name].add(width)

def copy_of(fn):
    # A function of an `avx512bf16` namespace runs only where the CPU has
    # AVX512-BF16 (fused attention's bfloat16 block products).
    if "9runAvx512I" in fn or "10avx512bf16" in fn:
        return "avx512"
    if "7runAvx2I" in fn:
        return "avx2"
    return None

# Demangled names, for the kernels named on the command line and messages.
names = list(functions)
demangled = dict(zip(names, subprocess.run(
    [cxxfilt], input="\n".join(names), check=True, capture_output=True,
    text=True).stdout.splitlines()))
failures = []
copies = {"avx2": 0, "avx512": 0}
for fn, widths in functions.items():
    isa = copy_of(fn)
    if isa:
        copies[isa] += 1
    if isa is None and widths:
        failures.append(f"{demangled[fn]} uses {sorted(widths)} outside the "
                        "ISA copies")
    if isa == "avx2" and "zmm" in widths:
        failures.append(f"{demangled[fn]} uses zmm in an AVX2 copy")
dispatchers = {fn for fn in functions
               if copy_of(fn) or any(copy_of(c) for c in calls[fn])}
for fn in functions:
    if copy_of(fn) == "avx512":
        for c in calls[fn]:
            # Kiln's own helpers (the C++ library's algorithms, which
            # the copies may call, are not kernels).
            if (c in functions and KILN.match(c) and c not in dispatchers
                    and packed[c] >= 16):
                failures.append(f"{demangled[fn]} calls {demangled[c]} "
                                f"({packed[c]} packed instructions) out of line")
for kernel in kernels:
    for isa, width in (("avx2", "ymm"), ("avx512", "zmm")):
        hits = [fn for fn, w in functions.items()
                if copy_of(fn) == isa and kernel in demangled[fn]]
        if not hits:
            failures.append(f"no {isa} copy of {kernel}")
        elif not any(width in functions[fn] for fn in hits):
            failures.append(f"the {isa} copies of {kernel} use no {width}")
print(f"{len(functions)} functions, {copies['avx2']} AVX2 copies, "
      f"{copies['avx512']} AVX-512 copies")
for f in failures:
    print("error:", f)
sys.exit(1 if failures else 0)
