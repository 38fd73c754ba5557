# lit configuration for Kiln's compiler tests (run through ctest or
# `lit -sv build/test`).
import os
import platform
import shutil
import subprocess
import sys

import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".cpp", ".test", ".td"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "lib",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

# Kiln's tools first, then LLVM's (FileCheck, not, count).
config.environment["PATH"] = os.pathsep.join(
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# kiln compile's cache (docs/building.md) in the build tree, not the user's
# home: tests that compile the same roots share it (a hit writes the object
# a miss would); test/Driver/compile-cache.test uses caches of its own.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.kiln_obj_root, "test", "kiln-cache")

include = os.path.join(config.kiln_src_root, "include")
gen_include = os.path.join(config.kiln_obj_root, "include")
config.substitutions.append(("%kiln_src", config.kiln_src_root))
# What kiln-tblgen's tests include: upstream's ODS and Kiln's.
config.substitutions.append(
    ("%tblgen_includes",
     f"-I{config.mlir_include_dir} -I{os.path.join(config.kiln_src_root, 'mlir-dialects')}"))
config.substitutions.append(("%kiln_tools", config.kiln_tools_dir))
config.substitutions.append(("%kiln_includes", f"-I{include} -I{gen_include}"))
sanitize_flags = f"-fsanitize={config.sanitize}" if config.sanitize else ""
config.substitutions.append(
    ("%kiln_link", f"-L{config.kiln_runtime_dir} -lkiln_runtime "
                   f"-Wl,-rpath,{config.kiln_runtime_dir} {sanitize_flags}"))
# kiln-e2e instruments the graphs it compiles with ASan in an ASan build.
config.substitutions.append(
    ("%e2e_flags", "--sanitize-address" if "address" in config.sanitize else ""))
config.substitutions.append(("%clangxx", config.cxx_compiler))
# The stand-in CUDA driver of the runtime's tests (device memory is host
# memory, no kernels run), for the GPU pipeline's host side.
config.substitutions.append(
    ("%fake_libcuda",
     os.path.join(config.kiln_obj_root, "test", "unit", "libkiln_fake_cuda.so")))
# What a program linking Kiln's compiled kernels needs besides the runtime:
# libomp (the kernels' OpenMP calls), for clang++ and g++ alike.
omp_dir = os.path.dirname(config.libomp)
config.substitutions.append(
    ("%kernel_link", f"-L{omp_dir} -lomp -Wl,-rpath,{omp_dir}"))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%compare", f"{sys.executable} {os.path.join(config.kiln_src_root, 'test', 'Frontend', 'Inputs', 'compare.py')}"))

# A model source built eagerly and through kiln compile: same output, every
# graph call compiled (test/Frontend/Inputs/matches-eager.sh).
config.substitutions.append(
    ("%matches_eager",
     f"bash {os.path.join(config.kiln_src_root, 'test', 'Frontend', 'Inputs', 'matches-eager.sh')} "
     f"{config.cxx_compiler} '-I{include} -I{gen_include}' "
     f"'-L{config.kiln_runtime_dir} -lkiln_runtime -Wl,-rpath,{config.kiln_runtime_dir} {sanitize_flags}' "
     f"'-L{omp_dir} -lomp -Wl,-rpath,{omp_dir}'"))

# The differential tester (test/fuzz/kiln_fuzz.py) with this build's kiln,
# compiler and link lines.
config.substitutions.append(
    ("%kiln_fuzz",
     f"{sys.executable} {os.path.join(config.kiln_src_root, 'test', 'fuzz', 'kiln_fuzz.py')} "
     f"--kiln {os.path.join(config.kiln_tools_dir, 'kiln')} --cxx {config.cxx_compiler} "
     f"--includes '-I{include} -I{gen_include}' "
     f"--link '-L{config.kiln_runtime_dir} -lkiln_runtime -Wl,-rpath,{config.kiln_runtime_dir} "
     f"{sanitize_flags} -L{omp_dir} -lomp -Wl,-rpath,{omp_dir}'"))

# The frontend's libFuzzer target, built in sanitizer builds
# (KILN_FRONTEND_FUZZER).
if os.access(os.path.join(config.kiln_tools_dir, "kiln-fuzz-frontend"), os.X_OK):
    config.available_features.add("frontend-fuzzer")

# The compilers a user might build model code with; each available one is a
# lit feature so tests can REQUIRES: it.
# (Not in a sanitizer build: g++'s sanitizer runtime is not clang's.)
gxx = shutil.which("g++")
if gxx and not config.sanitize:
    config.available_features.add("gxx")
    config.substitutions.append(("%gxx", gxx))
if "clang" in os.path.basename(config.cxx_compiler):
    config.available_features.add("clangxx")

# The runtime built for x86-64-v2 with its loop bodies' AVX2 and AVX-512
# copies (lib/Runtime/Core/Parallel.h), rather than for one -march. (Not in
# a sanitizer build: UBSan's checks keep loops such as exp's from
# vectorizing, so the copies' widths say nothing there.)
if config.runtime_arch == "x86-64-v2" and platform.machine() in ("x86_64", "AMD64") \
        and not config.sanitize:
    config.available_features.add("runtime-isa-copies")
config.substitutions.append(
    ("%kiln_runtime_library",
     os.path.join(config.kiln_runtime_dir, "libkiln_runtime.so")))

# The CUDA toolkit's assembler, to validate generated PTX (feature ptxas).
cuda_roots = [os.environ[v] for v in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")
              if os.environ.get(v)] + ["/usr/local/cuda"]
ptxas = next((p for p in (os.path.join(r, "bin", "ptxas") for r in cuda_roots)
              if os.access(p, os.X_OK)), shutil.which("ptxas"))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    # CUDA 13's ptxas no longer assembles for Volta (sm_70, sm_72).
    help_text = subprocess.run([ptxas, "--help"], capture_output=True,
                               text=True).stdout
    if "'sm_70'" not in help_text:
        config.available_features.add("ptxas-without-sm_70")


def cuda_gpu_present():
    """Whether the CUDA driver loads and sees a device (as the runtime asks)."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False, "the CUDA driver (libcuda.so.1) could not be loaded"
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 \
            or count.value == 0:
        return False, "no CUDA device"
    return True, ""


# GPU end-to-end tests run where a GPU is; elsewhere they are UNSUPPORTED
# (lit's skip) and this note says why. %cuda_run is the FileCheck prefix
# that checks how a cuda graph ran: GPU (compiled) or NOGPU (eager fallback).
gpu, why_not = cuda_gpu_present()
if gpu:
    config.available_features.add("cuda-gpu")
    config.substitutions.append(("%cuda_run", "GPU"))
else:
    config.substitutions.append(("%cuda_run", "NOGPU"))
    lit_config.note(f"skipped: no GPU ({why_not}): GPU end-to-end tests are "
                    "UNSUPPORTED; cuda graphs are checked to compile, pass "
                    "ptxas, link and fall back to eager")
