//===- MaterializePromotions.cpp - Elementwise promotions as kiln.cast ----===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMATERIALIZEPROMOTIONS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-materialize-promotions"

using namespace mlir;
namespace k = mlir::kiln;

namespace {

/// Casts the tensor operands of `op` from `first` on to `element` (an
/// operand used twice, once).
void castOperands(Operation *op, Type element, unsigned first = 0) {
  OpBuilder b(op);
  llvm::SmallDenseMap<Value, Value> cast;
  for (OpOperand &operand : llvm::drop_begin(op->getOpOperands(), first)) {
    Value v = operand.get();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getElementType() == element)
      continue;
    Value &c = cast[v];
    if (!c)
      c = k::CastOp::create(b, op->getLoc(), type.clone(element), v);
    operand.set(c);
  }
}

/// Arithmetic on bools computes on i32: its result becomes i32 and is cast
/// back to i1 for its users.
void viaInt32(Operation *op) {
  Value result = op->getResult(0);
  auto boolType = cast<RankedTensorType>(result.getType());
  Type i32 = IntegerType::get(op->getContext(), 32);
  castOperands(op, i32);
  result.setType(boolType.clone(i32));
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  auto back = k::CastOp::create(b, op->getLoc(), boolType, result);
  result.replaceAllUsesExcept(back, back);
}

struct KilnMaterializePromotionsPass
    : mlir::kiln::impl::KilnMaterializePromotionsBase<
          KilnMaterializePromotionsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto cmp = dyn_cast<k::CmpOp>(op))
        return castOperands(op, k::promotedElementType(op->getOperands()));
      if (auto where = dyn_cast<k::WhereOp>(op))
        return castOperands(op, where.getType().getElementType(), 1);
      if (!op->hasTrait<k::trait::PromotesToResult>())
        return;
      Type element =
          cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
      if (element.isInteger(1) && op->getNumOperands() == 2)
        return viaInt32(op);
      castOperands(op, element);
    });
  }
};

} // namespace
