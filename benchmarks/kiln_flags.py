"""The compiler flags that build a program against Kiln's build tree, for
the benchmark scripts: its headers, the runtime, and (for the stitched
output of `kiln compile`, whose kernels use OpenMP) LLVM's libomp."""
import os
import subprocess
import time

LIBOMP_DIR = "/usr/lib/llvm-22/lib"


def kiln_flags(root, build):
    """(includes, runtime link, kernel link) for source tree root and build
    directory build (both absolute)."""
    runtime = os.path.join(build, "lib", "Runtime")
    includes = ["-I" + os.path.join(root, "include"), "-I" + os.path.join(build, "include")]
    link = ["-L" + runtime, "-lkiln_runtime", "-Wl,-rpath," + runtime]
    kernel_link = ["-L" + LIBOMP_DIR, "-lomp", "-Wl,-rpath," + LIBOMP_DIR]
    return includes, link, kernel_link


def build_stitched(root, build, cxx, src, work, name, kiln_args=(), cxx_args=()):
    """`kiln compile src` (with kiln_args) into work/NAME.cpp and its
    object, linked as work/NAME; returns (binary, the compile's seconds)."""
    kiln = os.path.join(build, "bin", "kiln")
    includes, link, kernel_link = kiln_flags(root, build)
    out = os.path.join(work, name + ".cpp")
    exe = os.path.join(work, name)
    start = time.perf_counter()
    subprocess.run([kiln, "compile", src, *kiln_args, "-o", out], check=True)
    seconds = time.perf_counter() - start
    subprocess.run([cxx, "-std=c++17", *cxx_args, *includes, out,
                    out[:-len(".cpp")] + ".o", "-o", exe, *link, *kernel_link],
                   check=True)
    return exe, seconds
