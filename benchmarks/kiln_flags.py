"""The compiler flags that build a program against Kiln's build tree, for
the benchmark scripts: its headers, the runtime, and (for the stitched
output of `kiln compile`, whose kernels use OpenMP) LLVM's libomp."""
import os

LIBOMP_DIR = "/usr/lib/llvm-22/lib"


def kiln_flags(root, build):
    """(includes, runtime link, kernel link) for source tree root and build
    directory build (both absolute)."""
    runtime = os.path.join(build, "lib", "Runtime")
    includes = ["-I" + os.path.join(root, "include"), "-I" + os.path.join(build, "include")]
    link = ["-L" + runtime, "-lkiln_runtime", "-Wl,-rpath," + runtime]
    kernel_link = ["-L" + LIBOMP_DIR, "-lomp", "-Wl,-rpath," + LIBOMP_DIR]
    return includes, link, kernel_link
