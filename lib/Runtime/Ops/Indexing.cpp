//===- Indexing.cpp - gather and the shape ops written with it ------------===//
//
// gather is a kernel of its own; index_select, flip, roll, pad, interpolate
// and max/min with indices pick elements with it, and repeat, tile, unflatten,
// chunk and split are views and reshapes. The frontend traces each into the
// same ops (Tracer::traceComposite), so compiled code computes what eager does
// by construction.
//
//===----------------------------------------------------------------------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "kiln/Ops.h"

#include <cmath>
#include <cstring>

namespace kiln {
using namespace detail;

namespace {
void requireIntegral(const Tensor &index, const char *op) {
  if (!isIntegral(index.dtype(), false))
    throw Error(std::string(op) +
                ": the index must be an integer tensor, got " +
                dtypeName(index.dtype()));
}

/// Throws unless every index lies in [0, size).
void checkIndexRange(const Tensor &index, int64_t dim, int64_t size,
                     const char *op) {
  if (index.numel() == 0)
    return;
  int64_t lo = amin(index).item<int64_t>(), hi = amax(index).item<int64_t>();
  if (lo < 0 || hi >= size)
    throw Error(std::string(op) + ": index " +
                std::to_string(lo < 0 ? lo : hi) + " is out of range for dim " +
                std::to_string(dim) + " of size " + std::to_string(size));
}

/// A 1-d tensor of a dim's size as a [1, .., n, .., 1] shape at dim d.
Tensor alongDim(const Tensor &v, int64_t d, int64_t rank) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[d] = v.numel();
  return v.reshape(shape);
}

/// Indices 0 .. n-1 as int64.
Tensor positions(int64_t n) { return arange(int64_t(0), n, int64_t(1)); }

std::vector<Tensor> slices(const Tensor &x, int64_t d, const Shape &sizes) {
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(x.slice(d, start, start + s));
    start += s;
  }
  return out;
}
} // namespace

static Tensor gatherForward(const Tensor &x, int64_t dim, const Tensor &index);

Tensor gather(const Tensor &x, int64_t dim, const Tensor &index) {
  CountedOp counted;
  autograd::Recorder grad("GatherBackward0", x, index);
  Tensor out = gatherForward(x, dim, index);
  if (grad)
    grad.record(out, [dim, shape = x.shape(), si = grad.save(index)](
                         const autograd::Grads &g, const autograd::Needs &) {
      // The gradient added back at the gathered positions.
      return autograd::Grads{
          scatter_add(zeros(shape, g[0].dtype()), dim, si.get(), g[0])};
    });
  return out;
}

static Tensor gatherForward(const Tensor &x, int64_t dim, const Tensor &index) {
  checkCpu(x, "gather");
  checkCpu(index, "gather");
  requireIntegral(index, "gather");
  int64_t rank = x.dim();
  if (index.dim() != rank)
    throw Error("gather: the index of shape " + shapeStr(index.shape()) +
                " must have as many dims as the input's shape " +
                shapeStr(x.shape()));
  int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), "gather");
  for (int64_t k = 0; k < rank; ++k)
    if (k != d && index.size(k) > x.size(k))
      throw Error("gather: the index of shape " + shapeStr(index.shape()) +
                  " is larger than the input's shape " + shapeStr(x.shape()) +
                  " at dim " + std::to_string(k));
  int64_t size = rank > 0 ? x.size(d) : 1;
  checkIndexRange(index, dim, size, "gather");
  Tensor idx = index.to(DType::I64).contiguous();
  Tensor out(index.shape(), x.dtype());
  int64_t n = out.numel();
  const int64_t *pi = idx.data<int64_t>();
  const char *src = static_cast<const char *>(x.raw_data());
  char *dst = static_cast<char *>(out.raw_data());
  size_t bytes = elementSize(x.dtype());
  const Shape &shape = index.shape(), &strides = x.strides();
  parallelFor(n, n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      int64_t rest = i, offset = 0;
      for (int64_t k = rank - 1; k >= 0; --k) {
        int64_t coord = rest % shape[k];
        rest /= shape[k];
        offset += (k == d ? pi[i] : coord) * strides[k];
      }
      std::memcpy(dst + i * bytes, src + offset * static_cast<int64_t>(bytes),
                  bytes);
    }
  });
  return out;
}

