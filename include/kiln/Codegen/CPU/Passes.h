//===- Passes.h - Kiln's CPU codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_CPU_PASSES_H
#define KILN_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/CPU/Passes.h.inc"

} // namespace mlir::kiln

#endif
