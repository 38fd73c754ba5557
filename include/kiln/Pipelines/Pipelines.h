//===- Pipelines.h - Kiln's compile sequence --------------------*- C++ -*-===//
//
// The one way to compile modules of kiln-dialect graphs (compileModules:
// lowerModule, then emitObject), and the registration of Kiln's passes and pipelines (built in
// lib/Codegen/{Common,CPU,GPU}/Passes.cpp) for kiln-opt.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Pipelines/Backend.h"
#include "kiln/Target/CUDA.h"
#include "kiln/Target/Host.h"

#include "mlir/Support/LLVM.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

/// How far lowerModule takes a module of kiln-dialect graphs.
enum class Stage {
  Kiln,        // as built (nothing runs)
  Linalg,      // buildKilnToLinalgPipeline
  LLVMDialect, // the backend's whole pipeline: ready for emitObject
};

struct CompileOptions {
  /// cpu or cuda (eager graphs are not compiled).
  Backend backend = Backend::Cpu;
  CpuPipelineOptions cpu;
  GpuPipelineOptions gpu;
  /// Receives the module after every pass that changed it (--debug-dir).
  llvm::raw_ostream *afterEachPass = nullptr;
  /// When set, builds the pipeline instead of the backend's (kiln-e2e's
  /// GPU mapping run on the CPU, from test/lib).
  std::function<void(OpPassManager &)> pipeline;
};

/// Runs the backend's pipeline on `module`, in place, up to `stage`.
/// Failures are reported through the context's diagnostics.
LogicalResult lowerModule(ModuleOp module, const CompileOptions &options,
                          Stage stage = Stage::LLVMDialect);

struct ObjectOptions {
  CodegenOptions codegen;
  /// The optimized LLVM IR as text instead of an object file.
  bool llvmIR = false;
  /// When set, the images of gpu.binary ops stay out of the object
  /// (collectDeviceImages): their symbols get this prefix and
  /// CompiledObject::deviceImages holds them.
  std::optional<std::string> imagePrefix;
  /// Called as each step begins (kiln compile --time-report).
  std::function<void(llvm::StringRef step)> beforeStep;
};

struct CompiledObject {
  /// The object file, or the LLVM IR text.
  std::string bytes;
  std::vector<DeviceImage> deviceImages;
};

/// The one compile sequence of `kiln compile`, `kiln codegen`, kiln-e2e
/// and the benchmarks: each module lowered in place by the pipeline of its
/// options (lowerModule, to the LLVM dialect), then all of them emitted as
/// one object (emitObject). The error says which step failed; diagnostics
/// went to the context.
llvm::Expected<CompiledObject>
compileModules(ArrayRef<ModuleOp> modules, ArrayRef<CompileOptions> options,
               const ObjectOptions &object = {});
llvm::Expected<CompiledObject> compileModule(ModuleOp module,
                                             const CompileOptions &options,
                                             const ObjectOptions &object = {});

/// Registers the pipelines with the pass registry (for kiln-opt).
void registerKilnPipelines();

/// What every tool that compiles graphs needs: upstream's dialects and
/// extensions and the kiln dialect in `registry`, and every upstream and
/// Kiln pass and pipeline in the pass registry (for textual pipelines:
/// kiln-opt, --debug-dir's reproducers).
void registerKilnCompiler(DialectRegistry &registry);

} // namespace mlir::kiln

#endif