Tensor index_select(const Tensor &x, int64_t dim, const Tensor &index) {
  CountedOp counted;
  requireIntegral(index, "index_select");
  if (index.dim() > 1)
    throw Error("index_select: the index must be 1-d, got shape " +
                shapeStr(index.shape()));
  int64_t rank = x.dim();
  int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), "index_select");
  checkIndexRange(index, dim, rank > 0 ? x.size(d) : 1, "index_select");
  if (rank == 0)
    return gather(x, 0, index.reshape({}));
  Shape target = x.shape();
  target[d] = index.numel();
  return gather(x, d, alongDim(index, d, rank).expand(target));
}

Tensor flip(const Tensor &x, const Dims &dims) {
  CountedOp counted;
  int64_t rank = x.dim();
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 1)));
  Tensor y = x;
  for (int64_t dim : dims.vec()) {
    int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), "flip");
    if (seen[d])
      throw Error("flip: dim " + std::to_string(dim) + " appears twice");
    seen[d] = true;
    if (rank == 0)
      continue;
    int64_t n = x.size(d);
    y = index_select(y, d, (n - 1) - positions(n));
  }
  return y.shares_storage(x) ? y.clone() : y;
}

Tensor roll(const Tensor &x, const Shape &shifts, const Dims &dims) {
  CountedOp counted;
  const Shape &ds = dims.vec();
  if (ds.empty()) {
    if (shifts.size() != 1)
      throw Error("roll: without dims, one shift is needed, got " +
                  shapeStr(shifts));
    return roll(x.flatten(), shifts, {0}).reshape(x.shape());
  }
  if (shifts.size() != ds.size())
    throw Error("roll: " + std::to_string(shifts.size()) + " shifts for " +
                std::to_string(ds.size()) + " dims");
  Tensor y = x;
  for (size_t i = 0; i < ds.size(); ++i) {
    int64_t d = wrapDim(ds[i], x.dim(), "roll");
    int64_t n = x.size(d);
    if (n == 0)
      continue;
    int64_t r = ((shifts[i] % n) + n) % n;
    // Element j comes from (j - r) mod n.
    Tensor from = positions(n) + (n - r);
    y = index_select(y, d, where(from >= n, from - n, from));
  }
  return y.shares_storage(x) ? y.clone() : y;
}

Tensor repeat(const Tensor &x, const Shape &reps) {
  CountedOp counted;
  int64_t rank = x.dim(), k = static_cast<int64_t>(reps.size());
  if (k < rank)
    throw Error("repeat: " + std::to_string(k) + " repeats for a tensor of " +
                std::to_string(rank) + " dims (at least one per dim)");
  for (int64_t r : reps)
    if (r < 0)
      throw Error("repeat: negative repeats " + shapeStr(reps));
  // [s0, s1] as [1, s0, 1, s1], expanded to [r0, s0, r1, s1], flattened.
  Shape padded(static_cast<size_t>(k - rank), 1), interleaved, expanded, out;
  for (int64_t s : x.shape())
    padded.push_back(s);
  for (int64_t i = 0; i < k; ++i) {
    interleaved.insert(interleaved.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {reps[i], padded[i]});
    out.push_back(reps[i] * padded[i]);
  }
  return x.reshape(interleaved).expand(expanded).contiguous().reshape(out);
}

Tensor tile(const Tensor &x, const Shape &reps) {
  CountedOp counted;
  Shape full(static_cast<size_t>(std::max<int64_t>(
                 0, x.dim() - static_cast<int64_t>(reps.size()))),
             1);
  full.insert(full.end(), reps.begin(), reps.end());
  return repeat(x, full);
}

