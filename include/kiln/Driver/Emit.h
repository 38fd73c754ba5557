//===- kiln/Driver/Emit.h - What --emit writes ------------------*- C++ -*-===//
//
// The stages `kiln compile` and `kiln codegen` can write (--emit), named
// once for both: the same name is the same stage in either.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_EMIT_H
#define KILN_DRIVER_EMIT_H

#include "kiln/Pipelines/Pipelines.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

enum class Emit {
  Cpp,         // kiln compile's stitched source, the object beside it
  Kiln,        // the kiln dialect, as built (compile) or as read (codegen)
  Linalg,      // after kiln-to-linalg-pipeline
  LLVMDialect, // after the backend's whole pipeline
  LLVM,        // optimized LLVM IR
  Object,      // the object file
  Device,      // the cuda kernels' binary (PTX text for --cuda-format=ptx)
  PTX,         // the cuda kernels as PTX text, whatever --cuda-format says
};

struct EmitName {
  const char *name;
  Emit emit;
  const char *what;
};

/// Every --emit value, in the order --help lists them.
const std::vector<EmitName> &emitNames();

/// The name of `emit` (its first in emitNames).
const char *emitName(Emit emit);

/// The lowering stage `emit` prints, for the MLIR stages (kiln, linalg,
/// llvm-dialect); nullopt for the others.
std::optional<mlir::kiln::Stage> mlirStage(Emit emit);

} // namespace kiln::driver

#endif
