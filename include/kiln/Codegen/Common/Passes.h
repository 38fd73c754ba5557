//===- Passes.h - Kiln's Common codegen passes ------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_COMMON_PASSES_H
#define KILN_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/Common/Passes.h.inc"

/// kiln -> linalg on tensors, canonicalized, shape checks turned into the
/// entry points' status result (kiln-opt -kiln-to-linalg-pipeline).
void buildKilnToLinalgPipeline(OpPassManager &pm);

/// Elementwise fusion on tensors, then canonicalize and cse.
void addFusionPasses(OpPassManager &pm);

/// One-shot bufferization of whole modules: inputs arrive as strided
/// memrefs (any Tensor view), results are buffers the caller owns; every
/// public function gets a C wrapper, scf.forall loops become scf.parallel,
/// and buffers are deallocated.
void addBufferizationPasses(OpPassManager &pm);

} // namespace mlir::kiln

#endif