Tensor unflatten(const Tensor &x, int64_t dim, const Shape &sizes) {
  CountedOp counted;
  int64_t d = wrapDim(dim, x.dim(), "unflatten");
  if (sizes.empty())
    throw Error("unflatten: sizes must not be empty");
  int64_t known = 1, unknown = 0;
  for (int64_t s : sizes) {
    if (s == -1)
      ++unknown;
    else if (s < 0)
      throw Error("unflatten: invalid size " + shapeStr(sizes));
    else
      known *= s;
  }
  int64_t n = x.size(d);
  if (unknown > 1 || (unknown == 0 && known != n) ||
      (unknown == 1 && (known == 0 || n % known != 0)))
    throw Error("unflatten: sizes " + shapeStr(sizes) +
                " do not multiply to dim " + std::to_string(dim) + " of size " +
                std::to_string(n));
  Shape shape(x.shape().begin(), x.shape().begin() + d);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), x.shape().begin() + d + 1, x.shape().end());
  return x.reshape(shape);
}

namespace {
/// x resampled along dim d to `out` positions, as ATen's nearest_idx and
/// area_pixel_compute_source_index place them: `factor` the caller's scale
/// factor (0: from the sizes).
Tensor resampled(const Tensor &x, int64_t d, int64_t out, double factor,
                 bool bilinear, bool alignCorners) {
  int64_t n = x.size(d);
  if (!bilinear) {
    // float scale, as ATen computes it.
    float scale = factor > 0 ? static_cast<float>(1.0 / factor)
                             : static_cast<float>(n) / static_cast<float>(out);
    Tensor at = floor(positions(out).to(kFloat32) * scale).to(kInt64);
    return index_select(x, d, minimum(at, n - 1));
  }
  // Positions and weights in double (bilinear is continuous in the
  // position: where float's rounding would pick the other neighbour, its
  // weight is 0 either way).
  DType ct = kFloat64;
  double scale =
      alignCorners
          ? (out > 1 ? static_cast<double>(n - 1) / static_cast<double>(out - 1)
                     : 0.0)
      : factor > 0 ? 1.0 / factor
                   : static_cast<double>(n) / static_cast<double>(out);
  Tensor o = positions(out).to(ct);
  Tensor src = alignCorners ? o * scale : maximum((o + 0.5) * scale - 0.5, 0);
  Tensor below = floor(src).to(kInt64);
  Tensor above = minimum(below + 1, n - 1);
  Tensor far = alongDim(src - below.to(ct), d, x.dim());
  return index_select(x, d, below) * (1 - far) +
         index_select(x, d, above) * far;
}

Tensor interpolated(const Tensor &x, Shape size, double factor,
                    const std::string &mode, std::optional<bool> alignCorners) {
  checkCpu(x, "interpolate");
  if (x.dim() != 4)
    throw Error("interpolate: the input must be 4-d [N, C, H, W], got shape " +
                shapeStr(x.shape()));
  if (!isFloating(x.dtype()))
    throw unsupportedDType("interpolate", x.dtype());
  if (mode != "nearest" && mode != "bilinear")
    throw Error("interpolate: unknown mode \"" + mode +
                "\" (nearest and bilinear are supported)");
  if (mode == "nearest" && alignCorners)
    throw Error("interpolate: align_corners is bilinear's, not nearest's");
  if (factor != 0) {
    if (!(factor > 0))
      throw Error("interpolate: scale_factor must be positive, got " +
                  std::to_string(factor));
    size = {static_cast<int64_t>(
                std::floor(static_cast<double>(x.size(2)) * factor)),
            static_cast<int64_t>(
                std::floor(static_cast<double>(x.size(3)) * factor))};
  }
  Shape out = pairParam(size, "interpolate", "size", 1);
  if (x.size(2) == 0 || x.size(3) == 0 || x.size(1) == 0)
    throw Error("interpolate: only the batch dim may be empty, got shape " +
                shapeStr(x.shape()));
  bool bilinear = mode == "bilinear";
  Tensor rows =
      resampled(x, 2, out[0], factor, bilinear, alignCorners.value_or(false));
  return resampled(rows, 3, out[1], factor, bilinear,
                   alignCorners.value_or(false))
      .to(x.dtype());
}
} // namespace

