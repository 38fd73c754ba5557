//===- Composite.cpp - Ops that compose kiln's elementwise ops ------------===//
//
// leaky_relu, elu, clamp, sign, the *_like factories, isnan, isinf,
// isfinite, the logical ops, masked_fill, tril, triu, lerp and the reductions
// var, std, logsumexp, norm, any and all, with torch's semantics, each written
// as kiln's own elementwise ops. The frontend traces a call of one into the
// same ops (Tracer::traceComposite), so compiled code computes what eager does
// by construction, in one fused loop where eager makes a few passes. Each
// counts as one op.
//
//===----------------------------------------------------------------------===//
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "kiln/Ops.h"

#include <cmath>
#include <limits>

namespace kiln {

namespace {
void requireFloating(const Tensor &x, const char *op) {
  if (!isFloating(x.dtype()))
    throw detail::unsupportedDType(op, x.dtype());
}
} // namespace

Tensor leaky_relu(const Tensor &x, Scalar negativeSlope) {
  detail::CountedOp counted;
  requireFloating(x, "leaky_relu");
  return where(x > 0, x, x * negativeSlope).to(x.dtype());
}

Tensor elu(const Tensor &x, Scalar alpha) {
  detail::CountedOp counted;
  requireFloating(x, "elu");
  return where(x > 0, x, expm1(x) * alpha).to(x.dtype());
}

Tensor clamp(const Tensor &x, std::optional<Scalar> min,
             std::optional<Scalar> max) {
  detail::CountedOp counted;
  if (!min && !max)
    throw Error("clamp: at least one of min and max must be given");
  Tensor y = x;
  if (min)
    y = maximum(y, *min);
  if (max)
    y = minimum(y, *max);
  return y;
}

Tensor sign(const Tensor &x) {
  detail::CountedOp counted;
  if (x.dtype() == kBool)
    throw Error("sign: not supported for dtype bool");
  // ATen's (0 < x) - (x < 0): NaN and -0 give 0.
  return (x > 0).to(x.dtype()) - (x < 0).to(x.dtype());
}

Tensor full_like(const Tensor &x, Scalar value) {
  detail::CountedOp counted;
  return full(x.shape(), value, x.dtype());
}

Tensor zeros_like(const Tensor &x) { return full_like(x, 0); }
Tensor ones_like(const Tensor &x) { return full_like(x, 1); }
Tensor empty_like(const Tensor &x) { return full_like(x, 0); }

Tensor isnan(const Tensor &x) {
  detail::CountedOp counted;
  return x != x;
}

Tensor isinf(const Tensor &x) {
  detail::CountedOp counted;
  const double inf = std::numeric_limits<double>::infinity();
  return logical_or(x == inf, x == -inf);
}

Tensor isfinite(const Tensor &x) {
  detail::CountedOp counted;
  const double inf = std::numeric_limits<double>::infinity();
  return logical_and(x == x, logical_and(x != inf, x != -inf));
}

// Bool tensors multiply as and, add as or.
Tensor logical_and(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  return (a != 0) * (b != 0);
}

Tensor logical_or(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  return (a != 0) + (b != 0);
}

Tensor logical_not(const Tensor &x) {
  detail::CountedOp counted;
  return x == 0;
}

Tensor masked_fill(const Tensor &x, const Tensor &mask, Scalar value) {
  detail::CountedOp counted;
  if (mask.dtype() != kBool)
    throw Error("masked_fill: the mask must be a bool tensor, got " +
                std::string(dtypeName(mask.dtype())));
  if (detail::broadcastShapes(x.shape(), mask.shape(), "masked_fill") !=
      x.shape())
    throw Error("masked_fill: a mask of shape " + shapeStr(mask.shape()) +
                " does not broadcast to the tensor's shape " +
                shapeStr(x.shape()));
  return where(mask, value, x).to(x.dtype());
}

namespace {
/// Where element (i, j) of the last two dims has j - i <= diagonal (lower)
/// or >= diagonal: a [rows, cols] bool tensor that broadcasts over x.
Tensor triangle(const Tensor &x, int64_t diagonal, bool lower, const char *op) {
  if (x.dim() < 2)
    throw Error(std::string(op) +
                ": input tensor must have at least 2 dimensions, got shape " +
                shapeStr(x.shape()));
  Tensor offset = arange(x.size(-1)) - arange(x.size(-2)).unsqueeze(1);
  return lower ? offset <= diagonal : offset >= diagonal;
}
} // namespace

Tensor tril(const Tensor &x, int64_t diagonal) {
  detail::CountedOp counted;
  return where(triangle(x, diagonal, true, "tril"), x, 0).to(x.dtype());
}

Tensor triu(const Tensor &x, int64_t diagonal) {
  detail::CountedOp counted;
  return where(triangle(x, diagonal, false, "triu"), x, 0).to(x.dtype());
}

Tensor lerp(const Tensor &start, const Tensor &end, Scalar weight) {
  detail::CountedOp counted;
  requireFloating(start, "lerp");
  if (end.dtype() != start.dtype())
    throw Error(std::string("lerp: start and end must have the same dtype, "
                            "got ") +
                dtypeName(start.dtype()) + " and " + dtypeName(end.dtype()));
  // As ATen: from the nearer end, so that weight 1 gives end exactly.
  Tensor diff = end - start;
  Tensor y = weight.toDouble() < 0.5 ? start + diff * weight
                                     : end - diff * (1.0 - weight.toDouble());
  return y.to(start.dtype());
}

Tensor var(const Tensor &x, const Dims &dims, int64_t correction,
           bool keepdim) {
  detail::CountedOp counted;
  requireFloating(x, "var");
  // Two passes: the mean, then the squared deviations from it.
  Tensor deviation = x - mean(x, dims, true);
  Tensor count = sum(ones_like(x), dims, keepdim);
  return sum(deviation * deviation, dims, keepdim) / (count - correction);
}

Tensor std(const Tensor &x, const Dims &dims, int64_t correction,
           bool keepdim) {
  detail::CountedOp counted;
  requireFloating(x, "std");
  return sqrt(var(x, dims, correction, keepdim));
}

Tensor logsumexp(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  // As ATen: an infinite maximum is taken as 0, so that a row of -inf
  // gives -inf and a row holding +inf gives +inf rather than NaN.
  auto finiteMax = [&](bool keep) {
    Tensor m = amax(x, dims, keep);
    return where(isinf(m), 0, m);
  };
  return log(sum(exp(x - finiteMax(true)), dims, keepdim)) + finiteMax(keepdim);
}

Tensor norm(const Tensor &x, Scalar p, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  requireFloating(x, "norm");
  double q = p.toDouble();
  if (q == 2)
    return sqrt(sum(x * x, dims, keepdim));
  if (q == 1)
    return sum(abs(x), dims, keepdim);
  if (std::isinf(q))
    return q > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  if (q == 0)
    return sum((x != 0).to(x.dtype()), dims, keepdim);
  return pow(sum(pow(abs(x), q), dims, keepdim), 1.0 / q);
}

Tensor any(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return sum(x != 0, dims, keepdim) > 0;
}

Tensor all(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return sum(x == 0, dims, keepdim) == 0;
}

} // namespace kiln
