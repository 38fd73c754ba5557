//===- Reduction.cpp - sum, mean, amax, amin, prod; cumsum, cumprod -------===//
//
// The reduced dims are permuted to the end (a view); when that view is not
// contiguous it is copied once, so every kernel reduces unit-stride rows.
// Float sums accumulate in double. Threads split the output rows, or the
// row itself when there are too few rows to go round.
//
//===----------------------------------------------------------------------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kiln {
using namespace detail;

namespace {

struct ReductionPlan {
  Tensor rows;    // [outer, inner], contiguous
  Shape outShape; // with or without the kept size-1 dims
  int64_t outer = 1, inner = 1;
};

ReductionPlan planReduction(const Tensor &x, const Shape &dims, bool keepdim,
                            const char *op) {
  checkCpu(x, op);
  int64_t rank = x.dim();
  std::vector<bool> reduced(std::max<int64_t>(rank, 1), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrapDim(d, rank, op);
    if (reduced[w] && !dims.empty())
      throw Error(std::string(op) + ": dim " + std::to_string(d) +
                  " appears more than once in " + shapeStr(dims));
    reduced[w] = true;
  }
  ReductionPlan plan;
  Shape order;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) {
      order.push_back(d);
      plan.outer *= x.shape()[d];
      plan.outShape.push_back(x.shape()[d]);
    } else if (keepdim) {
      plan.outShape.push_back(1);
    }
  if (keepdim) {
    plan.outShape.clear();
    for (int64_t d = 0; d < rank; ++d)
      plan.outShape.push_back(reduced[d] ? 1 : x.shape()[d]);
  }
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d]) {
      order.push_back(d);
      plan.inner *= x.shape()[d];
    }
  plan.rows = x.permute(order).contiguous();
  return plan;
}

/// out[i] = finish(fold of row i). Acc is the accumulator type; T the
/// element type of rows.
template <typename Acc, typename T, typename Fold, typename Finish>
void reduceRows(const ReductionPlan &plan, const Tensor &out, Acc init,
                const Fold &fold, const Finish &finish) {
  const T *in = plan.rows.template data<T>();
  auto *o = out.raw_data();
  int64_t outer = plan.outer, inner = plan.inner;
  auto foldRange = [&](const T *row, int64_t begin, int64_t end) {
    Acc acc = init;
    for (int64_t j = begin; j < end; ++j)
      acc = fold(acc, static_cast<Acc>(row[j]));
    return acc;
  };
  if (outer >= 8 || outer * inner < kParallelThreshold) {
    parallelFor(outer, outer * inner, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        finish(o, i, foldRange(in + i * inner, 0, inner));
    });
    return;
  }
  // Few long rows: threads split each row, then the partials are folded.
  for (int64_t i = 0; i < outer; ++i) {
    const T *row = in + i * inner;
    constexpr int64_t kChunks = 64;
    std::vector<Acc> partial(kChunks, init);
    int64_t chunk = (inner + kChunks - 1) / kChunks;
    parallelFor(kChunks, inner, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c)
        partial[c] = foldRange(row, std::min(inner, c * chunk),
                               std::min(inner, (c + 1) * chunk));
    });
    Acc acc = init;
    for (const Acc &p : partial)
      acc = fold(acc, p);
    finish(o, i, acc);
  }
}

template <typename T> struct SumAcc {
  using type =
      std::conditional_t<std::is_floating_point<T>::value, double, uint64_t>;
};

/// sum, mean or prod: floats accumulate in double, integers and bools as
/// int64 (wrapping); mean takes floats only.
Tensor accumulate(const Tensor &x, const Shape &dims, bool keepdim,
                  const char *op) {
  checkCpu(x, op);
  bool mean = std::strcmp(op, "mean") == 0, prod = std::strcmp(op, "prod") == 0;
  DType result = isFloating(x.dtype()) ? x.dtype() : DType::I64;
  if (mean && !isFloating(x.dtype()))
    throw Error(std::string("mean: input dtype must be floating, got ") +
                dtypeName(x.dtype()) + "; convert with to(kiln::kFloat32)");
  DType ct = computeType(result);
  ReductionPlan plan = planReduction(x.to(ct), dims, keepdim, op);
  Tensor out(plan.outShape, ct);
  double count = static_cast<double>(plan.inner);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same<T, float>::value ||
                  std::is_same<T, double>::value ||
                  std::is_same<T, int64_t>::value) {
      using Acc = typename SumAcc<T>::type;
      reduceRows<Acc, T>(
          plan, out, Acc(prod ? 1 : 0),
          [prod](Acc a, Acc b) { return prod ? a * b : a + b; },
          [&](void *o, int64_t i, Acc acc) {
            if constexpr (std::is_floating_point<T>::value)
              static_cast<T *>(o)[i] = static_cast<T>(mean ? acc / count : acc);
            else
              static_cast<T *>(o)[i] = static_cast<T>(acc); // wraps
          });
    }
  });
  return ct == result ? out : out.to(result);
}

