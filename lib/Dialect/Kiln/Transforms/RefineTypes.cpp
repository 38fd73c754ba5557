//===- RefineTypes.cpp - A graph typed from its arguments' types ----------===//
//
// kiln-refine-types (Passes.td): the graph traced on open types is typed
// by inferring each op's results again, in order, from its operands' new
// types with the op's own InferTypeOpInterface, as TOSA's shape inference
// refines unranked tensors; each op is then verified on what it now has.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNREFINETYPES
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
namespace k = mlir::kiln;

namespace {

/// The stated result type of one of the ops that state theirs, completed
/// from its input's type.
Type completeStated(Operation *op, Type stated) {
  Type input = op->getOperand(0).getType();
  auto ranked = dyn_cast<RankedTensorType>(stated);
  return TypeSwitch<Operation *, Type>(op)
      // A cast keeps its input's shape.
      .Case([&](k::CastOp) -> Type {
        auto in = dyn_cast<RankedTensorType>(input);
        if (!in || ranked)
          return stated;
        return in.clone(cast<TensorType>(stated).getElementType());
      })
      // Reshapes and slices keep their input's element type.
      .Case<k::ReshapeOp, k::ExpandOp, k::SliceOp>([&](Operation *) -> Type {
        auto in = dyn_cast<TensorType>(input);
        if (!ranked || !in || k::isOpenTensor(in))
          return stated;
        return ranked.clone(in.getElementType());
      })
      .Default([&](Operation *) { return stated; });
}

} // namespace

LogicalResult mlir::kiln::refineOp(Operation *op) {
  if (auto dims = dyn_cast<k::DimsOpInterface>(op))
    dims.normalizeDims();
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
      result.setType(type);
  } else {
    for (OpResult result : op->getResults())
      if (k::isOpenTensor(result.getType()))
        result.setType(completeStated(op, result.getType()));
  }
  for (Type t : op->getResultTypes())
    if (k::isOpenTensor(t))
      return op->emitOpError("cannot know its result type: ")
             << t << " stays open";
  return success();
}

namespace {

struct KilnRefineTypesPass
    : mlir::kiln::impl::KilnRefineTypesBase<KilnRefineTypesPass> {
  void runOnOperation() override {
    if (failed(k::refineTypes(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::kiln::refineTypes(func::FuncOp fn) {
  if (fn.isExternal())
    return success();
  Block &entry = fn.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    auto stated =
        fn.getArgAttrOfType<TypeAttr>(arg.getArgNumber(), kTypeAttrName);
    if (!stated)
      continue;
    arg.setType(stated.getValue());
    fn.removeArgAttr(arg.getArgNumber(), kTypeAttrName);
  }
  for (BlockArgument arg : entry.getArguments())
    if (isOpenTensor(arg.getType()))
      return fn.emitOpError("argument ")
             << arg.getArgNumber() << " is open: give it a `" << kTypeAttrName
             << "`";
  Operation *terminator = entry.getTerminator();
  WalkResult walked = fn.getBody().walk([&](Operation *op) {
    if (op == terminator)
      return WalkResult::advance(); // verified with the function's type
    if (failed(refineOp(op)) || failed(verify(op, /*verifyRecursively=*/false)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  fn.setType(FunctionType::get(fn.getContext(), entry.getArgumentTypes(),
                               terminator->getOperandTypes()));
  return verify(terminator, /*verifyRecursively=*/false);
}
