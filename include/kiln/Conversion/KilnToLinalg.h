//===- KilnToLinalg.h - kiln to linalg patterns -----------------*- C++ -*-===//
#ifndef KILN_CONVERSION_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_H

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

} // namespace mlir::kiln

#endif
