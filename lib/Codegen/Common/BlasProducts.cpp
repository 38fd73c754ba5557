//===- BlasProducts.cpp - Products a BLAS library runs --------------------===//
#include "kiln/Codegen/Common/BlasProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The external runtime function `name` with these argument types (and for
/// cuda an i1 result: whether it ran), declared once per module with a C
/// interface.
func::FuncOp declareRuntimeFunction(ModuleOp module, StringRef name,
                                    TypeRange args, bool returnsDone = false) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder top(module.getBodyRegion());
  SmallVector<Type> results;
  if (returnsDone)
    results.push_back(IntegerType::get(module.getContext(), 1));
  auto fn = func::FuncOp::create(
      top, module.getLoc(), name,
      FunctionType::get(module.getContext(), args, results));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  return fn;
}

/// A memref of this rank with dynamic sizes and any strides.
MemRefType stridedMemRef(int64_t rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(dynamic, element,
                         StridedLayoutAttr::get(element.getContext(),
                                                ShapedType::kDynamic, dynamic));
}

MemRefType stridedMatrix(Type element) { return stridedMemRef(2, element); }

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type
             ? v
             : memref::CastOp::create(b, loc, type, v).getResult();
}

bool isBlasElement(Type e) { return e.isF32() || e.isF64(); }

/// Whether every operand has one element type (half types' products
/// accumulate into float32 outputs: not BLAS).
bool oneElementType(linalg::LinalgOp op) {
  Type e = getElementTypeOrSelf(op->getOperand(0).getType());
  return llvm::all_of(op->getOperandTypes(),
                      [&](Type t) { return getElementTypeOrSelf(t) == e; });
}

/// The body is acc + a * b on the two inputs and the output (as the
/// conversion builds contractions); unlike isaContractionOpInterface, this
/// also accepts maps with constant (broadcast) results. With `widened`, a
/// and b may be bfloat16 inputs extended to the float32 accumulator first
/// (a bfloat16 product, summed in float32).
bool hasMultiplyAddBody(linalg::GenericOp op, bool widened) {
  Block &body = op.getRegion().front();
  auto isArg = [&](Value v, unsigned i) { return v == body.getArgument(i); };
  // The factor read from input i: the argument, or its bfloat16 widened.
  auto isFactor = [&](Value v, unsigned i) {
    if (isArg(v, i))
      return true;
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return widened && ext && isArg(ext.getIn(), i) &&
           ext.getIn().getType().isBF16() && ext.getType().isF32();
  };
  // yield(acc + a * b): nothing else in the body but the widenings.
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  if (!mul)
    mul = add.getLhs().getDefiningOp<arith::MulFOp>();
  size_t widenings =
      llvm::count_if(body, [](Operation &o) { return isa<arith::ExtFOp>(o); });
  if (!mul || body.getOperations().size() != 3 + widenings ||
      widenings > (widened ? 2u : 0u))
    return false;
  bool mulOk = (isFactor(mul.getLhs(), 0) && isFactor(mul.getRhs(), 1)) ||
               (isFactor(mul.getLhs(), 1) && isFactor(mul.getRhs(), 0));
  bool addOk = (isArg(add.getLhs(), 2) && add.getRhs() == mul.getResult()) ||
               (isArg(add.getRhs(), 2) && add.getLhs() == mul.getResult());
  // Both factors of one type (both widened, or neither).
  bool sameInputs = getElementTypeOrSelf(op.getDpsInputs()[0].getType()) ==
                    getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  return mulOk && addOk && sameInputs;
}

