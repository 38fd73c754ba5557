//===- Loops.h - Strided elementwise iteration ------------------*- C++ -*-===//
//
// The loop engine behind every elementwise op: operands (the output first)
// are described by their element strides over a common shape, adjacent dims
// that are contiguous in every operand are merged, and the flat index space
// is split into chunks over threads. Each chunk is handed to a callback as
// runs along the innermost dim, where the typed kernel loops with unit or
// zero strides (the vectorizable cases) or a general stride.
//
// Callbacks run inside OpenMP regions and must not throw: ops validate
// their inputs before they loop.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_LOOPS_H
#define KILN_RUNTIME_LOOPS_H

#include "Core/Parallel.h"
#include "kiln/Tensor.h"

#include <array>
#include <vector>

namespace kiln::detail {

template <size_t N> struct StridedLayout {
  Shape sizes;                                 // innermost last, never empty
  std::vector<std::array<int64_t, N>> strides; // per dim, per operand
  int64_t numel = 1;
};

/// Drops size-1 dims and merges dims that are contiguous in every operand.
template <size_t N>
StridedLayout<N> coalesce(const Shape &shape,
                          const std::array<const Shape *, N> &strides) {
  StridedLayout<N> out;
  for (size_t d = 0; d < shape.size(); ++d) {
    out.numel *= shape[d];
    if (shape[d] == 1)
      continue;
    std::array<int64_t, N> s;
    for (size_t k = 0; k < N; ++k)
      s[k] = (*strides[k])[d];
    if (!out.sizes.empty()) {
      bool mergeable = true;
      for (size_t k = 0; k < N; ++k)
        mergeable &= out.strides.back()[k] == s[k] * shape[d];
      if (mergeable) {
        out.sizes.back() *= shape[d];
        out.strides.back() = s;
        continue;
      }
    }
    out.sizes.push_back(shape[d]);
    out.strides.push_back(s);
  }
  if (out.sizes.empty()) {
    out.sizes.push_back(1);
    out.strides.push_back({});
  }
  return out;
}

/// Calls run(offsets, innerStrides, count) for runs of elements along the
/// innermost dim; offsets are per operand, in elements.
template <size_t N, typename Run>
void forEachRun(const StridedLayout<N> &layout, const Run &run) {
  const int64_t n = layout.sizes.back();
  const int64_t rank = static_cast<int64_t>(layout.sizes.size());
  const std::array<int64_t, N> inner = layout.strides.back();
  parallelFor(layout.numel, layout.numel * int64_t(N),
              [&](int64_t begin, int64_t end) {
                int64_t row = begin / n, col = begin % n;
                for (int64_t i = begin; i < end;) {
                  std::array<int64_t, N> off{};
                  int64_t rem = row;
                  for (int64_t d = rank - 2; d >= 0; --d) {
                    int64_t idx = rem % layout.sizes[d];
                    rem /= layout.sizes[d];
                    for (size_t k = 0; k < N; ++k)
                      off[k] += idx * layout.strides[d][k];
                  }
                  int64_t count = std::min(n - col, end - i);
                  for (size_t k = 0; k < N; ++k)
                    off[k] += col * inner[k];
                  run(off, inner, count);
                  i += count;
                  ++row;
                  col = 0;
                }
              });
}

/// out[i] = f(in[i]) over a common shape; out is contiguous.
template <typename Out, typename In, typename F>
void unaryLoop(const Tensor &out, const Tensor &in, const F &f) {
  StridedLayout<2> layout =
      coalesce<2>(out.shape(), {&out.strides(), &in.strides()});
  Out *o = static_cast<Out *>(out.raw_data());
  const In *a = static_cast<const In *>(in.raw_data());
  forEachRun(layout, [&](const std::array<int64_t, 2> &off,
                         const std::array<int64_t, 2> &st, int64_t count)
                         KILN_KERNEL_LAMBDA {
                           Out *po = o + off[0];
                           const In *pa = a + off[1];
                           if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
                             for (int64_t i = 0; i < count; ++i)
                               po[i] = f(pa[i]);
                           } else {
                             for (int64_t i = 0; i < count; ++i)
                               po[i * st[0]] = f(pa[i * st[1]]);
                           }
                         });
}

/// out[i] = f(a[i], b[i]); a and b are expanded to out's shape.
template <typename Out, typename A, typename B, typename F>
void binaryLoop(const Tensor &out, const Tensor &a, const Tensor &b,
                const F &f) {
  StridedLayout<3> layout =
      coalesce<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  Out *o = static_cast<Out *>(out.raw_data());
  const A *pa0 = static_cast<const A *>(a.raw_data());
  const B *pb0 = static_cast<const B *>(b.raw_data());
  forEachRun(layout, [&](const std::array<int64_t, 3> &off,
                         const std::array<int64_t, 3> &st, int64_t count)
                         KILN_KERNEL_LAMBDA {
                           Out *po = o + off[0];
                           const A *pa = pa0 + off[1];
                           const B *pb = pb0 + off[2];
                           if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
                             for (int64_t i = 0; i < count; ++i)
                               po[i] = f(pa[i], pb[i]);
                           } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
                             const B bv = *pb;
#pragma omp simd
                             for (int64_t i = 0; i < count; ++i)
                               po[i] = f(pa[i], bv);
                           } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
                             const A av = *pa;
#pragma omp simd
                             for (int64_t i = 0; i < count; ++i)
                               po[i] = f(av, pb[i]);
                           } else {
                             for (int64_t i = 0; i < count; ++i)
                               po[i * st[0]] = f(pa[i * st[1]], pb[i * st[2]]);
                           }
                         });
}

/// out[i] = f(a[i], b[i], c[i]); all expanded to out's shape.
template <typename Out, typename A, typename B, typename C, typename F>
void ternaryLoop(const Tensor &out, const Tensor &a, const Tensor &b,
                 const Tensor &c, const F &f) {
  StridedLayout<4> layout = coalesce<4>(
      out.shape(), {&out.strides(), &a.strides(), &b.strides(), &c.strides()});
  Out *o = static_cast<Out *>(out.raw_data());
  const A *pa = static_cast<const A *>(a.raw_data());
  const B *pb = static_cast<const B *>(b.raw_data());
  const C *pc = static_cast<const C *>(c.raw_data());
  forEachRun(layout, [&](const std::array<int64_t, 4> &off,
                         const std::array<int64_t, 4> &st,
                         int64_t count) KILN_KERNEL_LAMBDA {
    for (int64_t i = 0; i < count; ++i)
      o[off[0] + i * st[0]] = f(pa[off[1] + i * st[1]], pb[off[2] + i * st[2]],
                                pc[off[3] + i * st[3]]);
  });
}

} // namespace kiln::detail

#endif