Tensor interpolate(const Tensor &x, const Shape &size, const std::string &mode,
                   std::optional<bool> align_corners) {
  CountedOp counted;
  return interpolated(x, size, 0, mode, align_corners);
}

Tensor interpolate(const Tensor &x, double scale_factor,
                   const std::string &mode, std::optional<bool> align_corners) {
  CountedOp counted;
  if (scale_factor == 0)
    throw Error("interpolate: scale_factor must be positive, got 0");
  return interpolated(x, {}, scale_factor, mode, align_corners);
}

Tensor pad(const Tensor &x, const Shape &pads, const std::string &mode,
           Scalar value) {
  CountedOp counted;
  int64_t rank = x.dim(), pairs = static_cast<int64_t>(pads.size()) / 2;
  if (pads.size() % 2 != 0 || pairs > rank)
    throw Error("pad: " + shapeStr(pads) +
                " must hold a (before, after) pair for each of at most " +
                std::to_string(rank) + " trailing dims");
  if (mode != "constant" && mode != "reflect" && mode != "replicate")
    throw Error("pad: unknown mode \"" + mode +
                "\" (constant, reflect and replicate are supported)");
  Tensor y = x;
  for (int64_t j = 0; j < pairs; ++j) {
    int64_t d = rank - 1 - j, before = pads[2 * j], after = pads[2 * j + 1];
    int64_t n = x.size(d), out = n + before + after;
    if (out < 0)
      throw Error("pad: " + shapeStr(pads) + " leaves dim " +
                  std::to_string(d) + " of size " + std::to_string(n) +
                  " with a negative size");
    Tensor from = positions(out) - before;
    if (mode == "constant") {
      Shape shape = y.shape();
      shape[d] = out;
      if (n == 0) {
        y = full(shape, value, x.dtype());
        continue;
      }
      // The value converted to x's dtype, as torch fills it: the kept
      // elements stay exact (a where against the number would promote
      // an integer tensor to float).
      Tensor inside = logical_and(from >= 0, from < n);
      Tensor picked = index_select(y, d, clamp(from, 0, n - 1));
      y = where(alongDim(inside, d, rank), picked, full({}, value, x.dtype()));
    } else if (mode == "reflect") {
      if (before < 0 || after < 0 || before >= n || after >= n)
        throw Error("pad: reflect padding " + shapeStr(pads) +
                    " must be non-negative and less than dim " +
                    std::to_string(d) + "'s size " + std::to_string(n));
      Tensor mirrored = abs(from);
      y = index_select(y, d,
                       where(mirrored >= n, 2 * (n - 1) - mirrored, mirrored));
    } else {
      if (n == 0 && out > 0)
        throw Error("pad: replicate padding of the empty dim " +
                    std::to_string(d));
      y = index_select(y, d, clamp(from, 0, n - 1));
    }
  }
  return y.shares_storage(x) ? y.clone() : y;
}

std::vector<Tensor> chunk(const Tensor &x, int64_t chunks, int64_t dim) {
  CountedOp counted;
  if (chunks <= 0)
    throw Error("chunk: chunks must be positive, got " +
                std::to_string(chunks));
  int64_t d = wrapDim(dim, x.dim(), "chunk");
  int64_t n = x.size(d);
  if (n == 0)
    return slices(x, d, Shape(static_cast<size_t>(chunks), 0));
  return split(x, (n + chunks - 1) / chunks, d);
}

