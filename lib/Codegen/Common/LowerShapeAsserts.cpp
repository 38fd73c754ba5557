//===- LowerShapeAsserts.cpp - cf.assert -> the entry point's status ------===//
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNLOWERSHAPEASSERTS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-lower-shape-asserts"

using namespace mlir;

namespace {
struct KilnLowerShapeAssertsPass
    : mlir::kiln::impl::KilnLowerShapeAssertsBase<KilnLowerShapeAssertsPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isPrivate() || fn.isExternal())
        continue;
      lowerAsserts(fn);
    }
  }

  static void lowerAsserts(func::FuncOp fn) {
    Block &body = fn.getBody().front();
    OpBuilder b(fn.getContext());
    // The conjunction of the top-level checks, in program order.
    Value ok;
    for (auto check : llvm::make_early_inc_range(body.getOps<cf::AssertOp>())) {
      b.setInsertionPoint(check);
      ok = ok ? arith::AndIOp::create(b, check.getLoc(), ok, check.getArg())
                    .getResult()
              : check.getArg();
      check.erase();
    }
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    b.setInsertionPoint(ret);
    Location loc = ret.getLoc();
    Value status;
    if (ok) {
      // status = ok ? 0 : 1
      Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
      Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
      status = arith::SelectOp::create(b, loc, ok, zero, one);
    } else {
      status = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    }
    SmallVector<Value> results(ret.getOperands());
    results.push_back(status);
    func::ReturnOp::create(b, loc, results);
    ret.erase();
    SmallVector<Type> resultTypes(fn.getResultTypes());
    resultTypes.push_back(b.getI32Type());
    fn.setType(
        FunctionType::get(fn.getContext(), fn.getArgumentTypes(), resultTypes));
  }
};
} // namespace
