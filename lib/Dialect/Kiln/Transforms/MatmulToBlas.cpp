//===- MatmulToBlas.cpp - linalg.matmul -> the runtime's BLAS gemm --------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMATMULTOBLAS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {
struct KilnMatmulToBlasPass
    : mlir::kiln::impl::KilnMatmulToBlasBase<KilnMatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      Type e = cast<ShapedType>(op.getDpsInits()[0].getType()).getElementType();
      // Plain C += A * B on memrefs (no transposed maps, no casts).
      if (op.hasPureBufferSemantics() && (e.isF32() || e.isF64()) &&
          op.getIndexingMapsArray() == op.getDefaultIndexingMaps(op.getContext()))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls) {
      OpBuilder b(op);
      Type e = cast<ShapedType>(op.getDpsInits()[0].getType()).getElementType();
      auto strided = MemRefType::get(
          {ShapedType::kDynamic, ShapedType::kDynamic}, e,
          StridedLayoutAttr::get(op.getContext(), ShapedType::kDynamic,
                                 {ShapedType::kDynamic, ShapedType::kDynamic}));
      std::string name = e.isF32() ? "kiln_gemm_f32" : "kiln_gemm_f64";
      auto fn = module.lookupSymbol<func::FuncOp>(name);
      if (!fn) {
        OpBuilder top(module.getBodyRegion());
        fn = func::FuncOp::create(
            top, op.getLoc(), name,
            FunctionType::get(op.getContext(), {strided, strided, strided}, {}));
        fn.setPrivate();
        fn->setAttr("llvm.emit_c_interface", UnitAttr::get(op.getContext()));
      }
      SmallVector<Value> args;
      for (Value v : {op.getDpsInputs()[0], op.getDpsInputs()[1],
                      op.getDpsInits()[0]})
        args.push_back(v.getType() == strided
                           ? v
                           : memref::CastOp::create(b, op.getLoc(), strided, v)
                                 .getResult());
      func::CallOp::create(b, op.getLoc(), fn, args);
      op.erase();
    }
  }
};
} // namespace
