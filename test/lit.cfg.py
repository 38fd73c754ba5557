# lit configuration for Kiln's compiler tests (run through ctest or
# `lit -sv build/test`).
import os
import shutil
import sys

import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".cpp", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

# Kiln's tools first, then LLVM's (FileCheck, not, count).
config.environment["PATH"] = os.pathsep.join(
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

include = os.path.join(config.kiln_src_root, "include")
gen_include = os.path.join(config.kiln_obj_root, "include")
config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%kiln_includes", f"-I{include} -I{gen_include}"))
sanitize_flags = f"-fsanitize={config.sanitize}" if config.sanitize else ""
config.substitutions.append(
    ("%kiln_link", f"-L{config.kiln_runtime_dir} -lkiln_runtime "
                   f"-Wl,-rpath,{config.kiln_runtime_dir} {sanitize_flags}"))
# kiln-e2e instruments the graphs it compiles with ASan in an ASan build.
config.substitutions.append(
    ("%e2e_flags", "--sanitize-address" if "address" in config.sanitize else ""))
config.substitutions.append(("%clangxx", config.cxx_compiler))
# What a program linking Kiln's compiled kernels needs besides the runtime:
# libomp (the kernels' OpenMP calls), for clang++ and g++ alike.
omp_dir = os.path.dirname(config.libomp)
config.substitutions.append(
    ("%kernel_link", f"-L{omp_dir} -lomp -Wl,-rpath,{omp_dir}"))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%compare", f"{sys.executable} {os.path.join(config.kiln_src_root, 'test', 'Frontend', 'Inputs', 'compare.py')}"))

# The compilers a user might build model code with; each available one is a
# lit feature so tests can REQUIRES: it.
# (Not in a sanitizer build: g++'s sanitizer runtime is not clang's.)
gxx = shutil.which("g++")
if gxx and not config.sanitize:
    config.available_features.add("gxx")
    config.substitutions.append(("%gxx", gxx))
if "clang" in os.path.basename(config.cxx_compiler):
    config.available_features.add("clangxx")
