//===- Passes.h - Kiln's Common codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_COMMON_PASSES_H
#define KILN_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/Common/Passes.h.inc"

} // namespace mlir::kiln

#endif
