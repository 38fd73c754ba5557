//===- BroadcastCopies.cpp - Run-time broadcasts as strided copies --------===//
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Conversion/KilnToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNBROADCASTCOPIES
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// The copy's source: the buffer its body loads from (at its own index, or
/// at min(index, size - 1) along the broadcast dims).
Value copySource(linalg::GenericOp copy) {
  if (copy.getNumDpsInputs() != 0 || copy.getNumDpsInits() != 1 ||
      !copy.hasPureBufferSemantics())
    return {};
  auto yield = cast<linalg::YieldOp>(copy.getBody()->getTerminator());
  auto load = yield.getValues().front().getDefiningOp<memref::LoadOp>();
  if (!load || load.getMemRefType().getRank() != copy.getNumLoops() ||
      copy.getRegion().isAncestor(load.getMemRef().getParentRegion()))
    return {};
  return load.getMemRef();
}

struct KilnBroadcastCopiesPass
    : mlir::kiln::impl::KilnBroadcastCopiesBase<KilnBroadcastCopiesPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> copies;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->hasAttr(mlir::kiln::kBroadcastCopyAttrName) && copySource(op))
        copies.push_back(op);
    });
    for (linalg::GenericOp copy : copies) {
      Value source = copySource(copy);
      Value dest = copy.getDpsInitOperand(0)->get();
      auto destType = cast<MemRefType>(dest.getType());
      OpBuilder b(copy);
      Location loc = copy.getLoc();
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, source);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      // Along a dim where the sizes differ, every element reads the
      // source's first (the source is 1 there, or a shape check failed and
      // any in-bounds value will do: the copy runs only when no size is 0).
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t d = 0, rank = destType.getRank(); d < rank; ++d) {
        OpFoldResult size = memref::getMixedSize(b, loc, dest, d);
        Value same = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, meta.getSizes()[d],
            getValueOrCreateConstantIndexOp(b, loc, size));
        sizes.push_back(size);
        strides.push_back(
            arith::SelectOp::create(b, loc, same, meta.getStrides()[d], zero)
                .getResult());
      }
      SmallVector<int64_t> dynamic(destType.getRank(), ShapedType::kDynamic);
      auto viewType = MemRefType::get(
          destType.getShape(), destType.getElementType(),
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                 dynamic),
          destType.getMemorySpace());
      Value view = memref::ReinterpretCastOp::create(
          b, loc, viewType, meta.getBaseBuffer(), meta.getOffset(), sizes,
          strides);
      memref::CopyOp::create(b, loc, view, dest);
      copy.erase();
    }
  }
};

} // namespace
