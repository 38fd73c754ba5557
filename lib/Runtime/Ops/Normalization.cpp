//===- Normalization.cpp - softmax, log_softmax, layer_norm, rms_norm -----===//
//
// Each works on rows: the normalised dims are made the innermost,
// contiguous ones, and threads take whole rows. Softmax subtracts the row
// maximum before exponentiating; norms accumulate in double for float32 and
// take the variance as the mean of squared deviations (two passes over a
// row that sits in cache), not E[x^2] - E[x]^2.
//
//===----------------------------------------------------------------------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/VecMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {
using namespace detail;

namespace {

DType floatingCompute(const Tensor &x, const char *op) {
  checkCpu(x, op);
  if (!isFloating(x.dtype()))
    throw Error(std::string(op) + ": input dtype must be floating, got " +
                dtypeName(x.dtype()) + "; convert with to(kiln::kFloat32)");
  return computeType(x.dtype());
}

/// Applies rowKernel(in, out, n) to every row of length n along dim, which
/// it first makes the innermost, contiguous dim.
template <typename Row>
Tensor mapRows(const Tensor &x, int64_t dim, const char *op,
               const Row &rowKernel) {
  DType ct = floatingCompute(x, op);
  int64_t d = wrapDim(dim, x.dim(), op);
  int64_t last = std::max<int64_t>(x.dim() - 1, 0);
  Tensor moved = (x.dim() == 0 ? x : x.transpose(d, last)).to(ct).contiguous();
  Tensor out(moved.shape(), ct);
  int64_t n = moved.dim() == 0 ? 1 : moved.shape().back();
  int64_t rows = n == 0 ? 0 : moved.numel() / n;
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<T>::value) {
      const T *in = moved.data<T>();
      T *o = out.data<T>();
      parallelFor(rows, rows * n, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          KILN_INLINE_CALL rowKernel(in + r * n, o + r * n, n);
      });
    }
  });
  Tensor result = x.dim() == 0 ? out : out.transpose(d, last).contiguous();
  return result.to(x.dtype());
}

/// out = exp(in - max); returns the sum (in double for float).
template <typename T>
double expShiftedSum(const T *in, T *out, int64_t n, T max) {
  // A row of -inf has max -inf: shift by 0 so it gives NaN like torch.
  T shift = std::isinf(max) ? T(0) : max;
  double sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    T e = vexp(in[i] - shift);
    out[i] = e;
    sum += e;
  }
  return sum;
}

/// Where the normalised dims of x (the last weight.dim()) must match.
void checkNormalizedShape(const Tensor &x, const Tensor &weight,
                          const Tensor &bias, const char *op) {
  checkCpu(weight, op);
  if (bias.defined())
    checkCpu(bias, op);
  const Shape &xs = x.shape(), &ws = weight.shape();
  bool ok = ws.size() <= xs.size() &&
            std::equal(ws.begin(), ws.end(), xs.end() - ws.size());
  if (!ok)
    throw Error(std::string(op) + ": the weight's shape " + shapeStr(ws) +
                " must match the last dims of the input's shape " +
                shapeStr(xs));
  if (bias.defined() && bias.shape() != ws)
    throw Error(std::string(op) + ": the bias's shape " +
                shapeStr(bias.shape()) + " differs from the weight's " +
                shapeStr(ws));
}

/// The affine row normalisation shared by layer_norm (center = true) and
/// rms_norm: out = (x - mean?) * rsqrt(var + eps) * weight + bias?.
Tensor normalizeRows(const Tensor &x, const Tensor &weight, const Tensor &bias,
                     double eps, bool center, const char *op) {
  DType ct = floatingCompute(x, op);
  checkNormalizedShape(x, weight, bias, op);
  int64_t n = weight.numel();
  Tensor in = x.to(ct).contiguous();
  Tensor w = weight.to(ct).contiguous();
  Tensor b = bias.defined() ? bias.to(ct).contiguous() : Tensor();
  Tensor out(in.shape(), ct);
  int64_t rows = n == 0 ? 0 : in.numel() / n;
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<T>::value) {
      const T *pi = in.data<T>(), *pw = w.data<T>();
      const T *pb = b.defined() ? b.data<T>() : nullptr;
      T *po = out.data<T>();
      parallelFor(rows, rows * n, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T *row = pi + r * n;
          T *orow = po + r * n;
          double mean = 0;
          if (center) {
#pragma omp simd reduction(+ : mean)
            for (int64_t i = 0; i < n; ++i)
              mean += row[i];
            mean /= static_cast<double>(n);
          }
          double var = 0;
#pragma omp simd reduction(+ : var)
          for (int64_t i = 0; i < n; ++i) {
            double dev = row[i] - mean;
            var += dev * dev;
          }
          var /= static_cast<double>(n);
          T scale = static_cast<T>(1.0 / std::sqrt(var + eps));
          T shift = static_cast<T>(mean);
          if (pb) {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i)
              orow[i] = (row[i] - shift) * scale * pw[i] + pb[i];
          } else {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i)
              orow[i] = (row[i] - shift) * scale * pw[i];
          }
        }
      });
    }
  });
  return out.to(x.dtype());
}

} // namespace