/// `linear`'s contraction, y[..., o] += x[..., k] * w[o, k], on buffers: the
/// maps of x, w and y over loops (lead..., o, k).
bool isLinear(linalg::GenericOp op, bool bf16) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !hasMultiplyAddBody(op, bf16))
    return false;
  unsigned loops = op.getNumLoops();
  if (loops < 3 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> lead;
  for (unsigned d = 0; d + 2 < loops; ++d)
    lead.push_back(getAffineDimExpr(d, ctx));
  AffineExpr o = getAffineDimExpr(loops - 2, ctx),
             k = getAffineDimExpr(loops - 1, ctx);
  SmallVector<AffineExpr> x(lead), y(lead);
  x.push_back(k);
  y.push_back(o);
  SmallVector<AffineMap> want = {AffineMap::get(loops, 0, x, ctx),
                                 AffineMap::get(loops, 0, {o, k}, ctx),
                                 AffineMap::get(loops, 0, y, ctx)};
  Type e = cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  return isBlasElement(e) && op.getIndexingMapsArray() == want;
}

/// matmul's batched contraction on buffers, C[batch..., n, m] +=
/// A[batch..., n, k] * B[batch..., k, m], where A's and B's batch dims align
/// with C's from the right and may be broadcast (a constant 0 in the map,
/// for a static size 1); no batch dim at all for a 2-d product that is not
/// linalg.matmul (bfloat16's, summed in float32, or any generic 2-d one:
/// the runtime's batched entries take rank-2 operands as one matrix).
bool isBatchedMatmul(linalg::GenericOp op, bool bf16, bool &transposeA,
                     bool &transposeB) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !hasMultiplyAddBody(op, bf16) ||
      op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  unsigned loops = op.getNumLoops();
  if (loops < 3)
    return false;
  Type e = cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  if (!isBlasElement(e))
    return false;
  unsigned batch = loops - 3, n = batch, m = batch + 1, k = batch + 2;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto dimOrZero = [](AffineExpr expr, unsigned want) {
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return d.getPosition() == want;
    auto c = dyn_cast<AffineConstantExpr>(expr);
    return c && c.getValue() == 0;
  };
  auto isDim = [](AffineExpr expr, unsigned want) {
    auto d = dyn_cast<AffineDimExpr>(expr);
    return d && d.getPosition() == want;
  };
  // C: (batch..., n, m).
  if (maps[2].getNumResults() != loops - 1)
    return false;
  for (unsigned i = 0; i < loops - 1; ++i)
    if (!isDim(maps[2].getResult(i), i < batch ? i : (i == batch ? n : m)))
      return false;
  // A: (batch suffix..., n, k) or (..., k, n); B: (batch suffix..., k, m)
  // or (..., m, k).
  for (auto [map, last2, swapped] :
       {std::tuple{maps[0], std::pair{n, k}, &transposeA},
        std::tuple{maps[1], std::pair{k, m}, &transposeB}}) {
    unsigned r = map.getNumResults();
    if (r < 2 || r - 2 > batch)
      return false;
    unsigned lead = batch - (r - 2);
    for (unsigned i = 0; i + 2 < r; ++i)
      if (!dimOrZero(map.getResult(i), lead + i))
        return false;
    AffineExpr row = map.getResult(r - 2), col = map.getResult(r - 1);
    if (isDim(row, last2.first) && isDim(col, last2.second))
      *swapped = false;
    else if (isDim(row, last2.second) && isDim(col, last2.first))
      *swapped = true;
    else
      return false;
  }
  return true;
}

/// Plain C += A * B on memrefs (no transposed maps, no casts).
bool isBlasGemm(linalg::MatmulOp op) {
  Type e = cast<ShapedType>(op.getDpsInits()[0].getType()).getElementType();
  return op.hasPureBufferSemantics() && isBlasElement(e) &&
         oneElementType(op) &&
         op.getIndexingMapsArray() ==
             op.getDefaultIndexingMaps(op.getContext());
}