std::vector<Tensor> split(const Tensor &x, int64_t size, int64_t dim) {
  CountedOp counted;
  int64_t d = wrapDim(dim, x.dim(), "split");
  int64_t n = x.size(d);
  if (size < 0 || (size == 0 && n != 0))
    throw Error("split: the split size " + std::to_string(size) +
                " must be positive (or 0 for an empty dim), dim " +
                std::to_string(dim) + " has size " + std::to_string(n));
  Shape sizes;
  for (int64_t start = 0; start < n; start += size)
    sizes.push_back(std::min(size, n - start));
  if (sizes.empty())
    sizes.push_back(0);
  return slices(x, d, sizes);
}

std::vector<Tensor> split(const Tensor &x, const Shape &sizes, int64_t dim) {
  CountedOp counted;
  int64_t d = wrapDim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      throw Error("split: negative size in " + shapeStr(sizes));
    total += s;
  }
  if (total != x.size(d))
    throw Error("split: sizes " + shapeStr(sizes) + " add up to " +
                std::to_string(total) + ", not dim " + std::to_string(dim) +
                "'s size " + std::to_string(x.size(d)));
  return slices(x, d, sizes);
}

namespace {
/// The extremum along dim picked at argmax's (argmin's) index.
std::tuple<Tensor, Tensor> extremum(const Tensor &x, int64_t dim, bool keepdim,
                                    bool largest) {
  Tensor index = largest ? argmax(x, dim, true) : argmin(x, dim, true);
  Tensor values = gather(x, dim, index);
  if (keepdim)
    return {values, index};
  return {values.squeeze(dim), index.squeeze(dim)};
}
} // namespace

