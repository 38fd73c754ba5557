//===- KilnToLinalg.h - kiln to linalg patterns -----------------*- C++ -*-===//
#ifndef KILN_CONVERSION_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// All kiln -> linalg/tensor/arith/math patterns, one family per file.
void populateKilnToLinalgPatterns(RewritePatternSet &patterns);

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(RewritePatternSet &patterns);
void populateScansToLinalgPatterns(RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns);
void populateLinearToLinalgPatterns(RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns);
void populatePoolingToLinalgPatterns(RewritePatternSet &patterns);
void populateConstantsToLinalgPatterns(RewritePatternSet &patterns);
void populateCallsToFuncPatterns(RewritePatternSet &patterns);
void populateAttentionToLoopsPatterns(RewritePatternSet &patterns);

/// Marks the linalg.generic that broadcasts an operand to its op's size
/// when the operand turns out smaller at run time (Broadcast.cpp): the CPU
/// pipeline runs it as one strided copy (kiln-broadcast-copies) instead of
/// a loop nest of its own; other pipelines lower it as any generic.
inline constexpr llvm::StringLiteral kBroadcastCopyAttrName =
    "kiln.broadcast_copy";

/// Marks a kiln.scaled_dot_product_attention that kiln-recognize-attention
/// made of attention written out: a query that attends to no key gives NaN,
/// as the softmax it replaced does, not zeros (kiln-attention-to-runtime on
/// the CPU, the loops of Attention.cpp elsewhere).
inline constexpr llvm::StringLiteral kNanWhenUnattendedAttrName =
    "kiln.nan_when_unattended";

} // namespace mlir::kiln

#endif
