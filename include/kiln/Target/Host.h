//===- Host.h - In-process code emission for the host -----------*- C++ -*-===//
#ifndef KILN_TARGET_HOST_H
#define KILN_TARGET_HOST_H

#include "mlir/Support/LLVM.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class raw_pwrite_stream;
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::kiln {

struct CodegenOptions {
  /// Target triple; empty means the host's.
  std::string triple;
  /// CPU name, or a comma-separated list of them (cpuTargets); empty
  /// means the host CPU with its features.
  std::string cpu;
  /// Extra features ("+avx2,-avx512f"), appended to the CPU's.
  std::string features;
  /// Instrument the generated code with AddressSanitizer (the process that
  /// loads it must run the ASan runtime): for testing compiled graphs.
  bool sanitizeAddress = false;
  /// Runs on each module's LLVM IR right after translation (kiln/Target/
  /// CUDA.h's collectDeviceImages moves the GPU images out here).
  std::function<void(ModuleOp, llvm::Module &)> afterTranslation;
};

/// The CPUs code is compiled for: options.cpu's comma-separated names
/// ("x86-64-v3,sapphirerapids"; "native" is the host CPU), or one empty
/// name (the host) when it is empty. The object holds every graph compiled
/// for each; the i-th CPU's entry points end in kiln::cpuTargetSuffix(i)
/// (kiln/CpuTargets.h).
std::vector<std::string> cpuTargets(const CodegenOptions &options);

/// The CPU features code compiled with `options` may use: the host CPU's,
/// or the named CPU's (x86: what -march=CPU implies), with
/// options.features applied; the enabled ones, LLVM's names, sorted and
/// comma-separated; for a list of CPUs, one such list per CPU, joined by
/// '|'. Empty for targets other than x86. What the stitched guard checks
/// against the CPU a program runs on (kiln::abi::chooseCpuTarget picks
/// among a list's).
std::string cpuFeaturesFor(const CodegenOptions &options);
/// Whether LLVM knows `cpu` as a CPU of the host's architecture (x86:
/// x86-64-v3, skylake-avx512, znver4, ...), or it is "native".
bool isKnownCpu(llvm::StringRef cpu);

/// Translates a module in the LLVM dialect (after buildCpuPipeline or
/// buildGpuPipeline, whose gpu.binary becomes a global and the launches
/// calls of the mgpu* functions the runtime provides) to LLVM
/// IR, adds a packed entry point `kiln_entry_NAME(void **args)` for every C
/// wrapper `_mlir_ciface_NAME` (args[0] is the result location, then one
/// pointer per parameter: memref descriptors by address, scalars by address
/// of their value), optimizes at O3 for the target and writes an object file
/// (or, with emitLLVMIR, the optimized IR as text).
LogicalResult emitObject(ModuleOp module, const CodegenOptions &options,
                         llvm::raw_pwrite_stream &os, bool emitLLVMIR = false);
/// The same for several modules (the outputs of the CPU and the GPU
/// pipelines), linked into one object.
LogicalResult emitObject(ArrayRef<ModuleOp> modules,
                         const CodegenOptions &options,
                         llvm::raw_pwrite_stream &os, bool emitLLVMIR = false);

/// Writes `object` into workDir and links it into a shared library with
/// `linker` (a C++ compiler driver); returns the library's path. Its
/// kiln_entry_* symbols are then loaded with dlopen/dlsym; the runtime
/// (memrefCopy) and libomp must already be loaded in the process.
llvm::Expected<std::string> buildSharedLibrary(llvm::StringRef object,
                                               const std::string &workDir,
                                               const std::string &linker);

} // namespace mlir::kiln

#endif