namespace {
Tensor softmaxRows(const Tensor &x, int64_t dim) {
  return mapRows(x, dim, "softmax", [](const auto *in, auto *out, int64_t n) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
    T max = rowMax(in, n);
    T inv = static_cast<T>(1.0 / expShiftedSum(in, out, n, max));
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      out[i] *= inv;
  });
}

Tensor logSoftmaxRows(const Tensor &x, int64_t dim) {
  return mapRows(
      x, dim, "log_softmax", [](const auto *in, auto *out, int64_t n) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
        T max = rowMax(in, n);
        T shift = std::isinf(max) ? T(0) : max;
        T logSum = static_cast<T>(std::log(expShiftedSum(in, out, n, max)));
#pragma omp simd
        for (int64_t i = 0; i < n; ++i)
          out[i] = in[i] - shift - logSum;
      });
}

} // namespace

namespace {
using autograd::Grads;
using autograd::Needs;

/// The gradients of the row normalisation (layer_norm's, or rms_norm's
/// without centring) from the saved input, recomputing the statistics.
Grads normalizeRowsBackward(const Tensor &g, const Tensor &x,
                            const Tensor &weight, double eps, bool center,
                            const Needs &needs) {
  Shape rowDims, leadDims;
  for (int64_t d = 0; d < x.dim(); ++d)
    (d < x.dim() - weight.dim() ? leadDims : rowDims).push_back(d);
  Tensor centred = center ? x - mean(x, rowDims, true) : x;
  Tensor rstd = rsqrt(mean(centred * centred, rowDims, true) + eps);
  Tensor xhat = centred * rstd;
  Tensor gxhat = g * weight;
  Tensor gx;
  if (needs[0]) {
    Tensor inner = gxhat - xhat * mean(gxhat * xhat, rowDims, true);
    if (center)
      inner = inner - mean(gxhat, rowDims, true);
    gx = rstd * inner;
  }
  // (No leading dims: the weight's gradient is the product itself.)
  auto overLead = [&](const Tensor &t) {
    return leadDims.empty() ? t : sum(t, leadDims);
  };
  Grads out{gx, needs[1] ? overLead(g * xhat) : Tensor()};
  if (needs.size() > 2)
    out.push_back(needs[2] ? overLead(g) : Tensor());
  return out;
}
} // namespace

Tensor softmax(const Tensor &x, int64_t dim) {
  detail::CountedOp counted;
  autograd::Recorder grad("SoftmaxBackward0", x);
  Tensor out = softmaxRows(x, dim);
  if (grad)
    grad.record(
        out, [dim, sy = grad.save(out, true)](const Grads &g, const Needs &) {
          Tensor y = sy.get();
          return Grads{y * (g[0] - sum(g[0] * y, dim, true))};
        });
  return out;
}

Tensor log_softmax(const Tensor &x, int64_t dim) {
  detail::CountedOp counted;
  autograd::Recorder grad("LogSoftmaxBackward0", x);
  Tensor out = logSoftmaxRows(x, dim);
  if (grad)
    grad.record(
        out, [dim, sy = grad.save(out, true)](const Grads &g, const Needs &) {
          return Grads{g[0] - exp(sy.get()) * sum(g[0], dim, true)};
        });
  return out;
}

Tensor layer_norm(const Tensor &x, const Tensor &weight, const Tensor &bias,
                  double eps) {
  detail::CountedOp counted;
  autograd::Recorder grad("NativeLayerNormBackward0", x, weight, bias);
  Tensor out =
      normalizeRows(x, weight, bias, eps, /*center=*/true, "layer_norm");
  if (grad)
    grad.record(out, [eps, sx = grad.save(x),
                      sw = grad.save(weight)](const Grads &g, const Needs &n) {
      return normalizeRowsBackward(g[0], sx.get(), sw.get(), eps, true, n);
    });
  return out;
}

Tensor rms_norm(const Tensor &x, const Tensor &weight, double eps) {
  detail::CountedOp counted;
  autograd::Recorder grad("RmsNormBackward0", x, weight);
  Tensor out =
      normalizeRows(x, weight, Tensor(), eps, /*center=*/false, "rms_norm");
  if (grad)
    grad.record(out, [eps, sx = grad.save(x),
                      sw = grad.save(weight)](const Grads &g, const Needs &n) {
      return normalizeRowsBackward(g[0], sx.get(), sw.get(), eps, false, n);
    });
  return out;
}

} // namespace kiln
