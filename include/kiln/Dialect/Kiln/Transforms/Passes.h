//===- Passes.h - Transforms of the kiln dialect ----------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

/// The argument attribute of a backward's argument that says whether the
/// gradient it returns as result `k` (the attribute's value) is needed.
constexpr llvm::StringLiteral kGradientNeedAttrName = "kiln.gradient_need";
/// The result attribute of a backward's gradient that lists the result
/// gradients it is made of (their indices among the gradient arguments)
/// where it is not made of all of them: where none of them arrived, eager
/// autograd would leave it undefined.
constexpr llvm::StringLiteral kGradientSourcesAttrName =
    "kiln.gradient_sources";
/// The argument attribute that gives an open argument its type for
/// kiln-refine-types.
constexpr llvm::StringLiteral kTypeAttrName = "kiln.type";

/// kiln-decompose-composites' patterns: each composite op written with the
/// ops that compute it, on known types.
void populateDecomposeCompositesPatterns(RewritePatternSet &patterns);

/// op's results take the types its InferTypeOpInterface gives on its
/// operands as they are now; fails (with the op's diagnostic) where they
/// do not fit.
LogicalResult inferResultTypes(InferTypeOpInterface op);

/// One op typed from its operands' types: its dims counted from 0
/// (DimsOpInterface), its results inferred again (InferTypeOpInterface), or
/// the types it states completed from its input (an expand's `-1` sizes,
/// written as kiln.dim of its input, static where that dim is). What the
/// source writes with torch's meaning takes the dialect's form: a squeeze
/// of a dim of known size other than 1 becomes a copy, a scan of integers
/// scans them cast to i64, the arms of a select
/// of tensors are cast to what both promise. Returns the op now in its
/// place; fails with the op's diagnostic where its operands do not fit or
/// a result stays open.
FailureOr<Operation *> refineOp(Operation *op);

/// kiln-refine-types on one function: its arguments take the types their
/// `kiln.type` attributes give (the attributes are dropped), every result
/// is inferred again in order and each op verified; the function's type
/// follows. Fails, with the op's diagnostic, where an op cannot take the
/// types or a type stays open.
LogicalResult refineTypes(func::FuncOp fn);

/// Reverse-mode differentiation of a graph function (kiln-differentiate):
/// a function `name` of fn's arguments followed by one gradient for each of
/// fn's floating-point tensor results, then per gradient an i64 that is
/// nonzero when it arrived (a result that reached no loss comes in as
/// zeros, its flag 0), returning the gradient of each of fn's
/// floating-point tensor arguments (kGradientSourcesAttrName on those not
/// made of every result's gradient):
/// fn's body recomputed, then each op's GradientOpInterface in reverse order
/// (the joint graph). An op reached from some of the results only gives the
/// gradients that read the forward when one of those arrived, as eager runs
/// its formula then only. Fails, with the op's diagnostic, where a gradient
/// flows into an op that has none.
FailureOr<func::FuncOp> buildBackward(func::FuncOp fn, StringRef name);

namespace detail {
/// buildBackward's joint graph, returning fn's results before the
/// gradients when withResults is set.
FailureOr<func::FuncOp> buildJoint(func::FuncOp fn, StringRef name,
                                   bool withResults);
} // namespace detail

/// What a partitioned forward saves for its backward: one of fn's
/// arguments (kept by the caller), one of fn's results, or an extra result
/// of the forward (after fn's). An extra scalar (`scalar`) is returned as a
/// 0-d tensor and passed to the backward as a scalar argument again (an
/// index as i64).
struct SavedValue {
  enum class From { Argument, Result, Extra } from;
  unsigned index;
  bool scalar = false;
};

/// A graph function's training pair (AOTAutograd's partitioned graphs).
struct ForwardBackward {
  /// fn's arguments in; fn's results, then the extra saved values, out.
  func::FuncOp forward;
  /// The saved values in `saved`'s order, then one gradient per
  /// floating-point tensor result of fn and per such gradient whether it
  /// arrived (buildBackward's), then per gradient it returns an
  /// i64 that is nonzero when that gradient is needed, in; the gradient of
  /// each floating-point tensor argument of fn out (kGradientSourcesAttrName
  /// where not made of every result's). Each need argument
  /// carries kGradientNeedAttrName, the index of the result it guards: a
  /// compiled backward skips what only unneeded gradients read
  /// (kiln-skip-unneeded-gradients), returning unspecified values for them.
  func::FuncOp backward;
  SmallVector<SavedValue> saved;
  /// Per gradient the backward returns, the result gradients it is made
  /// of; empty where each is made of all of them.
  SmallVector<SmallVector<unsigned>> gradientSources;
  /// fn's arguments and results whose elements eager autograd would keep
  /// for the backward: those the joint graph's backward reads, or that
  /// share elements with one it reads (a view of it, or it of them). The
  /// caller checks at backward that no in-place op changed them since the
  /// forward, as eager's saved tensors do, whatever the partition saved.
  SmallVector<unsigned> checkedArguments, checkedResults;
  /// The bytes of the extra saved values (what saving adds to the
  /// arguments and results, which exist anyway), and the ops of the
  /// forward the backward
  /// computes again (ops that both run) with their results' bytes (each
  /// dynamic dim counted as kDynamicSizeEstimate).
  int64_t savedBytes = 0, recomputedBytes = 0;
  unsigned recomputedOps = 0;
};

/// The size a dynamic dim counts as where the partitioner weighs values.
constexpr int64_t kDynamicSizeEstimate = 128;

/// fn's joint graph (buildBackward) split in two by AOTAutograd's min-cut
/// rematerialization: the values the backward reads of the forward are cut
/// from the arguments at the least saved bytes, products, attention, scans
/// and reductions that shrink their input four times or more being
/// computed once in the forward, the cheap ops between a saved value and
/// the backward computed again there. Fails as buildBackward does.
FailureOr<ForwardBackward> buildForwardBackward(func::FuncOp fn,
                                                StringRef forwardName,
                                                StringRef backwardName);

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

} // namespace mlir::kiln

#endif