Tensor extremum(const Tensor &x, const Shape &dims, bool keepdim, bool max) {
  const char *op = max ? "amax" : "amin";
  checkCpu(x, op);
  DType ct = computeType(x.dtype());
  ReductionPlan plan = planReduction(x.to(ct), dims, keepdim, op);
  if (plan.inner == 0)
    throw Error(std::string(op) +
                ": cannot reduce over a dim of size 0 "
                "(input shape " +
                shapeStr(x.shape()) + ", dims " + shapeStr(dims) + ")");
  Tensor out(plan.outShape, ct);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto fold = [max](T a, T b) {
      if (a != a || b != b) // NaN propagates
        return a != a ? a : b;
      return max ? (b > a ? b : a) : (b < a ? b : a);
    };
    T initValue = std::numeric_limits<T>::has_infinity
                      ? (max ? -std::numeric_limits<T>::infinity()
                             : std::numeric_limits<T>::infinity())
                      : (max ? std::numeric_limits<T>::lowest()
                             : std::numeric_limits<T>::max());
    reduceRows<T, T>(plan, out, initValue, fold, [](void *o, int64_t i, T acc) {
      static_cast<T *>(o)[i] = acc;
    });
  });
  return ct == x.dtype() ? out : out.to(x.dtype());
}

/// The index of the first extremum of each row (NaN counts as one).
Tensor argExtremum(const Tensor &x, std::optional<int64_t> dim, bool keepdim,
                   bool max) {
  const char *op = max ? "argmax" : "argmin";
  checkCpu(x, op);
  if (x.dtype() == kBool)
    throw unsupportedDType(op, x.dtype());
  DType ct = computeType(x.dtype());
  ReductionPlan plan =
      planReduction(x.to(ct), dim ? Shape{*dim} : Shape{}, keepdim, op);
  if (plan.inner == 0)
    throw Error(std::string(op) +
                ": cannot take the index over an empty dim (input shape " +
                shapeStr(x.shape()) + ")");
  Tensor out(plan.outShape, DType::I64);
  int64_t *o = out.data<int64_t>();
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = plan.rows.template data<T>();
    int64_t inner = plan.inner;
    parallelFor(plan.outer, plan.outer * inner,
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i) {
                    const T *row = in + i * inner;
                    T best = row[0];
                    int64_t at = 0;
                    for (int64_t j = 1; j < inner; ++j) {
                      T v = row[j];
                      bool nan = v != v && best == best;
                      if (nan || (max ? v > best : v < best)) {
                        best = v;
                        at = j;
                      }
                    }
                    o[i] = at;
                  }
                });
  });
  return out;
}

} // namespace

Tensor argmax(const Tensor &x, std::optional<int64_t> dim, bool keepdim) {
  detail::CountedOp counted;
  return argExtremum(x, dim, keepdim, true);
}
Tensor argmin(const Tensor &x, std::optional<int64_t> dim, bool keepdim) {
  detail::CountedOp counted;
  return argExtremum(x, dim, keepdim, false);
}

namespace {
using autograd::Grads;
using autograd::Needs;
using autograd::SavedTensor;

/// sum, mean, prod, amax and amin, recorded with their formulas.
Tensor reduction(const char *op, const char *node, const Tensor &x,
                 const Shape &dims, bool keepdim) {
  autograd::Recorder grad(node, x);
  bool isMax = std::strcmp(op, "amax") == 0,
       isMin = std::strcmp(op, "amin") == 0;
  Tensor out = isMax || isMin ? extremum(x, dims, keepdim, isMax)
                              : accumulate(x, dims, keepdim, op);
  if (!grad)
    return out;
  std::string kind = op;
  grad.record(out, [kind, dims, keepdim, shape = x.shape(), sx = grad.save(x),
                    so = grad.save(out, true)](const Grads &g, const Needs &) {
    Tensor gi =
        autograd::restoreReducedDims(g[0], shape, dims, keepdim).expand(shape);
    if (kind == "sum")
      return Grads{gi};
    if (kind == "mean")
      return Grads{
          gi * (static_cast<double>(g[0].numel()) /
                static_cast<double>(std::max<int64_t>(shapeNumel(shape), 1)))};
    Tensor x = sx.get(),
           o = autograd::restoreReducedDims(so.get(), shape, dims, keepdim);
    if (kind == "prod") {
      // Exact with zeros: an element's gradient is the product of the
      // others, which is zero when another element is zero.
      Tensor zero = x == 0;
      Tensor zerosIn = autograd::restoreReducedDims(
          kiln::sum(zero, dims, keepdim), shape, dims, keepdim);
      Tensor others = autograd::restoreReducedDims(
          kiln::prod(where(zero, 1, x).to(x.dtype()), dims, keepdim), shape,
          dims, keepdim);
      Tensor each = where(zerosIn == 0, o / where(zero, 1, x).to(x.dtype()),
                          where(logical_and(zerosIn == 1, zero), others, 0));
      return Grads{gi * each};
    }
    // amax, amin: shared evenly between the elements that tie.
    Tensor hit = (x == o).to(g[0].dtype());
    Tensor ties = autograd::restoreReducedDims(kiln::sum(hit, dims, keepdim),
                                               shape, dims, keepdim);
    return Grads{gi * hit / ties};
  });
  return out;
}
} // namespace

