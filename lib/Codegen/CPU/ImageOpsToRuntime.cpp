//===- ImageOpsToRuntime.cpp - Image ops -> the runtime's functions -------===//
//
// Each kiln.conv2d (batched, [N, C, H, W]) becomes a call of the runtime's
// convolution (lib/Runtime/CPU/ImageOpsEntryPoints.cpp), the one eager
// runs: one image at a time, its columns (im2col) in a buffer of one
// image's size, then one product per group. Converted to linalg, a
// convolution whose stride, padding, dilation or groups are known only at
// run time (a module's members) laid the columns of the whole batch out at
// once: on a ResNet of 64 images, 100 MB of fresh memory a call, and
// compiled code slower than eager. The backward graphs' image ops
// (kiln.conv2d_backward, kiln.pool2d_backward,
// kiln.adaptive_avg_pool2d_backward) call the functions eager autograd
// runs, so that compiled and eager gradients are computed alike.
//
// Window parameters go as i64 values (the attribute's, or the run-time
// operand); 16-bit floats compute in f32, as eager does; each result is a
// buffer the graph owns, and what eager rejects (a stride below 1, a
// kernel larger than the input) fails the graph call, so that eager raises
// the error.
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "RuntimeKernels.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNIMAGEOPSTORUNTIME
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// t as the kernel's operand: in `element`, with dynamic sizes.
Value asOperand(OpBuilder &b, Location loc, Value t, Type element) {
  return withDynamicSizes(b, loc, withElementType(b, loc, t, element));
}

/// A call of the runtime kernel `base`_f32 or _f64 (by `compute`) on the
/// tensors `tensors` (converted to `compute`) and the i64 `scalars`,
/// returning a tensor of `rank` in `compute`.
Value callKernel(OpBuilder &b, Location loc, StringRef base, Type compute,
                 ValueRange tensors, ValueRange scalars, int64_t rank) {
  SmallVector<Value> args;
  SmallVector<Type> types;
  for (Value t : tensors) {
    args.push_back(asOperand(b, loc, t, compute));
    types.push_back(args.back().getType());
  }
  for (Value s : scalars) {
    args.push_back(s);
    types.push_back(s.getType());
  }
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  std::string name = (base + (compute.isF64() ? "_f64" : "_f32")).str();
  func::FuncOp fn =
      declareRuntimeKernel(module, name, types, {dynamicTensor(rank, compute)});
  return func::CallOp::create(b, loc, fn, args).getResult(0);
}

/// Window parameters as i64 values: each attribute's value, or the next
/// run-time operand (`params`, in order) where it is dynamic.
struct Parameters {
  OpBuilder &b;
  Location loc;
  OperandRange::iterator next;
  SmallVector<Value> values;

  void add(int64_t value) {
    values.push_back(
        ShapedType::isDynamic(value)
            ? arith::IndexCastOp::create(b, loc, b.getI64Type(), *next++)
                  .getResult()
            : arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value))
                  .getResult());
  }
  void add(ArrayRef<int64_t> pair) {
    for (int64_t v : pair)
      add(v);
  }
  /// A convolution's (or its gradient's) sh, sw, ph, pw, dh, dw, groups.
  template <typename ConvOp> void addConvolution(ConvOp op) {
    add(op.getStrides());
    add(op.getPadding());
    add(op.getDilation());
    add(op.getGroups());
  }
};

Type computeTypeOf(OpBuilder &b, Value t) {
  return kernelComputeType(
      b, cast<RankedTensorType>(t.getType()).getElementType());
}

void rewrite(Conv2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type compute = computeTypeOf(b, op.getResult());
  // Without a bias an empty one stands in (the flag says there is none).
  Value bias =
      op.getBias()
          ? op.getBias()
          : tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{0}, compute)
                .getResult();
  // sh, sw, ph, pw, dh, dw, groups, hasBias.
  Parameters p{b, loc, op.getParams().begin(), {}};
  p.addConvolution(op);
  p.values.push_back(arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(op.getBias() ? 1 : 0)));
  Value out = callKernel(b, loc, "kiln_conv2d_call", compute,
                         {op.getInput(), op.getWeight(), bias}, p.values, 4);
  replaceWithKernelResult(b, op, out);
}

void rewrite(Conv2dBackwardOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type compute = computeTypeOf(b, op.getInput());
  Parameters p{b, loc, op.getParams().begin(), {}};
  p.addConvolution(op);
  SmallVector<Value> tensors = {op.getGradOutput(), op.getInput(),
                                op.getWeight()};
  // Only the gradients something reads are computed.
  if (!op.getInputGrad().use_empty())
    replaceWithKernelResult(b, loc, op.getInputGrad(),
                            callKernel(b, loc, "kiln_conv2d_input_grad_call",
                                       compute, tensors, p.values, 4));
  if (!op.getWeightGrad().use_empty())
    replaceWithKernelResult(b, loc, op.getWeightGrad(),
                            callKernel(b, loc, "kiln_conv2d_weight_grad_call",
                                       compute, tensors, p.values, 4));
  op.erase();
}

void rewrite(Pool2dBackwardOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type compute = computeTypeOf(b, op.getInput());
  // kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode, count_include_pad; then the
  // divisor (0: none).
  Parameters p{b, loc, op.getParams().begin(), {}};
  p.add(op.getKernel());
  p.add(op.getStrides());
  p.add(op.getPadding());
  p.add(op.getDilation());
  p.add(op.getCeilMode());
  p.add(op.getCountIncludePad());
  std::optional<uint64_t> divisor = op.getDivisor();
  p.add(divisor ? static_cast<int64_t>(*divisor) : 0);
  bool max = op.getKind() == PoolKind::max;
  Value out = callKernel(
      b, loc,
      max ? "kiln_max_pool2d_backward_call" : "kiln_avg_pool2d_backward_call",
      compute, {op.getGradOutput(), op.getInput()}, p.values, 4);
  replaceWithKernelResult(b, op, out);
}

void rewrite(AdaptiveAvgPool2dBackwardOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value out = callKernel(b, loc, "kiln_adaptive_avg_pool2d_backward_call",
                         computeTypeOf(b, op.getInput()),
                         {op.getGradOutput(), op.getInput()}, {}, 4);
  replaceWithKernelResult(b, op, out);
}

struct KilnImageOpsToRuntimePass
    : mlir::kiln::impl::KilnImageOpsToRuntimeBase<KilnImageOpsToRuntimePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      // One unbatched image is batched by kiln-decompose-composites first
      // (a gradient is only built over a batch).
      if (auto conv = dyn_cast<Conv2dOp>(op)) {
        if (conv.getInput().getType().getRank() == 4)
          ops.push_back(op);
      } else if (isa<Conv2dBackwardOp, Pool2dBackwardOp,
                     AdaptiveAvgPool2dBackwardOp>(op)) {
        ops.push_back(op);
      }
    });
    for (Operation *op : ops)
      TypeSwitch<Operation *>(op)
          .Case<Conv2dOp, Conv2dBackwardOp, Pool2dBackwardOp,
                AdaptiveAvgPool2dBackwardOp>([](auto o) { rewrite(o); });
  }
};
} // namespace
