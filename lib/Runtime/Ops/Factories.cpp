//===- Factories.cpp - empty, zeros, ones, full, arange, randn, cat -------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"

#include <cmath>

namespace kiln {
using namespace detail;

Tensor empty(const Shape &shape, DType dtype) {
  detail::CountedOp counted;
  return Tensor(shape, dtype);
}

Tensor full(const Shape &shape, Scalar value, DType dtype) {
  detail::CountedOp counted;
  Tensor t(shape, dtype);
  dispatchAll(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = value.isFloating() ? convertValue<T>(value.toDouble())
                             : convertValue<T>(value.toInt());
    T *p = t.data<T>();
    int64_t n = t.numel();
    parallelFor(n, n, [&](int64_t begin, int64_t end) {
      std::fill(p + begin, p + end, v);
    });
  });
  return t;
}

Tensor zeros(const Shape &shape, DType dtype) {
  detail::CountedOp counted;
  return full(shape, 0, dtype);
}
Tensor ones(const Shape &shape, DType dtype) {
  detail::CountedOp counted;
  return full(shape, 1, dtype);
}

void detail::checkValueCount(size_t count, const Tensor &t) {
  detail::CountedOp counted; // from_vector<T>'s one call into the runtime
  if (static_cast<int64_t>(count) != t.numel())
    throw Error("from_vector: " + std::to_string(count) +
                " values do not fill shape " + shapeStr(t.shape()) + " (" +
                std::to_string(t.numel()) + " elements)");
}

Tensor from_vector(const std::vector<bool> &values, const Shape &shape) {
  detail::CountedOp counted;
  Tensor t(shape, DType::Bool);
  detail::checkValueCount(values.size(), t);
  bool *p = t.data<bool>();
  for (size_t i = 0; i < values.size(); ++i)
    p[i] = values[i];
  return t;
}

Tensor arange(int64_t n) {
  detail::CountedOp counted;
  return arange(0, n, 1);
}

Tensor arange(Scalar start, Scalar end, Scalar step) {
  detail::CountedOp counted;
  bool integral =
      !start.isFloating() && !end.isFloating() && !step.isFloating();
  double s = start.toDouble(), e = end.toDouble(), d = step.toDouble();
  if (d == 0 || !std::isfinite(s) || !std::isfinite(e) || !std::isfinite(d))
    throw Error("arange: the step must be nonzero and the bounds finite, got "
                "start " +
                std::to_string(s) + ", end " + std::to_string(e) + ", step " +
                std::to_string(d));
  if ((d > 0 && e < s) || (d < 0 && e > s))
    throw Error("arange: the step " + std::to_string(d) +
                " goes away from end " + std::to_string(e) + " (start " +
                std::to_string(s) + ")");
  int64_t n = integral ? (end.toInt() - start.toInt() + step.toInt() +
                          (step.toInt() > 0 ? -1 : 1)) /
                             step.toInt()
                       : static_cast<int64_t>(std::ceil((e - s) / d));
  Tensor t({std::max<int64_t>(n, 0)}, integral ? DType::I64 : DType::F32);
  if (integral) {
    int64_t *p = t.data<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = start.toInt() + i * step.toInt();
  } else {
    float *p = t.data<float>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<float>(s + static_cast<double>(i) * d);
  }
  return t;
}

/// Output `index` of SplitMix64 seeded with seed (Steele, Lea and Flood).
uint64_t detail::splitMix64(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

/// A double in [0, 1) from the top 53 bits.
double unitDouble(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}
} // namespace

Tensor randn(const Shape &shape, uint64_t seed, DType dtype) {
  detail::CountedOp counted;
  if (!isFloating(dtype))
    throw Error(std::string("randn: dtype must be floating, got ") +
                dtypeName(dtype));
  Tensor t(shape, DType::F64);
  double *p = t.data<double>();
  int64_t n = t.numel();
  // Elements 2i and 2i+1 are the Box-Muller pair of draws 2i and 2i+1: a
  // pure function of (seed, index), so threads and machines agree.
  parallelFor(n, 8 * n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      uint64_t pair = static_cast<uint64_t>(i) / 2;
      double u1 = unitDouble(splitMix64(seed, 2 * pair));
      double u2 = unitDouble(splitMix64(seed, 2 * pair + 1));
      double r = std::sqrt(-2.0 * std::log(1.0 - u1));
      double theta = 6.283185307179586 * u2;
      p[i] = (i % 2 == 0) ? r * std::cos(theta) : r * std::sin(theta);
    }
  });
  return t.to(dtype);
}

