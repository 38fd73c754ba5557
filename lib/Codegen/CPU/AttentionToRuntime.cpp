//===- AttentionToRuntime.cpp - Attention -> the runtime's fused kernel ---===//
//
// Each kiln.scaled_dot_product_attention becomes a call of the runtime's
// kernel (lib/Runtime/CPU/AttentionEntryPoints.cpp), the one eager runs:
// blocks of queries against blocks of keys with an online softmax, the
// scores never in memory. The operands go as rank-4 tensors (leading unit
// dims added; float16 computed in f32, as eager does, bfloat16 passed as
// it is); the call returns a buffer the graph owns, as an allow_in_graph
// call does (Calls.cpp), and fails the graph call (so that eager raises
// the error) where eager would throw.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "RuntimeKernels.h"
#include "kiln/Conversion/KilnToLinalg.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNATTENTIONTORUNTIME
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The groups that add 4 - rank leading unit dims to a tensor of this rank.
SmallVector<ReassociationIndices> padGroups(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  if (rank == 0)
    return groups;
  int64_t pad = 4 - rank;
  ReassociationIndices first;
  for (int64_t i = 0; i <= pad; ++i)
    first.push_back(i);
  groups.push_back(first);
  for (int64_t i = pad + 1; i < 4; ++i)
    groups.push_back({i});
  return groups;
}

/// t in `element` (a kiln.cast when it differs) as a rank-4 tensor with
/// dynamic sizes.
Value asRank4(OpBuilder &b, Location loc, Value t, Type element) {
  t = withElementType(b, loc, t, element);
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  if (rank < 4) {
    SmallVector<int64_t> shape(4 - rank, 1);
    llvm::append_range(shape, type.getShape());
    t = tensor::ExpandShapeOp::create(b, loc, type.clone(shape), t,
                                      padGroups(rank));
  }
  return withDynamicSizes(b, loc, t);
}

void rewrite(ModuleOp module, ScaledDotProductAttentionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  Type element = resultType.getElementType();
  // bfloat16 goes as it is: the kernel reads it where the CPU has
  // AVX512-BF16 and widens it where not, as eager does.
  Type compute = element.isBF16() ? element : kernelComputeType(b, element);
  Value q = asRank4(b, loc, op.getQuery(), compute);
  Value k = asRank4(b, loc, op.getKey(), compute);
  Value v = asRank4(b, loc, op.getValue(), compute);
  Value mask = op.getMask();
  bool boolMask =
      mask &&
      cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1);
  // Without a mask the query stands in (flags say there is none).
  mask = mask ? asRank4(b, loc, mask, boolMask ? b.getI1Type() : compute) : q;
  int64_t flags = (op.getIsCausal() ? 1 : 0) | (op.getMask() ? 2 : 0) |
                  (op.getScale() ? 4 : 0) |
                  (op->hasAttr(kNanWhenUnattendedAttrName) ? 8 : 0) |
                  (op->hasAttr(kCausalMaskAttrName) ? 16 : 0);
  Value scale = op.getScale()
                    ? op.getScale()
                    : arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0))
                          .getResult();
  std::string name = std::string("kiln_attention_") +
                     (boolMask ? "bool_mask_" : "") +
                     (compute.isF64()    ? "f64"
                      : compute.isBF16() ? "bf16"
                                         : "f32");
  // (q, k, v, mask, flags, scale) -> the result.
  Type t = dynamicTensor(4, compute);
  func::FuncOp fn = declareRuntimeKernel(
      module, name,
      {t, t, t, dynamicTensor(4, boolMask ? b.getI1Type() : compute),
       b.getI64Type(), b.getF64Type()},
      {t});
  Value flagsValue =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(flags));
  Value out = func::CallOp::create(b, loc, fn,
                                   ValueRange{q, k, v, mask, flagsValue, scale})
                  .getResult(0);
  // Back to the op's rank: the leading dims the operands lacked are 1.
  int64_t rank = resultType.getRank();
  if (rank < 4) {
    SmallVector<int64_t> shape(4 - rank, 1);
    shape.append(rank, ShapedType::kDynamic);
    out = tensor::CastOp::create(b, loc, RankedTensorType::get(shape, compute),
                                 out);
    out = tensor::CollapseShapeOp::create(b, loc, out, padGroups(rank));
  }
  replaceWithKernelResult(b, op, out);
}

struct KilnAttentionToRuntimePass
    : mlir::kiln::impl::KilnAttentionToRuntimeBase<KilnAttentionToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ScaledDotProductAttentionOp> ops;
    module.walk([&](ScaledDotProductAttentionOp op) { ops.push_back(op); });
    for (ScaledDotProductAttentionOp op : ops)
      rewrite(module, op);
  }
};
} // namespace
