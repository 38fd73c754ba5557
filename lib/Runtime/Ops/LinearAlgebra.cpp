//===- LinearAlgebra.cpp - matmul and linear ------------------------------===//
//
// matmul follows torch.matmul: dot, mv, mm, and batched products whose batch
// dims broadcast. Floating products go to OpenBLAS's gemm (single-threaded,
// rows of C split over the runtime's OpenMP threads), which also reads
// transposed operands in place; integer products use a plain loop that
// wraps on overflow like torch.
//
//===----------------------------------------------------------------------===//
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/Gemm.h"

#include <cblas.h>

namespace kiln {
using namespace detail;

namespace detail {

/// How BLAS can read a row-major-indexed matrix with these strides without a
/// copy: transposed or not, and its leading dimension.
struct BlasMatrix {
  bool ok = false;
  bool transposed = false;
  int64_t ld = 1;
};

static BlasMatrix blasLayout(int64_t rows, int64_t cols, int64_t rowStride,
                             int64_t colStride) {
  BlasMatrix m;
  if ((colStride == 1 || cols == 1) &&
      (rowStride >= std::max<int64_t>(cols, 1) || rows == 1)) {
    m.ok = true;
    m.ld = std::max<int64_t>(rows == 1 ? cols : rowStride, 1);
  } else if ((rowStride == 1 || rows == 1) &&
             (colStride >= std::max<int64_t>(rows, 1) || cols == 1)) {
    m.ok = true;
    m.transposed = true;
    m.ld = std::max<int64_t>(cols == 1 ? rows : colStride, 1);
  }
  return m;
}

bool blasCanRead(int64_t rows, int64_t cols, int64_t rowStride,
                 int64_t colStride) {
  return blasLayout(rows, cols, rowStride, colStride).ok;
}

/// C[n, m] (contiguous) = A[n, k] * B[k, m] for one matrix of a batch.
template <typename T>
void gemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar, int64_t sac,
          const T *b, int64_t sbr, int64_t sbc, T *c, bool accumulate) {
  if (n == 0 || m == 0)
    return;
  if (k == 0) {
    if (!accumulate)
      std::fill(c, c + n * m, T(0));
    return;
  }
  if constexpr (std::is_same<T, float>::value ||
                std::is_same<T, double>::value) {
    BlasMatrix la = blasLayout(n, k, sar, sac), lb = blasLayout(k, m, sbr, sbc);
    auto ta = la.transposed ? CblasTrans : CblasNoTrans;
    auto tb = lb.transposed ? CblasTrans : CblasNoTrans;
    int ldc = static_cast<int>(std::max<int64_t>(m, 1));
    // OpenBLAS runs single-threaded inside the runtime's OpenMP team: rows
    // of C are split over the threads. A second thread pool (OpenBLAS's own)
    // would spin against OpenMP's on the same cores between calls.
    static const bool singleThreadedBlas = [] {
      openblas_set_num_threads(1);
      return true;
    }();
    (void)singleThreadedBlas;
    // A's rows r0.. start at a + r0 * (row stride), transposed or not.
    int64_t rowStep = la.transposed ? 1 : la.ld;
    parallelFor(n, n * m * k / 8, [&](int64_t r0, int64_t r1) {
      const T *ar = a + r0 * rowStep;
      T *cr = c + r0 * m;
      int rows = static_cast<int>(r1 - r0);
      if constexpr (std::is_same<T, float>::value)
        cblas_sgemm(CblasRowMajor, ta, tb, rows, m, k, 1.0f, ar, la.ld, b,
                    lb.ld, accumulate ? 1.0f : 0.0f, cr, ldc);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, rows, m, k, 1.0, ar, la.ld, b, lb.ld,
                    accumulate ? 1.0 : 0.0, cr, ldc);
    });
  } else {
    using U = std::make_unsigned_t<T>;
    parallelFor(n, n * m * std::max<int64_t>(k, 1),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i)
                    for (int64_t j = 0; j < m; ++j) {
                      U acc = accumulate ? static_cast<U>(c[i * m + j]) : 0;
                      for (int64_t p = 0; p < k; ++p)
                        acc += static_cast<U>(a[i * sar + p * sac]) *
                               static_cast<U>(b[p * sbr + j * sbc]);
                      c[i * m + j] = static_cast<T>(acc);
                    }
                });
  }
}

template void gemm<float>(int64_t, int64_t, int64_t, const float *, int64_t,
                          int64_t, const float *, int64_t, int64_t, float *,
                          bool);
template void gemm<double>(int64_t, int64_t, int64_t, const double *, int64_t,
                           int64_t, const double *, int64_t, int64_t, double *,
                           bool);
template void gemm<int32_t>(int64_t, int64_t, int64_t, const int32_t *, int64_t,
                            int64_t, const int32_t *, int64_t, int64_t,
                            int32_t *, bool);