Tensor rand(const Shape &shape, uint64_t seed, DType dtype) {
  detail::CountedOp counted;
  if (!isFloating(dtype))
    throw Error(std::string("rand: dtype must be floating, got ") +
                dtypeName(dtype));
  Tensor t(shape, DType::F64);
  double *p = t.data<double>();
  int64_t n = t.numel();
  parallelFor(n, 4 * n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      p[i] = unitDouble(splitMix64(seed, static_cast<uint64_t>(i)));
  });
  return t.to(dtype);
}

Tensor randint(int64_t low, int64_t high, const Shape &shape, uint64_t seed,
               DType dtype) {
  detail::CountedOp counted;
  if (high <= low)
    throw Error("randint: high (" + std::to_string(high) +
                ") must be greater than low (" + std::to_string(low) + ")");
  if (dtype == DType::Bool)
    throw Error("randint: dtype must be numeric, got bool");
  // The frontend traces the same composition.
  return (floor(rand(shape, seed, DType::F64) *
                static_cast<double>(high - low)) +
          low)
      .to(dtype);
}

Tensor randint(int64_t high, const Shape &shape, uint64_t seed, DType dtype) {
  detail::CountedOp counted;
  return randint(0, high, shape, seed, dtype);
}

static Tensor catForward(const std::vector<Tensor> &tensors, int64_t dim);

Tensor cat(const std::vector<Tensor> &tensors, int64_t dim) {
  detail::CountedOp counted;
  autograd::Recorder grad("CatBackward0", tensors);
  Tensor out = catForward(tensors, dim);
  if (grad) {
    Shape sizes;
    for (const Tensor &t : tensors)
      sizes.push_back(t.dim() == 1 && t.numel() == 0 ? -1 : t.size(dim));
    grad.record(
        out, [sizes, dim](const autograd::Grads &g, const autograd::Needs &n) {
          // Each input's slice of the gradient (none for a skipped empty one).
          autograd::Grads out(sizes.size());
          int64_t offset = 0;
          for (size_t i = 0; i < sizes.size(); ++i) {
            if (sizes[i] < 0)
              continue;
            if (n[i])
              out[i] = g[0].slice(dim, offset, offset + sizes[i]);
            offset += sizes[i];
          }
          return out;
        });
  }
  return out;
}

static Tensor catForward(const std::vector<Tensor> &tensors, int64_t dim) {
  if (tensors.empty())
    throw Error("cat: expected a non-empty list of tensors");
  // Like torch, 1-d empty tensors are skipped (legacy behaviour).
  std::vector<Tensor> parts;
  DType dtype = DType::Bool;
  bool first = true;
  for (const Tensor &t : tensors) {
    checkCpu(t, "cat");
    dtype = first ? t.dtype() : promoteTypes(dtype, t.dtype());
    first = false;
    if (!(t.dim() == 1 && t.numel() == 0))
      parts.push_back(t);
  }
  if (parts.empty())
    return Tensor({0}, dtype);
  const Tensor &ref = parts.front();
  if (ref.dim() == 0)
    throw Error("cat: zero-dimensional tensors cannot be concatenated");
  int64_t d = wrapDim(dim, ref.dim(), "cat");
  Shape shape = ref.shape();
  shape[d] = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor &t = parts[i];
    bool ok = t.dim() == ref.dim();
    for (int64_t k = 0; ok && k < ref.dim(); ++k)
      ok = k == d || t.shape()[k] == ref.shape()[k];
    if (!ok)
      throw Error("cat: tensor " + std::to_string(i) + " has shape " +
                  shapeStr(t.shape()) + " but tensor 0 has shape " +
                  shapeStr(ref.shape()) + "; they may differ only in dim " +
                  std::to_string(dim));
    shape[d] += t.shape()[d];
  }
  Tensor out(shape, dtype);
  int64_t offset = 0;
  for (const Tensor &t : parts) {
    int64_t len = t.shape()[d];
    copyConvert(out.slice(d, offset, offset + len), t);
    offset += len;
  }
  return out;
}

} // namespace kiln
