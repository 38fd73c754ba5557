//===- Passes.h - Kiln's GPU codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_GPU_PASSES_H
#define KILN_CODEGEN_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/GPU/Passes.h.inc"

} // namespace mlir::kiln

#endif