std::tuple<Tensor, Tensor> max(const Tensor &x, int64_t dim, bool keepdim) {
  CountedOp counted;
  return extremum(x, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor &x, int64_t dim, bool keepdim) {
  CountedOp counted;
  return extremum(x, dim, keepdim, false);
}
Tensor max(const Tensor &x) {
  CountedOp counted;
  return amax(x);
}
Tensor min(const Tensor &x) {
  CountedOp counted;
  return amin(x);
}

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return kiln::max(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return kiln::min(*this, dim, keepdim);
}
Tensor Tensor::max() const { return kiln::max(*this); }
Tensor Tensor::min() const { return kiln::min(*this); }

static Tensor scatterAddForward(const Tensor &x, int64_t dim,
                                const Tensor &index, const Tensor &src);

Tensor scatter_add(const Tensor &x, int64_t dim, const Tensor &index,
                   const Tensor &src) {
  CountedOp counted;
  autograd::Recorder grad("ScatterAddBackward0", x, index, src);
  Tensor out = scatterAddForward(x, dim, index, src);
  if (grad)
    grad.record(out, [dim, srcShape = src.shape(), si = grad.save(index)](
                         const autograd::Grads &g, const autograd::Needs &n) {
      Tensor gsrc;
      if (n[2]) {
        Tensor index = si.get();
        gsrc = gather(g[0], dim, index);
        if (gsrc.shape() != srcShape) {
          // src elements no index reaches add nothing.
          Tensor full = zeros(srcShape, g[0].dtype()), region = full;
          for (int64_t k = 0; k < index.dim(); ++k)
            region = region.slice(k, 0, index.size(k));
          region.copy_(gsrc);
          gsrc = full;
        }
      }
      return autograd::Grads{g[0], Tensor(), gsrc};
    });
  return out;
}

static Tensor scatterAddForward(const Tensor &x, int64_t dim,
                                const Tensor &index, const Tensor &src) {
  checkCpu(x, "scatter_add");
  checkCpu(index, "scatter_add");
  checkCpu(src, "scatter_add");
  requireIntegral(index, "scatter_add");
  int64_t rank = x.dim();
  if (index.dim() != rank || src.dim() != rank)
    throw Error("scatter_add: the input " + shapeStr(x.shape()) +
                ", the index " + shapeStr(index.shape()) + " and src " +
                shapeStr(src.shape()) + " must have the same number of dims");
  if (src.dtype() != x.dtype())
    throw Error(std::string("scatter_add: src has dtype ") +
                dtypeName(src.dtype()) + " but the input has " +
                dtypeName(x.dtype()));
  int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), "scatter_add");
  for (int64_t k = 0; k < rank; ++k) {
    if (index.size(k) > src.size(k))
      throw Error("scatter_add: the index of shape " + shapeStr(index.shape()) +
                  " is larger than src's shape " + shapeStr(src.shape()) +
                  " at dim " + std::to_string(k));
    if (k != d && index.size(k) > x.size(k))
      throw Error("scatter_add: the index of shape " + shapeStr(index.shape()) +
                  " is larger than the input's " + "shape " +
                  shapeStr(x.shape()) + " at dim " + std::to_string(k));
  }
  int64_t size = rank > 0 ? x.size(d) : 1;
  checkIndexRange(index, dim, size, "scatter_add");
  DType ct = computeType(x.dtype());
  Tensor out = x.to(ct).contiguous().clone();
  Tensor from = src.to(ct);
  Tensor idx = index.to(DType::I64).contiguous();
  const Shape &shape = index.shape();
  int64_t count = index.numel();
  // Serial in index order, so that float additions to one element happen
  // in the order compiled code adds them.
  auto add = [&](auto zero) {
    using T = decltype(zero);
    T *o = static_cast<T *>(out.raw_data());
    const T *s = static_cast<const T *>(from.raw_data());
    const int64_t *pi = idx.data<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, at = 0, read = 0;
      for (int64_t k = rank - 1; k >= 0; --k) {
        int64_t coord = rest % shape[k];
        rest /= shape[k];
        at += (k == d ? pi[i] : coord) * out.strides()[k];
        read += coord * from.strides()[k];
      }
      if constexpr (std::is_integral_v<T>) // wrapping
        o[at] = static_cast<T>(static_cast<uint64_t>(o[at]) +
                               static_cast<uint64_t>(s[read]));
      else
        o[at] = o[at] + s[read];
    }
  };
  if (ct == DType::F64)
    add(0.0);
  else if (ct == DType::F32)
    add(0.0f);
  else if (ct == DType::I64)
    add(int64_t(0));
  else if (ct == DType::I32)
    add(int32_t(0));
  else
    throw Error(std::string("scatter_add: dtype ") + dtypeName(x.dtype()) +
                " is not supported");
  return out.to(x.dtype());
}

Tensor Tensor::scatter_add(int64_t dim, const Tensor &index,
                           const Tensor &src) const {
  return kiln::scatter_add(*this, dim, index, src);
}

Tensor Tensor::gather(int64_t dim, const Tensor &index) const {
  return kiln::gather(*this, dim, index);
}
Tensor Tensor::index_select(int64_t dim, const Tensor &index) const {
  return kiln::index_select(*this, dim, index);
}
Tensor Tensor::flip(const Dims &dims) const { return kiln::flip(*this, dims); }
Tensor Tensor::roll(const Shape &shifts, const Dims &dims) const {
  return kiln::roll(*this, shifts, dims);
}
Tensor Tensor::repeat(const Shape &reps) const {
  return kiln::repeat(*this, reps);
}
Tensor Tensor::tile(const Shape &reps) const { return kiln::tile(*this, reps); }
Tensor Tensor::unflatten(int64_t dim, const Shape &sizes) const {
  return kiln::unflatten(*this, dim, sizes);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  return kiln::chunk(*this, chunks, dim);
}
std::vector<Tensor> Tensor::split(int64_t size, int64_t dim) const {
  return kiln::split(*this, size, dim);
}
std::vector<Tensor> Tensor::split(const Shape &sizes, int64_t dim) const {
  return kiln::split(*this, sizes, dim);
}

} // namespace kiln
