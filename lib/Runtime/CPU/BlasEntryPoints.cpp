//===- BlasEntryPoints.cpp - Products through BLAS -----------------------===//
//
// The entry points kiln-matmul-to-blas makes compiled code call: gemm,
// linear and batched matmul on strided memrefs, through the runtime's
// products (Ops/Gemm.h). (conv2d: Conv2dEntryPoints.cpp.)
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "ABI/Descriptors.h"
#include "Core/Parallel.h"
#include "Ops/Gemm.h"
#include "kiln/DType.h"

#include <cstring>
#include <type_traits>
#include <vector>

namespace {
using kiln::detail::Matrix;

/// A contiguous copy of m when BLAS cannot read it in place.
template <typename T>
const T *readable(const Matrix<T> &m, std::vector<T> &copy) {
  int64_t r = m.sizes[0], c = m.sizes[1];
  if (kiln::detail::blasCanRead(r, c, m.strides[0], m.strides[1]))
    return m.data();
  copy.resize(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      copy[i * c + j] = m.data()[i * m.strides[0] + j * m.strides[1]];
  return copy.data();
}

/// C += A * B for the kiln-matmul-to-blas pass; C = A * B (whatever C
/// held) when not `accumulate`. A and B hold T, C the sums' type S (float
/// for bfloat16 products, else T).
template <typename T, typename S = T>
void gemmInto(Matrix<T> *a, Matrix<T> *b, Matrix<S> *c, bool accumulate) {
  int64_t n = c->sizes[0], m = c->sizes[1], k = a->sizes[1];
  std::vector<T> ca, cb;
  const T *pa = readable(*a, ca), *pb = readable(*b, cb);
  auto strides = [&](const Matrix<T> &x, const T *p, std::vector<T> &copy) {
    return p == copy.data() && !copy.empty()
               ? std::pair<int64_t, int64_t>{x.sizes[1], 1}
               : std::pair<int64_t, int64_t>{x.strides[0], x.strides[1]};
  };
  auto [sar, sac] = strides(*a, pa, ca);
  auto [sbr, sbc] = strides(*b, pb, cb);
  bool contiguous =
      (c->strides[1] == 1 || m <= 1) && (c->strides[0] == m || n <= 1);
  if (contiguous) {
    kiln::detail::gemm(n, m, k, pa, sar, sac, pb, sbr, sbc, c->data(),
                       accumulate);
    return;
  }
  std::vector<S> tmp(static_cast<size_t>(n * m));
  kiln::detail::gemm(n, m, k, pa, sar, sac, pb, sbr, sbc, tmp.data(), false);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      S &out = c->data()[i * c->strides[0] + j * c->strides[1]];
      out = accumulate ? out + tmp[i * m + j] : tmp[i * m + j];
    }
}
using kiln::detail::UnrankedView;

/// An n-d strided view as a [rows, cols] matrix when its leading dims fold
/// into rows (each a whole number of the next's span); false otherwise.
template <typename T> bool asMatrix(const UnrankedView &v, Matrix<T> &m) {
  const int64_t *d = static_cast<const int64_t *>(v.descriptor);
  int64_t r = v.rank;
  const int64_t *sizes = d + 3, *strides = d + 3 + r;
  std::memcpy(&m.allocated, &d[0], sizeof(void *));
  std::memcpy(&m.aligned, &d[1], sizeof(void *));
  m.offset = d[2];
  int64_t rows = 1;
  int64_t rowStride = r >= 2 ? strides[r - 2] : 0;
  for (int64_t i = r - 2; i >= 0; --i) {
    if (i < r - 2 && sizes[i] != 1 &&
        strides[i] != strides[i + 1] * sizes[i + 1])
      return false;
    rows *= sizes[i];
  }
  m.sizes[0] = rows;
  m.sizes[1] = sizes[r - 1];
  m.strides[0] = rowStride;
  m.strides[1] = strides[r - 1];
  return true;
}

/// A contiguous copy of an n-d view, as a [rows, cols] matrix.
template <typename T>
Matrix<T> gathered(const UnrankedView &v, std::vector<T> &copy) {
  const int64_t *d = static_cast<const int64_t *>(v.descriptor);
  int64_t r = v.rank;
  const int64_t *sizes = d + 3, *strides = d + 3 + r;
  T *base;
  std::memcpy(&base, &d[1], sizeof(void *));
  base += d[2];
  int64_t total = 1;
  for (int64_t i = 0; i < r; ++i)
    total *= sizes[i];
  copy.resize(static_cast<size_t>(total));
  std::vector<int64_t> index(static_cast<size_t>(r), 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t off = 0;
    for (int64_t i = 0; i < r; ++i)
      off += index[i] * strides[i];
    copy[n] = base[off];
    for (int64_t i = r - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
  int64_t cols = sizes[r - 1];
  return Matrix<T>{
      nullptr, copy.data(), 0, {cols ? total / cols : 0, cols}, {cols, 1}};
}

/// y[..., o] += x[..., k] * w[o, k] for kiln-matmul-to-blas (linear); =
/// when not `accumulate`. y holds S.
template <typename T, typename S = T>
void linearInto(UnrankedView *x, Matrix<T> *w, UnrankedView *y,
                bool accumulate) {
  Matrix<T> xm;
  Matrix<S> ym;
  std::vector<T> xCopy;
  if (!asMatrix(*x, xm))
    xm = gathered(*x, xCopy);
  // The weight read transposed: [k, o] with swapped strides.
  Matrix<T> wt{w->allocated,
               w->aligned,
               w->offset,
               {w->sizes[1], w->sizes[0]},
               {w->strides[1], w->strides[0]}};
  if (asMatrix(*y, ym)) {
    gemmInto(&xm, &wt, &ym, accumulate);
    return;
  }
  // y does not fold into rows (the pipeline never makes such a y): go
  // through a contiguous copy and write it back element by element.
  std::vector<S> yCopy;
  Matrix<S> yc = gathered(*y, yCopy);
  gemmInto(&xm, &wt, &yc, accumulate);
  const int64_t *d = static_cast<const int64_t *>(y->descriptor);
  int64_t r = y->rank;
  S *base;
  std::memcpy(&base, &d[1], sizeof(void *));
  base += d[2];
  std::vector<int64_t> index(static_cast<size_t>(r), 0);
  for (size_t n = 0; n < yCopy.size(); ++n) {
    int64_t off = 0;
    for (int64_t i = 0; i < r; ++i)
      off += index[i] * d[3 + r + i];
    base[off] = yCopy[n];
    for (int64_t i = r - 1; i >= 0; --i) {
      if (++index[i] < d[3 + i])
        break;
      index[i] = 0;
    }
  }
}
/// The descriptor fields of an unranked view.
struct ViewFields {
  char *base; // aligned + offset, in bytes
  const int64_t *sizes, *strides;
  int64_t rank;
};

template <typename T> ViewFields fieldsOf(const UnrankedView &v) {
  const int64_t *d = static_cast<const int64_t *>(v.descriptor);
  T *aligned;
  std::memcpy(&aligned, &d[1], sizeof(void *));
  return {reinterpret_cast<char *>(aligned + d[2]), d + 3, d + 3 + v.rank,
          v.rank};
}

/// The [rows, cols] matrix of E at element offset `off` of a view, strided
/// as its last two dims.
template <typename E>
Matrix<E> matrixAt(const ViewFields &f, int64_t off, int64_t rows,
                   int64_t cols) {
  return Matrix<E>{nullptr,
                   reinterpret_cast<E *>(f.base) + off,
                   0,
                   {rows, cols},
                   {f.strides[f.rank - 2], f.strides[f.rank - 1]}};
}

/// C[batch..., n, m] += A[batch..., n, k] * B[batch..., k, m]: A's and B's
/// batch dims align with C's from the right; a size-1 one is broadcast. One
/// gemm per matrix of C, the matrices split over the threads. C holds S.
template <typename T, typename S = T>
void bmmInto(UnrankedView *a, UnrankedView *b, UnrankedView *c,
             bool accumulate) {
  ViewFields fa = fieldsOf<T>(*a), fb = fieldsOf<T>(*b), fc = fieldsOf<S>(*c);
  int64_t batch = fc.rank - 2;
  int64_t n = fc.sizes[batch], m = fc.sizes[batch + 1];
  int64_t k = fa.sizes[fa.rank - 1];
  int64_t batches = 1;
  for (int64_t i = 0; i < batch; ++i)
    batches *= fc.sizes[i];
  // The element offset of matrix `i` of C in an operand (batch dims
  // aligned from the right, size-1 dims broadcast).
  auto offsetIn = [&](const ViewFields &f, int64_t i) {
    int64_t off = 0, rem = i;
    for (int64_t d = batch - 1; d >= 0; --d) {
      int64_t idx = rem % fc.sizes[d];
      rem /= fc.sizes[d];
      int64_t od = d - (batch - (f.rank - 2));
      if (od >= 0 && f.sizes[od] != 1)
        off += idx * f.strides[od];
    }
    return off;
  };
  // One matrix B for every matrix of A (a projection of a batch): A's and
  // C's batches fold into rows where their strides allow, one gemm of
  // batches * n rows rather than one per matrix (torch's matmul folds so).
  bool sharedB = true;
  for (int64_t d = 0; d < fb.rank - 2; ++d)
    sharedB &= fb.sizes[d] == 1;
  bool unbroadcastA = fa.rank == fc.rank;
  for (int64_t d = 0; unbroadcastA && d < batch; ++d)
    unbroadcastA = fa.sizes[d] == fc.sizes[d];
  Matrix<T> rowsA;
  Matrix<S> rowsC;
  if (batches > 1 && sharedB && unbroadcastA && asMatrix(*a, rowsA) &&
      asMatrix(*c, rowsC)) {
    Matrix<T> mb = matrixAt<T>(fb, 0, k, m);
    gemmInto(&rowsA, &mb, &rowsC, accumulate);
    return;
  }
  auto product = [&](int64_t i) {
    Matrix<T> ma = matrixAt<T>(fa, offsetIn(fa, i), n, k);
    Matrix<T> mb = matrixAt<T>(fb, offsetIn(fb, i), k, m);
    Matrix<S> mc = matrixAt<S>(fc, offsetIn(fc, i), n, m);
    gemmInto(&ma, &mb, &mc, accumulate);
  };
  // bfloat16 products thread themselves (oneDNN runs one on a single
  // thread inside a parallel region): one matrix after another.
  if constexpr (std::is_same<T, kiln::BFloat16>::value) {
    for (int64_t i = 0; i < batches; ++i)
      product(i);
    return;
  }
  kiln::detail::parallelFor(batches, batches * n * m * std::max<int64_t>(k, 1),
                            [&](int64_t begin, int64_t end) {
                              for (int64_t i = begin; i < end; ++i)
                                product(i);
                            });
}
} // namespace

// kiln_KIND_T accumulates into its output (C += A * B); kiln_assign_KIND_T
// overwrites it (C = A * B), for products whose output was only zero-filled
// (kiln-matmul-to-blas drops the fill).
#define KILN_PRODUCT_ENTRIES(KIND, FN, PARAMS, ...)                            \
  extern "C" void _mlir_ciface_kiln_##KIND PARAMS { FN(__VA_ARGS__, true); }   \
  extern "C" void _mlir_ciface_kiln_assign_##KIND PARAMS {                     \
    FN(__VA_ARGS__, false);                                                    \
  }
KILN_PRODUCT_ENTRIES(gemm_f32, gemmInto<float>,
                     (Matrix<float> *a, Matrix<float> *b, Matrix<float> *c),
                     a, b, c)
KILN_PRODUCT_ENTRIES(gemm_f64, gemmInto<double>,
                     (Matrix<double> *a, Matrix<double> *b,
                      Matrix<double> *c),
                     a, b, c)
KILN_PRODUCT_ENTRIES(linear_f32, linearInto<float>,
                     (UnrankedView *x, Matrix<float> *w, UnrankedView *y), x,
                     w, y)
KILN_PRODUCT_ENTRIES(linear_f64, linearInto<double>,
                     (UnrankedView *x, Matrix<double> *w, UnrankedView *y), x,
                     w, y)
KILN_PRODUCT_ENTRIES(bmm_f32, bmmInto<float>,
                     (UnrankedView *a, UnrankedView *b, UnrankedView *c), a, b,
                     c)
KILN_PRODUCT_ENTRIES(bmm_f64, bmmInto<double>,
                     (UnrankedView *a, UnrankedView *b, UnrankedView *c), a, b,
                     c)
// bfloat16 products (float32 sums): linear and batched, the 2-d ones too.
KILN_PRODUCT_ENTRIES(linear_bf16, (linearInto<kiln::BFloat16, float>),
                     (UnrankedView * x, Matrix<kiln::BFloat16> *w,
                      UnrankedView *y),
                     x, w, y)
KILN_PRODUCT_ENTRIES(bmm_bf16, (bmmInto<kiln::BFloat16, float>),
                     (UnrankedView * a, UnrankedView *b, UnrankedView *c), a, b,
                     c)
#undef KILN_PRODUCT_ENTRIES