/// A, B and C's types in the runtime function's signature: A and B of the
/// `input` element type, C of the `output` one.
SmallVector<Type> operandTypes(BlasProductKind kind, Type input, Type output) {
  auto unranked = UnrankedMemRefType::get(input, 0);
  auto unrankedOut = UnrankedMemRefType::get(output, 0);
  switch (kind) {
  case BlasProductKind::Gemm: {
    MemRefType m = stridedMatrix(input);
    return {m, m, m};
  }
  case BlasProductKind::Linear:
    // x and y of any rank: the runtime folds their leading dims into the
    // rows of one gemm when it can.
    return {unranked, stridedMatrix(input), unrankedOut};
  case BlasProductKind::BatchedGemm:
    // The runtime loops over C's batch dims (broadcasting A's and B's
    // size-1 ones) and runs one gemm per matrix.
    return {unranked, unranked, unrankedOut};
  }
  llvm_unreachable("unknown product kind");
}

const char *kindName(BlasProductKind kind) {
  switch (kind) {
  case BlasProductKind::Gemm:
    return "gemm";
  case BlasProductKind::Linear:
    return "linear";
  case BlasProductKind::BatchedGemm:
    return "bmm";
  }
  llvm_unreachable("unknown product kind");
}

} // namespace

SmallVector<BlasProduct> mlir::kiln::findBlasProducts(ModuleOp module,
                                                      bool bf16) {
  SmallVector<BlasProduct> products;
  module.walk([&](Operation *op) {
    if (auto mm = dyn_cast<linalg::MatmulOp>(op)) {
      if (isBlasGemm(mm))
        products.push_back({mm, BlasProductKind::Gemm});
    } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      bool transposeA = false, transposeB = false;
      if (isLinear(generic, bf16))
        products.push_back({generic, BlasProductKind::Linear});
      else if (isBatchedMatmul(generic, bf16, transposeA, transposeB))
        products.push_back(
            {generic, BlasProductKind::BatchedGemm, transposeA, transposeB});
    }
  });
  std::stable_sort(products.begin(), products.end(),
                   [](const BlasProduct &a, const BlasProduct &b) {
                     return a.kind < b.kind;
                   });
  return products;
}

void mlir::kiln::replaceWithRuntimeCall(ModuleOp module,
                                        const BlasProduct &product,
                                        StringRef prefix, bool fallback) {
  linalg::LinalgOp op = product.op;
  Type output =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getElementType();
  Type input =
      cast<ShapedType>(op.getDpsInputs()[0].getType()).getElementType();
  StringRef suffix =
      input.isBF16() ? "_bf16" : (output.isF32() ? "_f32" : "_f64");
  std::string name = (prefix + kindName(product.kind) + suffix).str();
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Type> argTypes = operandTypes(product.kind, input, output);
  SmallVector<Value> args;
  // A transposed operand as the view of its transpose.
  auto viewed = [&](Value v, bool transposed) -> Value {
    if (!transposed)
      return v;
    int64_t rank = cast<MemRefType>(v.getType()).getRank();
    SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, rank));
    std::swap(order[rank - 2], order[rank - 1]);
    AffineMap permutation = AffineMap::getPermutationMap(order, b.getContext());
    return memref::TransposeOp::create(b, loc, v,
                                       AffineMapAttr::get(permutation));
  };
  Value operands[] = {viewed(op.getDpsInputs()[0], product.transposeA),
                      viewed(op.getDpsInputs()[1], product.transposeB),
                      op.getDpsInits()[0]};
  for (auto [v, type] : llvm::zip(operands, argTypes))
    args.push_back(castTo(b, loc, v, type));
  func::FuncOp fn = declareRuntimeFunction(module, name, argTypes, fallback);
  auto call = func::CallOp::create(b, loc, fn, args);
  if (!fallback) {
    op->erase();
    return;
  }
  Value notDone = arith::XOrIOp::create(
      b, loc, call.getResult(0), arith::ConstantIntOp::create(b, loc, 1, 1));
  auto orElse = scf::IfOp::create(b, loc, notDone, /*withElse=*/false);
  op->moveBefore(orElse.thenBlock()->getTerminator());
}
