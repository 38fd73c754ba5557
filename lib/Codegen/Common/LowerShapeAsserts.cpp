//===- LowerShapeAsserts.cpp - cf.assert -> the entry point's status ------===//
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
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
    if (llvm::any_of(body.getOps<cf::AssertOp>(), [](cf::AssertOp check) {
          return matchPattern(check.getArg(), m_Zero());
        })) {
      alwaysFails(fn);
      return;
    }
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
    appendStatusResult(fn);
  }

  static void appendStatusResult(func::FuncOp fn) {
    SmallVector<Type> resultTypes(fn.getResultTypes());
    resultTypes.push_back(IntegerType::get(fn.getContext(), 32));
    fn.setType(
        FunctionType::get(fn.getContext(), fn.getArgumentTypes(), resultTypes));
  }

  // A check that folded to false fails every call (a select of index 0 on
  // a dim of static size 0, say): the graph call reports failure and eager
  // raises its error. The code after such a check never runs, and its
  // shapes contradict each other (a slice of one element out of none), so
  // it is dropped before bufferization folds it into invalid IR. The
  // results are empty placeholders nobody reads.
  static void alwaysFails(func::FuncOp fn) {
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Location loc = ret.getLoc();
    ret.erase();
    while (!body.empty())
      body.back().erase();
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    SmallVector<Value> results;
    for (Type type : fn.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor) {
        results.push_back(
            arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type)));
        continue;
      }
      SmallVector<int64_t> shape;
      for (int64_t size : tensor.getShape())
        shape.push_back(ShapedType::isDynamic(size) ? 0 : size);
      Value empty =
          tensor::EmptyOp::create(b, loc, shape, tensor.getElementType());
      results.push_back(
          tensor::CastOp::create(b, loc, tensor, empty).getResult());
    }
    results.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
    func::ReturnOp::create(b, loc, results);
    appendStatusResult(fn);
  }
};
} // namespace
