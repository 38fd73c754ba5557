//===- Conv2dToRuntime.cpp - conv2d -> the runtime's convolution ----------===//
//
// Each kiln.conv2d (batched, [N, C, H, W]) becomes a call of the runtime's
// convolution (lib/Runtime/CPU/Conv2dEntryPoints.cpp), the one eager runs:
// one image at a time, its columns (im2col) in a buffer of one image's size,
// then one product per group. Converted to linalg, a convolution whose
// stride, padding, dilation or groups are known only at run time (a
// module's members) laid the columns of the whole batch out at once: on a
// ResNet of 64 images, 100 MB of fresh memory a call, and compiled code
// slower than eager. Strides, padding, dilation and groups go as i64 values
// (the attribute's, or the run-time operand); 16-bit floats compute in f32,
// as eager does; the result is a buffer the graph owns, and what eager
// rejects (a stride below 1, a kernel larger than the input) fails the
// graph call, so that eager raises the error.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "RuntimeKernels.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONV2DTORUNTIME
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// t as the kernel's operand: in `element`, with dynamic sizes.
Value asOperand(OpBuilder &b, Location loc, Value t, Type element) {
  return withDynamicSizes(b, loc, withElementType(b, loc, t, element));
}

void rewrite(ModuleOp module, Conv2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  Type element = resultType.getElementType();
  Type compute = kernelComputeType(b, element);
  Value x = asOperand(b, loc, op.getInput(), compute);
  Value w = asOperand(b, loc, op.getWeight(), compute);
  // Without a bias an empty one stands in (the flag says there is none).
  Value bias =
      op.getBias()
          ? asOperand(b, loc, op.getBias(), compute)
          : tensor::CastOp::create(
                b, loc, dynamicTensor(1, compute),
                tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{0}, compute))
                .getResult();
  // sh, sw, ph, pw, dh, dw, groups: the attribute's value, or the next
  // run-time operand where it is dynamic.
  auto params = op.getParams().begin();
  SmallVector<Value> args = {x, w, bias};
  auto add = [&](int64_t value) {
    args.push_back(
        ShapedType::isDynamic(value)
            ? arith::IndexCastOp::create(b, loc, b.getI64Type(), *params++)
                  .getResult()
            : arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value))
                  .getResult());
  };
  for (ArrayRef<int64_t> pair :
       {op.getStrides(), op.getPadding(), op.getDilation()})
    for (int64_t v : pair)
      add(v);
  add(op.getGroups());
  args.push_back(arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(op.getBias() ? 1 : 0)));
  std::string name =
      std::string("kiln_conv2d_call_") + (compute.isF64() ? "f64" : "f32");
  // (x, w, bias, sh, sw, ph, pw, dh, dw, groups, hasBias) -> y.
  SmallVector<Type> types = {dynamicTensor(4, compute),
                             dynamicTensor(4, compute),
                             dynamicTensor(1, compute)};
  types.append(8, b.getI64Type());
  func::FuncOp fn =
      declareRuntimeKernel(module, name, types, {dynamicTensor(4, compute)});
  Value out = func::CallOp::create(b, loc, fn, args).getResult(0);
  replaceWithKernelResult(b, op, out);
}

struct KilnConv2dToRuntimePass
    : mlir::kiln::impl::KilnConv2dToRuntimeBase<KilnConv2dToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Conv2dOp> ops;
    module.walk([&](Conv2dOp op) {
      // One unbatched image is batched by kiln-decompose-composites first.
      if (op.getInput().getType().getRank() == 4)
        ops.push_back(op);
    });
    for (Conv2dOp op : ops)
      rewrite(module, op);
  }
};
} // namespace
