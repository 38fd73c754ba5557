//===- RuntimeKernels.h - Calls of the runtime's eager kernels --*- C++ -*-===//
//
// What kiln-attention-to-runtime and kiln-conv2d-to-runtime share: the
// declaration of a runtime kernel that reads tensors and returns a buffer
// the graph owns (lib/Runtime/CPU/*EntryPoints.cpp, through
// abi::callOpaque).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_CPU_RUNTIMEKERNELS_H
#define KILN_CODEGEN_CPU_RUNTIMEKERNELS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln {

/// A tensor type of this rank with dynamic sizes: a kernel's operand type.
inline RankedTensorType dynamicTensor(int64_t rank, Type element) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                               element);
}

/// The element type a kernel computes `element` in: 16-bit floats in f32, as
/// the eager functions do.
inline Type kernelComputeType(OpBuilder &b, Type element) {
  return element.isF64() ? element : b.getF32Type();
}

/// t in `element` (a kiln.cast when it differs).
inline Value withElementType(OpBuilder &b, Location loc, Value t,
                             Type element) {
  auto type = cast<RankedTensorType>(t.getType());
  return type.getElementType() == element
             ? t
             : CastOp::create(b, loc, type.clone(element), t).getResult();
}

/// t with dynamic sizes (a tensor.cast when any is static).
inline Value withDynamicSizes(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  RankedTensorType want = dynamicTensor(type.getRank(), type.getElementType());
  return type == want ? t : tensor::CastOp::create(b, loc, want, t).getResult();
}

/// `name`(args) -> results, declared once per module: private, with a C
/// interface, its tensor arguments only read (bufferization.access).
inline func::FuncOp declareRuntimeKernel(ModuleOp module, StringRef name,
                                         TypeRange args, TypeRange results) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder top(module.getBodyRegion());
  MLIRContext *ctx = module.getContext();
  auto fn = func::FuncOp::create(top, module.getLoc(), name,
                                 FunctionType::get(ctx, args, results));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  for (auto [i, type] : llvm::enumerate(args))
    if (isa<TensorType>(type))
      fn.setArgAttr(i, "bufferization.access", StringAttr::get(ctx, "read"));
  return fn;
}

/// Replaces the uses of an op's tensor `result` by a kernel's result
/// `out`, rounded to its element type (a kiln.cast: 16-bit floats are
/// computed in f32) and cast to its static sizes.
inline void replaceWithKernelResult(OpBuilder &b, Location loc, Value result,
                                    Value out) {
  auto resultType = cast<RankedTensorType>(result.getType());
  auto type = cast<RankedTensorType>(out.getType());
  if (type.getElementType() != resultType.getElementType())
    out = CastOp::create(b, loc, type.clone(resultType.getElementType()), out);
  if (out.getType() != resultType)
    out = tensor::CastOp::create(b, loc, resultType, out);
  result.replaceAllUsesWith(out);
}

/// Replaces `op` (one tensor result) by a kernel's result `out`, as above,
/// and erases it.
inline void replaceWithKernelResult(OpBuilder &b, Operation *op, Value out) {
  replaceWithKernelResult(b, op->getLoc(), op->getResult(0), out);
  op->erase();
}

} // namespace mlir::kiln

#endif
