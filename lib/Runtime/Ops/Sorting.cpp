//===- Sorting.cpp - topk -------------------------------------------------===//
//
// One order for eager and compiled code: values best first (NaN the
// largest, as in torch), equal values by index. The order is total, so
// the k picked and their order are unique, and kiln.topk (which picks them
// one at a time, each the best after the last) finds the same ones.
//
//===----------------------------------------------------------------------===//
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "kiln/Ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace kiln {
using namespace detail;

std::tuple<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t dim,
                                bool largest, bool /*sorted*/) {
  CountedOp counted;
  checkCpu(x, "topk");
  if (x.dtype() == DType::Bool)
    throw Error("topk: not for bool tensors");
  int64_t rank = x.dim();
  int64_t d = wrapDim(dim, std::max<int64_t>(rank, 1), "topk");
  int64_t n = rank > 0 ? x.size(d) : 1;
  if (rank == 0 && k != 1) // torch's k = 0 would leave the 0-d result unset
    throw Error("topk: k = " + std::to_string(k) +
                " for a 0-d tensor, which has one element: k must be 1");
  if (k < 0 || k > n)
    throw Error("topk: k = " + std::to_string(k) + " is out of range for dim " +
                std::to_string(d) + " of size " + std::to_string(n) +
                " (shape " + shapeStr(x.shape()) + ")");
  // Rows along dim: floats in double, integers in int64 (exact either way).
  bool floating = isFloating(x.dtype());
  Tensor src = x.to(floating ? DType::F64 : DType::I64).contiguous();
  Shape outShape = x.shape();
  if (rank > 0)
    outShape[d] = k;
  Tensor indices(outShape, DType::I64);
  int64_t inner = 1, outer = 1;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d)
      (i < d ? outer : inner) *= x.size(i);
  int64_t rows = outer * inner;
  int64_t *out = indices.data<int64_t>();
  auto pick = [&](auto zero) {
    using T = decltype(zero);
    const T *in = static_cast<const T *>(src.raw_data());
    parallelFor(rows, rows * n, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t r = begin; r < end; ++r) {
        int64_t base = (r / inner) * n * inner + r % inner;
        auto before = [&](int64_t a, int64_t b) {
          T va = in[base + a * inner], vb = in[base + b * inner];
          bool na = va != va, nb = vb != vb; // NaN is the largest
          if (na || nb)
            return na != nb ? (largest ? na : nb) : a < b;
          if (va != vb)
            return largest ? va > vb : va < vb;
          return a < b;
        };
        std::iota(order.begin(), order.end(), int64_t(0));
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          before);
        int64_t obase = (r / inner) * k * inner + r % inner;
        for (int64_t t = 0; t < k; ++t)
          out[obase + t * inner] = order[t];
      }
    });
  };
  if (floating)
    pick(0.0);
  else
    pick(int64_t(0));
  return {gather(x, rank > 0 ? d : 0, indices), indices};
}

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest,
                                        bool sorted) const {
  return kiln::topk(*this, k, dim, largest, sorted);
}

} // namespace kiln