template void gemm<int64_t>(int64_t, int64_t, int64_t, const int64_t *, int64_t,
                            int64_t, const int64_t *, int64_t, int64_t,
                            int64_t *, bool);

} // namespace detail

namespace {

/// A view of t whose last two dims BLAS reads in place (t or a copy).
Tensor blasReadable(const Tensor &t) {
  int64_t r = t.dim();
  BlasMatrix l = blasLayout(t.shape()[r - 2], t.shape()[r - 1],
                            t.strides()[r - 2], t.strides()[r - 1]);
  return l.ok ? t : t.contiguous();
}

/// [..., n, k] x [..., k, m] with broadcast batch dims; both at least 2-d.
Tensor batchedMatmul(const Tensor &a, const Tensor &b, DType ct) {
  int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  // A batch of A against one B is one tall gemm.
  if (batchB.empty() && !batchA.empty()) {
    Tensor flat = a.reshape({shapeNumel(batchA) * n, k});
    Tensor out = batchedMatmul(flat, b, ct);
    Shape shape = batchA;
    shape.push_back(n);
    shape.push_back(m);
    return out.view(shape);
  }
  Shape batch = broadcastShapes(batchA, batchB, "matmul");
  Shape shapeA = batch, shapeB = batch, shapeC = batch;
  shapeA.insert(shapeA.end(), {n, k});
  shapeB.insert(shapeB.end(), {k, m});
  shapeC.insert(shapeC.end(), {n, m});
  Tensor ea = blasReadable(a.expand(shapeA));
  Tensor eb = blasReadable(b.expand(shapeB));
  Tensor out(shapeC, ct);
  int64_t batches = shapeNumel(batch);
  int64_t rank = static_cast<int64_t>(batch.size());
  dispatchCompute(ct, "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, bool>::value) {
      const T *pa = ea.data<T>(), *pb = eb.data<T>();
      T *pc = out.data<T>();
      for (int64_t i = 0; i < batches; ++i) {
        int64_t offA = 0, offB = 0, rem = i;
        for (int64_t d = rank - 1; d >= 0; --d) {
          int64_t idx = rem % batch[d];
          rem /= batch[d];
          offA += idx * ea.strides()[d];
          offB += idx * eb.strides()[d];
        }
        gemm<T>(n, m, k, pa + offA, ea.strides()[rank], ea.strides()[rank + 1],
                pb + offB, eb.strides()[rank], eb.strides()[rank + 1],
                pc + i * n * m);
      }
    }
  });
  return out;
}

} // namespace

Tensor matmul(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(a, "matmul");
  checkCpu(b, "matmul");
  if (a.dim() == 0 || b.dim() == 0)
    throw Error("matmul: both arguments need at least 1 dim, got shapes " +
                shapeStr(a.shape()) + " and " + shapeStr(b.shape()));
  if (a.dtype() != b.dtype())
    throw Error(std::string("matmul: both arguments must have the same dtype, "
                            "got ") +
                dtypeName(a.dtype()) + " and " + dtypeName(b.dtype()));
  if (a.dtype() == DType::Bool)
    throw Error("matmul: not supported for dtype bool");
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b2 = b.dim() == 1 ? b.unsqueeze(-1) : b;
  if (a2.size(-1) != b2.size(-2))
    throw Error("matmul: shapes " + shapeStr(a.shape()) + " and " +
                shapeStr(b.shape()) +
                " cannot be multiplied: the first's dim " +
                std::to_string(a.dim() - 1) + " has size " +
                std::to_string(a2.size(-1)) + " but the second's dim " +
                std::to_string(b.dim() == 1 ? 0 : b.dim() - 2) + " has size " +
                std::to_string(b2.size(-2)));
  DType ct = computeType(a.dtype());
  Tensor out = batchedMatmul(a2.to(ct), b2.to(ct), ct);
  if (a.dim() == 1)
    out = out.squeeze(-2);
  if (b.dim() == 1)
    out = out.squeeze(-1);
  return out.to(a.dtype());
}

Tensor linear(const Tensor &x, const Tensor &w, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(x, "linear");
  checkCpu(w, "linear");
  if (w.dim() != 2)
    throw Error("linear: the weight must be 2-d [out_features, in_features], "
                "got shape " +
                shapeStr(w.shape()));
  if (x.dim() == 0 || x.size(-1) != w.size(1))
    throw Error("linear: the input's last dim (shape " + shapeStr(x.shape()) +
                ") does not match the weight's in_features " +
                std::to_string(w.size(1)) + " (weight shape " +
                shapeStr(w.shape()) + ")");
  Tensor out = matmul(x, w.transpose(0, 1));
  if (!b.defined())
    return out;
  if (b.dim() > 1 || (b.dim() == 1 && b.size(0) != w.size(0)))
    throw Error("linear: the bias must have shape [" +
                std::to_string(w.size(0)) + "], got " + shapeStr(b.shape()));
  return out + b;
}

} // namespace kiln
