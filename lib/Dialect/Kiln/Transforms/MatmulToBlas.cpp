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

/// The external runtime function `name` with these argument types, declared
/// once per module with a C interface.
func::FuncOp declareRuntimeFunction(ModuleOp module, StringRef name,
                                    TypeRange args) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder top(module.getBodyRegion());
  auto fn = func::FuncOp::create(top, module.getLoc(), name,
                                 FunctionType::get(module.getContext(), args, {}));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  return fn;
}

MemRefType stridedMatrix(Type element) {
  return MemRefType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, element,
      StridedLayoutAttr::get(element.getContext(), ShapedType::kDynamic,
                             {ShapedType::kDynamic, ShapedType::kDynamic}));
}

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type ? v
                             : memref::CastOp::create(b, loc, type, v).getResult();
}

bool isBlasElement(Type e) { return e.isF32() || e.isF64(); }

/// `linear`'s contraction, y[..., o] += x[..., k] * w[o, k], on buffers: the
/// maps of x, w and y over loops (lead..., o, k).
bool isLinear(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  unsigned loops = op.getNumLoops();
  if (loops < 3 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> lead;
  for (unsigned d = 0; d + 2 < loops; ++d)
    lead.push_back(getAffineDimExpr(d, ctx));
  AffineExpr o = getAffineDimExpr(loops - 2, ctx), k = getAffineDimExpr(loops - 1, ctx);
  SmallVector<AffineExpr> x(lead), y(lead);
  x.push_back(k);
  y.push_back(o);
  SmallVector<AffineMap> want = {AffineMap::get(loops, 0, x, ctx),
                                 AffineMap::get(loops, 0, {o, k}, ctx),
                                 AffineMap::get(loops, 0, y, ctx)};
  Type e = cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  return isBlasElement(e) && op.getIndexingMapsArray() == want;
}

struct KilnMatmulToBlasPass
    : mlir::kiln::impl::KilnMatmulToBlasBase<KilnMatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    SmallVector<linalg::GenericOp> linears;
    module.walk([&](Operation *op) {
      if (auto mm = dyn_cast<linalg::MatmulOp>(op)) {
        Type e = cast<ShapedType>(mm.getDpsInits()[0].getType()).getElementType();
        // Plain C += A * B on memrefs (no transposed maps, no casts).
        if (mm.hasPureBufferSemantics() && isBlasElement(e) &&
            mm.getIndexingMapsArray() ==
                mm.getDefaultIndexingMaps(mm.getContext()))
          matmuls.push_back(mm);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        if (isLinear(generic))
          linears.push_back(generic);
      }
    });
    for (linalg::MatmulOp op : matmuls) {
      OpBuilder b(op);
      Type e = cast<ShapedType>(op.getDpsInits()[0].getType()).getElementType();
      MemRefType m = stridedMatrix(e);
      func::FuncOp fn = declareRuntimeFunction(
          module, e.isF32() ? "kiln_gemm_f32" : "kiln_gemm_f64", {m, m, m});
      func::CallOp::create(
          b, op.getLoc(), fn,
          ValueRange{castTo(b, op.getLoc(), op.getDpsInputs()[0], m),
                     castTo(b, op.getLoc(), op.getDpsInputs()[1], m),
                     castTo(b, op.getLoc(), op.getDpsInits()[0], m)});
      op.erase();
    }
    // linear: x and y of any rank travel as unranked memrefs; the runtime
    // folds their leading dims into the rows of one gemm when it can.
    for (linalg::GenericOp op : linears) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Type e = cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
      auto unranked = UnrankedMemRefType::get(e, 0);
      MemRefType m = stridedMatrix(e);
      func::FuncOp fn = declareRuntimeFunction(
          module, e.isF32() ? "kiln_linear_f32" : "kiln_linear_f64",
          {unranked, m, unranked});
      func::CallOp::create(
          b, loc, fn,
          ValueRange{castTo(b, loc, op.getDpsInputs()[0], unranked),
                     castTo(b, loc, op.getDpsInputs()[1], m),
                     castTo(b, loc, op.getDpsInits()[0], unranked)});
      op.erase();
    }
  }
};
} // namespace