Tensor sum(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return reduction("sum", "SumBackward1", x, dims.vec(), keepdim);
}
Tensor mean(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return reduction("mean", "MeanBackward1", x, dims.vec(), keepdim);
}
Tensor amax(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return reduction("amax", "AmaxBackward0", x, dims.vec(), keepdim);
}
Tensor prod(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return reduction("prod", "ProdBackward1", x, dims.vec(), keepdim);
}
Tensor amin(const Tensor &x, const Dims &dims, bool keepdim) {
  detail::CountedOp counted;
  return reduction("amin", "AminBackward0", x, dims.vec(), keepdim);
}

namespace {
/// The running sum or product along dim: floats accumulate in double
/// (ATen's CPU accumulator) and round each output, integers and bools as
/// int64, wrapping. Compiled code scans the same way (kiln.cumsum).
Tensor cumulative(const Tensor &x, int64_t dim, std::optional<DType> dtype,
                  bool product, const char *op) {
  checkCpu(x, op);
  int64_t rank = x.dim();
  int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), op);
  DType result =
      dtype ? *dtype : (isFloating(x.dtype()) ? x.dtype() : DType::I64);
  if (result == DType::Bool || result == DType::I32)
    throw Error(std::string(op) + ": dtype " + dtypeName(result) +
                " is not supported (int64 or a floating dtype)");
  bool floating = isFloating(result);
  DType acc = floating ? DType::F64 : DType::I64;
  Tensor src = x.to(result).to(acc).contiguous();
  Tensor out(src.shape(), acc);
  const Shape &shape = src.shape();
  int64_t n = rank > 0 ? shape[d] : 1, inner = 1, outer = 1;
  for (int64_t k = 0; k < rank; ++k)
    (k < d ? outer : k > d ? inner : n) *= k == d ? 1 : shape[k];
  int64_t rows = outer * inner;
  auto scan = [&](auto init, auto combine) {
    using T = decltype(init);
    const T *in = static_cast<const T *>(src.raw_data());
    T *o = static_cast<T *>(out.raw_data());
    parallelFor(rows, rows * n, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        int64_t base = (r / inner) * n * inner + r % inner;
        T running = init;
        for (int64_t j = 0; j < n; ++j) {
          running = combine(running, in[base + j * inner]);
          o[base + j * inner] = running;
        }
      }
    });
  };
  if (floating && product)
    scan(1.0, [](double a, double b) { return a * b; });
  else if (floating)
    scan(0.0, [](double a, double b) { return a + b; });
  else if (product) // wrapping, as unsigned arithmetic
    scan(int64_t(1), [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) *
                                  static_cast<uint64_t>(b));
    });
  else
    scan(int64_t(0), [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) +
                                  static_cast<uint64_t>(b));
    });
  return out.to(result);
}
} // namespace

Tensor cumsum(const Tensor &x, int64_t dim, std::optional<DType> dtype) {
  detail::CountedOp counted;
  autograd::Recorder grad("CumsumBackward0", x);
  Tensor out = cumulative(x, dim, dtype, false, "cumsum");
  if (grad)
    grad.record(out, [dim](const Grads &g, const Needs &) {
      // The sums of the gradients from each element to the end.
      return Grads{flip(kiln::cumsum(flip(g[0], {dim}), dim), {dim})};
    });
  return out;
}
Tensor cumprod(const Tensor &x, int64_t dim, std::optional<DType> dtype) {
  detail::CountedOp counted;
  autograd::Recorder grad("CumprodBackward0", x);
  Tensor out = cumulative(x, dim, dtype, true, "cumprod");
  if (grad)
    grad.record(out, [dim, sx = grad.save(x), so = grad.save(out, true)](
                         const Grads &g, const Needs &) {
      // ATen's cumprod_backward: x_i's gradient is the sum over j >= i of
      // g_j y_j / x_i. Where a slice holds a zero at k, that holds before k;
      // at k it is the same sum with the products y' of x with x_k taken
      // as 1 (y'_j = y_{k-1} x_{k+1}..x_j); after k it is 0.
      Tensor x = sx.get(), y = so.get();
      auto fromHere = [dim](const Tensor &v) { // sum over j >= i
        return flip(kiln::cumsum(flip(v, {dim}), dim), {dim});
      };
      Tensor isZero = x == 0;
      if (x.numel() == 0 || !any(isZero).item<bool>())
        return Grads{fromHere(g[0] * y) / x};
      Tensor zeros = kiln::cumsum(isZero.to(DType::I64), dim);
      Tensor before = zeros == 0;
      Tensor upToFirst = (zeros - isZero.to(DType::I64)) == 0;
      Tensor safe = where(before, x, 1.0);
      Tensor atFirst =
          fromHere(g[0] * kiln::cumprod(where(upToFirst, safe, x), dim));
      return Grads{where(before, fromHere(g[0] * y) / safe,
                         where(upToFirst, atFirst, 0.0))};
    });
  return out;
}
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype) const {
  return kiln::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const {
  return kiln::cumprod(*this, dim, dtype);
}

} // namespace kiln
