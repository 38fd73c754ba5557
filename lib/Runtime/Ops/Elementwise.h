//===- Elementwise.h - Broadcasting and type promotion ----------*- C++ -*-===//
//
// Shared by the binary, unary and ternary ops: numpy broadcasting, torch's
// result_type (tensors with dims outrank 0-d tensors, which outrank C++
// scalars; a lower rank only matters when it brings a higher category), and
// the kernels' driver that casts, expands, loops and rounds 16-bit results.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ELEMENTWISE_H
#define KILN_RUNTIME_ELEMENTWISE_H

#include "Core/Dispatch.h"
#include "Core/Loops.h"
#include "kiln/Ops.h"

#include <initializer_list>

namespace kiln::detail {

/// Output `index` of SplitMix64 seeded with seed: rand's and randn's
/// elements, dropout's seeds (Factories.cpp).
uint64_t splitMix64(uint64_t seed, uint64_t index);

/// numpy broadcasting of two shapes; op names the op in the error.
Shape broadcastShapes(const Shape &a, const Shape &b, const char *op);

/// An operand of type promotion: its dtype and how strongly it counts.
struct PromotionOperand {
  enum Rank { Scalar = 0, ZeroDim = 1, Dims = 2 };
  DType dtype;
  Rank rank;
};
inline PromotionOperand promotionOf(const Tensor &t) {
  return {t.dtype(),
          t.dim() == 0 ? PromotionOperand::ZeroDim : PromotionOperand::Dims};
}
inline PromotionOperand promotionOf(const kiln::Scalar &s) {
  return {s.defaultDType(), PromotionOperand::Scalar};
}
/// torch.result_type over the operands.
DType resultType(std::initializer_list<PromotionOperand> operands);

/// A 0-d tensor holding value as dtype.
Tensor scalarTensor(const kiln::Scalar &value, DType dtype);

/// dst (any strides, its own dtype) = src converted elementwise; same shape.
void copyConvert(const Tensor &dst, const Tensor &src);

/// Throws unless t is defined and on the CPU.
void checkCpu(const Tensor &t, const char *op);

/// The error of an op that does not take tensors of dtype dt.
Error unsupportedDType(const char *op, DType dt);

/// A window parameter of a 2-d op (conv2d's stride, a pooling's kernel):
/// one value for both dims or {h, w}, each at least minimum, as {h, w}.
Shape pairParam(const Shape &value, const char *op, const char *name,
                int64_t minimum);

/// A gradient function's grad_output (conv2d_backward, the pooling
/// gradients): what the forward `of` ("convolution", "pooling") gives for
/// an input of dtype dt, shape `expected`.
void checkGradOutput(const Tensor &g, const Shape &expected, DType dt,
                     const char *op, const char *of);

/// Runs f elementwise over a and b broadcast, computing in common's compute
/// type; the result has dtype common (or bool when Compare).
template <bool Compare, typename F>
Tensor binaryKernel(const char *op, const Tensor &a, const Tensor &b,
                    DType common, const F &f) {
  checkCpu(a, op);
  checkCpu(b, op);
  Shape shape = broadcastShapes(a.shape(), b.shape(), op);
  DType ct = computeType(common);
  Tensor ea = a.to(ct).expand(shape), eb = b.to(ct).expand(shape);
  Tensor out(shape, Compare ? DType::Bool : ct);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<Compare, bool, T>;
    binaryLoop<Out, T, T>(out, ea, eb,
                          [&](T x, T y) -> Out { return f(x, y); });
  });
  return Compare || ct == common ? out : out.to(common);
}

} // namespace kiln::detail

#endif
