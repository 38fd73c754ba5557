//===- Pipelines.h - Kiln's compile sequence --------------------*- C++ -*-===//
//
// The one way to compile a module of kiln-dialect graphs (lowerModule),
// and the registration of Kiln's passes and pipelines (built in
// lib/Codegen/{Common,CPU,GPU}/Passes.cpp) for kiln-opt.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Pipelines/Backend.h"

#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>

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

/// The one compile sequence of the driver, kiln-e2e and the benchmarks:
/// runs the backend's pipeline on `module`, in place, up to `stage`.
/// Failures are reported through the context's diagnostics.
LogicalResult lowerModule(ModuleOp module, const CompileOptions &options,
                          Stage stage = Stage::LLVMDialect);

/// Registers the pipelines with the pass registry (for kiln-opt).
void registerKilnPipelines();

/// What every tool that compiles graphs needs: upstream's dialects and
/// extensions and the kiln dialect in `registry`, and every upstream and
/// Kiln pass and pipeline in the pass registry (for textual pipelines:
/// kiln-opt, --debug-dir's reproducers).
void registerKilnCompiler(DialectRegistry &registry);

} // namespace mlir::kiln

#endif
