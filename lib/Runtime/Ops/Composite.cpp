//===- Composite.cpp - Ops that compose kiln's elementwise ops ------------===//
//
// leaky_relu, elu, clamp, sign, the *_like factories, isnan, isinf,
// isfinite, the logical ops, masked_fill, tril, triu, lerp, the reductions
// var, std, logsumexp, norm, any and all, and the layers stack, narrow,
// select, bmm, addmm, baddbmm, einsum, one_hot, eye, dropout, batch_norm,
// group_norm and instance_norm, with torch's semantics, each written as kiln's
// own ops. Compiled code computes the same compositions: the frontend
// traces a call of one as the kiln op of the same name, which
// kiln-decompose-composites writes with the dialect's ops (or, for the
// rest, as those ops directly), in one fused loop where eager makes a few
// passes. Each counts as one op.
//
//===----------------------------------------------------------------------===//
#include "Core/Autocast.h"
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "kiln/Autograd.h"
#include "kiln/EinsumPlan.h"
#include "kiln/Ops.h"

#include <cmath>
#include <limits>
#include <mutex>

namespace kiln {

namespace {
void requireFloating(const Tensor &x, const char *op) {
  if (!isFloating(x.dtype()))
    throw detail::unsupportedDType(op, x.dtype());
}
} // namespace

// leaky_relu, elu and clamp have formulas of their own (torch's): their
// compositions' gradients would take NaN from the branch where() drops
// (elu's expm1 at +inf) or split ties in half (clamp at a bound).
namespace {
using autograd::Grads;
using autograd::Needs;
} // namespace

Tensor leaky_relu(const Tensor &x, Scalar negativeSlope) {
  detail::CountedOp counted;
  requireFloating(x, "leaky_relu");
  autograd::Recorder grad("LeakyReluBackward0", x);
  Tensor out = where(x > 0, x, x * negativeSlope).to(x.dtype());
  if (grad)
    grad.record(
        out, [sx = grad.save(x), negativeSlope](const Grads &g, const Needs &) {
          return Grads{where(sx.get() > 0, g[0], g[0] * negativeSlope)};
        });
  return out;
}

Tensor elu(const Tensor &x, Scalar alpha) {
  detail::CountedOp counted;
  requireFloating(x, "elu");
  autograd::Recorder grad("EluBackward0", x);
  Tensor out = where(x > 0, x, expm1(x) * alpha).to(x.dtype());
  if (grad)
    grad.record(out, [sx = grad.save(x), alpha](const Grads &g, const Needs &) {
      // torch's elu_backward from the input (alpha may be negative).
      Tensor x = sx.get();
      return Grads{where(x > 0, g[0], g[0] * alpha * exp(x))};
    });
  return out;
}

Tensor clamp(const Tensor &x, std::optional<Scalar> min,
             std::optional<Scalar> max) {
  detail::CountedOp counted;
  if (!min && !max)
    throw Error("clamp: at least one of min and max must be given");
  autograd::Recorder grad("ClampBackward1", x);
  Tensor y = x;
  if (min)
    y = maximum(y, *min);
  if (max)
    y = minimum(y, *max);
  if (grad)
    grad.record(y,
                [sx = grad.save(x), min, max](const Grads &g, const Needs &) {
                  // The gradient passes where min < x < max: torch's
                  // (2.15, the fixtures) gives nothing at a bound.
                  Tensor x = sx.get(), inside = x == x;
                  if (min)
                    inside = logical_and(inside, x > *min);
                  if (max)
                    inside = logical_and(inside, x < *max);
                  return Grads{where(inside, g[0], zeros_like(g[0]))};
                });
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

namespace {
void checkFillMask(const Tensor &x, const Tensor &mask) {
  if (mask.dtype() != kBool)
    throw Error("masked_fill: the mask must be a bool tensor, got " +
                std::string(dtypeName(mask.dtype())));
  if (detail::broadcastShapes(x.shape(), mask.shape(), "masked_fill") !=
      x.shape())
    throw Error("masked_fill: a mask of shape " + shapeStr(mask.shape()) +
                " does not broadcast to the tensor's shape " +
                shapeStr(x.shape()));
}
} // namespace

Tensor masked_fill(const Tensor &x, const Tensor &mask, Scalar value) {
  detail::CountedOp counted;
  checkFillMask(x, mask);
  // The value converted to x's dtype, as ATen's: x's own values never pass
  // through a promoted type.
  return where(mask, full({}, value, x.dtype()), x);
}

Tensor masked_fill(const Tensor &x, const Tensor &mask, const Tensor &value) {
  detail::CountedOp counted;
  checkFillMask(x, mask);
  if (value.dim() != 0)
    throw Error("masked_fill only supports a 0-dimensional value tensor, but "
                "got tensor with " +
                std::to_string(value.dim()) + " dimension(s).");
  return where(mask, value.to(x.dtype()), x);
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
  autograd::Recorder grad("StdBackward0", x);
  Tensor out = sqrt(var(x, dims, correction, keepdim));
  if (grad)
    grad.record(out, [sx = grad.save(x), so = grad.save(out, true),
                      dims = dims.vec(), correction,
                      keepdim](const Grads &g, const Needs &) {
      // torch's std_backward: var's gradient g / (2 std), none where std
      // is 0 (sqrt's own would be NaN there), then var's.
      Tensor x = sx.get(), s = so.get();
      Tensor gv = where(s == 0, zeros_like(g[0]), g[0] / (2 * s));
      double count = static_cast<double>(x.numel()) /
                     static_cast<double>(std::max<int64_t>(s.numel(), 1));
      Tensor centred = x - mean(x, dims, true);
      return Grads{autograd::restoreReducedDims(gv, x.shape(), dims, keepdim) *
                   centred * (2.0 / (count - static_cast<double>(correction)))};
    });
  return out;
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

namespace {
Tensor normValue(const Tensor &x, double q, const Dims &dims, bool keepdim) {
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

/// torch's norm_backward: zero where the norm is zero (the compositions'
/// would be NaN there); +-infinity shared between the elements that tie.
Tensor normBackward(const Tensor &g, const Tensor &x, const Tensor &norm,
                    double q, const Shape &dims, bool keepdim) {
  Tensor gu = autograd::restoreReducedDims(g, x.shape(), dims, keepdim);
  Tensor nu = autograd::restoreReducedDims(norm, x.shape(), dims, keepdim);
  Tensor zero = zeros_like(x);
  if (q == 0)
    return zero;
  if (q == 1)
    return gu * sign(x);
  if (std::isinf(q)) {
    Tensor hit = (abs(x) == nu).to(x.dtype());
    Tensor ties = autograd::restoreReducedDims(sum(hit, dims, keepdim),
                                               x.shape(), dims, keepdim);
    return gu * sign(x) * hit / ties;
  }
  Tensor scaled = q == 2  ? x
                  : q < 1 ? where(x == 0, zero, sign(x) * pow(abs(x), q - 1))
                          : x * pow(abs(x), q - 2);
  return where(nu == 0, zero, gu * scaled / pow(nu, q - 1));
}
} // namespace

Tensor norm(const Tensor &x, Scalar p, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  requireFloating(x, "norm");
  double q = p.toDouble();
  autograd::Recorder grad("NormBackward1", x);
  Tensor out = normValue(x, q, dims, keepdim);
  if (grad)
    grad.record(out, [sx = grad.save(x), so = grad.save(out, true), q,
                      dims = dims.vec(),
                      keepdim](const Grads &g, const Needs &) {
      return Grads{normBackward(g[0], sx.get(), so.get(), q, dims, keepdim)};
    });
  return out;
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

//===----------------------------------------------------------------------===//
// Compositions of views, products and factories
//===----------------------------------------------------------------------===//

namespace kiln {

namespace {
/// dim of a tensor of this rank, counted from the end when negative.
int64_t checkedDim(int64_t dim, int64_t rank, const char *op) {
  if (dim < -rank || dim >= rank)
    throw Error(std::string(op) + ": dim " + std::to_string(dim) +
                " is out of range for a tensor of rank " +
                std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

void requireRank(const Tensor &t, int64_t rank, const char *op,
                 const char *what) {
  if (t.dim() != rank)
    throw Error(std::string(op) + ": " + what + " must be a " +
                std::to_string(rank) + "-d tensor, got shape " +
                shapeStr(t.shape()));
}

/// beta * input + alpha * product, as torch's addmm family: beta 0 ignores
/// input, factors of 1 multiply nothing.
Tensor scaledSum(const Tensor &input, Tensor product, Scalar beta, Scalar alpha,
                 const char *op) {
  if (detail::broadcastShapes(input.shape(), product.shape(), op) !=
      product.shape())
    throw Error(std::string(op) + ": input of shape " +
                shapeStr(input.shape()) +
                " does not broadcast to the product's shape " +
                shapeStr(product.shape()));
  if (alpha.toDouble() != 1.0)
    product = product * alpha;
  if (beta.toDouble() == 0.0)
    return product;
  return (beta.toDouble() == 1.0 ? input : input * beta) + product;
}
} // namespace

Tensor eye(int64_t n, int64_t m, DType dtype) {
  detail::CountedOp counted;
  if (m == -1)
    m = n;
  if (n < 0 || m < 0)
    throw Error("eye: sizes must be non-negative, got " + std::to_string(n) +
                " and " + std::to_string(m));
  return (arange(n).unsqueeze(1) == arange(m)).to(dtype);
}

Tensor stack(const std::vector<Tensor> &tensors, int64_t dim) {
  detail::CountedOp counted;
  if (tensors.empty())
    throw Error("stack: expects a non-empty list of tensors");
  for (const Tensor &t : tensors)
    if (t.shape() != tensors[0].shape())
      throw Error("stack: expects tensors of one shape, got " +
                  shapeStr(tensors[0].shape()) + " and " + shapeStr(t.shape()));
  checkedDim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (const Tensor &t : tensors)
    parts.push_back(t.unsqueeze(dim));
  return cat(parts, dim);
}

Tensor narrow(const Tensor &x, int64_t dim, int64_t start, int64_t length) {
  detail::CountedOp counted;
  int64_t d = checkedDim(dim, x.dim(), "narrow");
  int64_t size = x.size(d);
  if (start < -size || start > size)
    throw Error("narrow: start " + std::to_string(start) +
                " is out of range for dim " + std::to_string(dim) +
                " of size " + std::to_string(size));
  if (start < 0)
    start += size;
  if (length < 0 || start + length > size)
    throw Error("narrow: start " + std::to_string(start) + " + length " +
                std::to_string(length) + " exceeds dim " + std::to_string(dim) +
                " of size " + std::to_string(size));
  return x.slice(d, start, start + length);
}

Tensor select(const Tensor &x, int64_t dim, int64_t index) {
  detail::CountedOp counted;
  int64_t d = checkedDim(dim, x.dim(), "select");
  int64_t size = x.size(d);
  if (index < -size || index >= size)
    throw Error("select: index " + std::to_string(index) +
                " is out of range for dim " + std::to_string(dim) +
                " of size " + std::to_string(size));
  if (index < 0)
    index += size;
  return x.slice(d, index, index + 1).squeeze(d);
}

Tensor bmm(const Tensor &a0, const Tensor &b0) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor a = autocast(a0), b = autocast(b0);
  requireRank(a, 3, "bmm", "batch1");
  requireRank(b, 3, "bmm", "batch2");
  if (a.size(0) != b.size(0))
    throw Error("bmm: batch sizes differ: " + shapeStr(a.shape()) + " and " +
                shapeStr(b.shape()));
  return matmul(a, b);
}

Tensor addmm(const Tensor &input0, const Tensor &m10, const Tensor &m20,
             Scalar beta, Scalar alpha) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor input = autocast(input0), m1 = autocast(m10), m2 = autocast(m20);
  requireRank(m1, 2, "addmm", "mat1");
  requireRank(m2, 2, "addmm", "mat2");
  return scaledSum(input, matmul(m1, m2), beta, alpha, "addmm");
}

Tensor baddbmm(const Tensor &input0, const Tensor &b10, const Tensor &b20,
               Scalar beta, Scalar alpha) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor input = autocast(input0), b1 = autocast(b10), b2 = autocast(b20);
  return scaledSum(input, bmm(b1, b2), beta, alpha, "baddbmm");
}

Tensor one_hot(const Tensor &ids, int64_t num_classes) {
  detail::CountedOp counted;
  if (ids.dtype() != kInt64)
    throw Error(std::string("one_hot: ids must be int64, got ") +
                dtypeName(ids.dtype()));
  if (num_classes == -1)
    num_classes = ids.numel() ? amax(ids).item<int64_t>() + 1 : 0;
  if (num_classes < 0)
    throw Error("one_hot: num_classes must be -1 or non-negative, got " +
                std::to_string(num_classes));
  // The rows of the identity (embedding checks the ids' range).
  try {
    return embedding(ids, eye(num_classes, num_classes, kInt64));
  } catch (const Error &) {
    throw Error("one_hot: ids must lie in [0, " + std::to_string(num_classes) +
                ")");
  }
}

namespace {
/// The dropout generator: a base seed and how many masks were drawn.
std::mutex dropoutMutex;
uint64_t dropoutBase = 0, dropoutDraws = 0;

/// The next draw's seed: output k of SplitMix64 seeded with the base (its
/// mixed output, so that draws are unrelated streams).
uint64_t nextDropoutSeed() {
  std::lock_guard<std::mutex> lock(dropoutMutex);
  return detail::splitMix64(dropoutBase, dropoutDraws++);
}
} // namespace

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(dropoutMutex);
  dropoutBase = seed;
  dropoutDraws = 0;
}

Tensor dropout(const Tensor &x, double p, bool training) {
  detail::CountedOp counted;
  if (!(p >= 0.0 && p <= 1.0))
    throw Error("dropout: probability has to be between 0 and 1, got " +
                std::to_string(p));
  if (!training || p == 0.0)
    return x;
  requireFloating(x, "dropout");
  if (p == 1.0)
    return x * zeros_like(x);
  Tensor keep = rand(x.shape(), nextDropoutSeed(), kFloat32) >= p;
  // A product with the mask: autograd records its gradient, mask / (1 - p).
  return x * (keep.to(x.dtype()) * (1.0 / (1.0 - p)));
}

Tensor batch_norm(const Tensor &x, const Tensor &running_mean,
                  const Tensor &running_var, const Tensor &weight,
                  const Tensor &bias, bool training, double momentum,
                  double eps) {
  detail::CountedOp counted;
  if (x.dim() < 2)
    throw Error("batch_norm: expected an input of 2 or more dims, got shape " +
                shapeStr(x.shape()));
  requireFloating(x, "batch_norm");
  Shape channels = {x.size(1)};
  for (const Tensor *t : {&running_mean, &running_var, &weight, &bias})
    if (t->defined() && t->shape() != channels)
      throw Error("batch_norm: statistics and parameters must have shape " +
                  shapeStr(channels) + " (the input's dim 1), got " +
                  shapeStr(t->shape()));
  // Channels last, where [C] broadcasts, and back.
  Tensor xt = x.transpose(1, -1);
  Tensor y;
  if (training) {
    // The batch's statistics over every dim but the channels (the biased
    // variance normalises; the running variance takes the unbiased one).
    Shape dims;
    for (int64_t d = 0; d + 1 < x.dim(); ++d)
      dims.push_back(d);
    int64_t count = x.numel() / std::max<int64_t>(x.size(1), 1);
    if (count <= 1)
      throw Error("batch_norm: expected more than 1 value per channel when "
                  "training, got input of shape " +
                  shapeStr(x.shape()));
    Tensor batchMean = mean(xt, dims);
    Tensor centred = xt - batchMean;
    Tensor variance = mean(centred * centred, dims);
    y = centred * rsqrt(variance + eps);
    NoGradGuard noGrad;
    if (running_mean.defined())
      running_mean.mul_(1 - momentum)
          .add_(batchMean.detach().to(running_mean.dtype()), momentum);
    if (running_var.defined())
      running_var.mul_(1 - momentum)
          .add_(variance.detach().to(running_var.dtype()),
                momentum * static_cast<double>(count) /
                    static_cast<double>(count - 1));
  } else {
    // The running statistics are buffers: no gradient reaches them (as in
    // torch).
    y = (xt - running_mean.detach()) * rsqrt(running_var.detach() + eps);
  }
  if (weight.defined())
    y = y * weight;
  if (bias.defined())
    y = y + bias;
  return y.transpose(1, -1).to(x.dtype());
}

} // namespace kiln

namespace kiln {

Tensor group_norm(const Tensor &x, int64_t groups, const Tensor &weight,
                  const Tensor &bias, double eps) {
  detail::CountedOp counted;
  if (x.dim() < 2)
    throw Error("group_norm: expected an input of 2 or more dims [N, C, ...], "
                "got shape " +
                shapeStr(x.shape()));
  requireFloating(x, "group_norm");
  int64_t channels = x.size(1);
  if (groups <= 0 || channels % groups != 0)
    throw Error("group_norm: " + std::to_string(channels) +
                " channels do not split into " + std::to_string(groups) +
                " groups");
  for (const Tensor *t : {&weight, &bias})
    if (t->defined() && t->shape() != Shape{channels})
      throw Error("group_norm: weight and bias must have shape [" +
                  std::to_string(channels) + "] (the input's dim 1), got " +
                  shapeStr(t->shape()));
  // Each group's elements in a row: [N, G, C / G * spatial].
  Tensor rows = x.unflatten(1, {groups, -1}).flatten(2, -1);
  Tensor centred = rows - rows.mean({-1}, true);
  Tensor variance = (centred * centred).mean({-1}, true);
  Tensor y = (centred * rsqrt(variance + eps)).reshape_as(x);
  if (!weight.defined() && !bias.defined())
    return y;
  // Channels last, where [C] broadcasts, and back.
  y = y.transpose(1, -1);
  if (weight.defined())
    y = y * weight;
  if (bias.defined())
    y = y + bias;
  return y.transpose(1, -1).to(x.dtype());
}

Tensor instance_norm(const Tensor &x, const Tensor &weight, const Tensor &bias,
                     double eps) {
  detail::CountedOp counted;
  if (x.dim() < 3)
    throw Error("instance_norm: expected an input of 3 or more dims [N, C, "
                "spatial...], got shape " +
                shapeStr(x.shape()));
  return group_norm(x, x.size(1), weight, bias, eps);
}

Tensor Tensor::reshape_as(const Tensor &other) const {
  return reshape(other.shape());
}

Tensor Tensor::view_as(const Tensor &other) const {
  return view(other.shape());
}

Tensor Tensor::expand_as(const Tensor &other) const {
  return expand(other.shape());
}

} // namespace kiln

namespace kiln {

Tensor einsum(const std::string &equation, const std::vector<Tensor> &given) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  std::vector<Tensor> operands;
  for (const Tensor &t : given)
    operands.push_back(autocast(t));
  std::vector<int64_t> ranks;
  for (const Tensor &t : operands) {
    detail::checkCpu(t, "einsum");
    ranks.push_back(t.dim());
  }
  detail::EinsumPlan plan = detail::planEinsum(equation, ranks);
  if (!plan.error.empty())
    throw Error(plan.error);
  std::vector<Tensor> t;
  for (size_t i = 0; i < operands.size(); ++i) {
    Tensor x = operands[i];
    if (!plan.operands[i].sumDims.empty())
      x = sum(x, Dims(plan.operands[i].sumDims));
    t.push_back(x.permute(plan.operands[i].perm));
  }
  if (t.size() == 1)
    return t[0];
  // [batch, kept, contracted] x [batch, contracted, kept] as [batch, M, K]
  // x [batch, K, N]: one matmul, batch dims broadcast.
  int64_t nb = plan.batch, nl = plan.leftKept, nc = plan.contracted,
          nr = plan.rightKept;
  const Tensor &a = t[0], &b = t[1];
  int64_t m = 1, k = 1, n = 1;
  Shape aShape(a.shape().begin(), a.shape().begin() + nb),
      bShape(b.shape().begin(), b.shape().begin() + nb), kept;
  for (int64_t d = 0; d < nl; ++d) {
    m *= a.size(nb + d);
    kept.push_back(a.size(nb + d));
  }
  for (int64_t d = 0; d < nc; ++d) {
    if (a.size(nb + nl + d) != b.size(nb + d))
      throw Error("einsum: a contracted subscript has size " +
                  std::to_string(a.size(nb + nl + d)) + " in one operand and " +
                  std::to_string(b.size(nb + d)) + " in the other (\"" +
                  equation + "\")");
    k *= b.size(nb + d);
  }
  for (int64_t d = 0; d < nr; ++d) {
    n *= b.size(nb + nc + d);
    kept.push_back(b.size(nb + nc + d));
  }
  aShape.insert(aShape.end(), {m, k});
  bShape.insert(bShape.end(), {k, n});
  Tensor p = matmul(a.reshape(aShape), b.reshape(bShape));
  Shape out(p.shape().begin(), p.shape().begin() + nb);
  out.insert(out.end(), kept.begin(), kept.end());
  return p.reshape(out).permute(plan.outPerm);
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  detail::CountedOp counted;
  if (steps < 0)
    throw Error("linspace: the number of steps must be non-negative, got " +
                std::to_string(steps));
  if (!isFloating(dtype))
    throw detail::unsupportedDType("linspace", dtype);
  // torch's: the first half counted up from start, the second down from
  // end, so that both ends are exact.
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  Tensor i = arange(steps).to(dtype);
  Tensor up = i * step + start;
  Tensor down = (static_cast<double>(steps - 1) - i) * -step + end;
  return where(i < static_cast<double>(steps / 2), up, down).to(dtype);
}

} // namespace kiln
