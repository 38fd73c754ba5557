//===- CudaBlas.cpp - cuBLAS for GPU graphs' products, loaded at run time -===//
//
// The GPU pipeline turns each float matmul, linear and batched matmul into
// a call of kiln_cuda_{gemm,linear,bmm}_{f32,f64} followed by the
// generated kernel, which runs only when the call returns false: when
// cuBLAS (libcublas.so, opened with dlopen like the driver) cannot be
// loaded, or an operand has no unit stride (cuBLAS reads matrices with one).
// Everything is on device memory, on the legacy default stream, accumulated
// into C (C += A * B, as the generated kernel does).
//
// cuBLAS is column-major: a row-major [rows, cols] matrix with row stride
// ld and unit column stride is, to it, the column-major [cols, rows]
// transpose with leading dimension ld. So C = A * B (row-major) is computed
// as C^T = B^T * A^T, each operand passed as is (N) or, when its unit
// stride is the other one, transposed (T).
//
//===----------------------------------------------------------------------===//
#include "ABI/Descriptors.h"
#include "CUDA/CudaDriver.h"

#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using cublasHandle_t = void *;
using cublasStatus_t = int;
// cublasOperation_t, a C enum: passed as the int it is.
using cublasOperation_t = int;
constexpr cublasOperation_t CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;

struct Blas {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                          int, int, int, const float *, const float *, int,
                          const float *, int, const float *, float *, int);
  cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                          int, int, int, const double *, const double *, int,
                          const double *, int, const double *, double *, int);
  bool ok = false;
};

Blas loadBlas() {
  Blas b{};
  const char *path = std::getenv("KILN_LIBCUBLAS"); // tests: a stand-in
  void *lib = nullptr;
  if (path && *path)
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  for (const char *name :
       {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if (!lib && !(path && *path))
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return b;
  b.create =
      reinterpret_cast<decltype(b.create)>(dlsym(lib, "cublasCreate_v2"));
  b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(lib, "cublasSgemm_v2"));
  b.dgemm = reinterpret_cast<decltype(b.dgemm)>(dlsym(lib, "cublasDgemm_v2"));
  b.ok = b.create && b.sgemm && b.dgemm;
  return b;
}

const Blas &blas() {
  static Blas b = loadBlas();
  return b;
}

/// This thread's cuBLAS handle (handles are not shared between threads);
/// null when cuBLAS or the GPU is missing.
cublasHandle_t handle() {
  thread_local cublasHandle_t h = nullptr;
  thread_local bool tried = false;
  if (!tried) {
    tried = true;
    if (blas().ok && kiln::cuda::detail::ready() && blas().create(&h) != 0)
      h = nullptr;
  }
  return h;
}

/// A row-major operand as cuBLAS takes it: op and leading dimension.
struct Operand {
  cublasOperation_t op;
  int64_t ld;
};

/// How cuBLAS reads a [rows, cols] matrix with these strides (in the C^T =
/// B^T A^T form, where it wants the transpose); false when neither stride
/// is a unit one.
bool asOperand(int64_t rows, int64_t cols, int64_t s0, int64_t s1,
               Operand &out) {
  if (rows <= 1)
    s0 = cols > 1 ? cols : 1; // one row: its stride is irrelevant
  if (cols <= 1)
    s1 = 1;
  if (s1 == 1 && s0 >= (cols > 1 ? cols : 1)) {
    out = {CUBLAS_OP_N, s0};
    return true;
  }
  if (s0 == 1 && s1 >= (rows > 1 ? rows : 1)) {
    out = {CUBLAS_OP_T, s1};
    return true;
  }
  return false;
}

/// C[n, m] += A[n, k] * B[k, m], strides in elements; false if cuBLAS cannot
/// take these operands (nothing was done then).
template <typename T>
bool gemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sa0, int64_t sa1,
          const T *b, int64_t sb0, int64_t sb1, T *c, int64_t sc0,
          int64_t sc1) {
  for (int64_t v : {n, m, k})
    if (v > INT_MAX)
      return false;
  if (n == 0 || m == 0 || k == 0)
    return true; // C += 0
  Operand oa, ob, oc;
  if (!asOperand(n, k, sa0, sa1, oa) || !asOperand(k, m, sb0, sb1, ob) ||
      !asOperand(n, m, sc0, sc1, oc) || oc.op != CUBLAS_OP_N)
    return false;
  cublasHandle_t h = handle();
  if (!h)
    return false;
  const T one = 1;
  cublasStatus_t status;
  if constexpr (sizeof(T) == 4)
    status = blas().sgemm(h, ob.op, oa.op, int(m), int(n), int(k), &one, b,
                          int(ob.ld), a, int(oa.ld), &one, c, int(oc.ld));
  else
    status = blas().dgemm(h, ob.op, oa.op, int(m), int(n), int(k), &one, b,
                          int(ob.ld), a, int(oa.ld), &one, c, int(oc.ld));
  return status == 0;
}

using kiln::detail::Matrix;
using kiln::detail::UnrankedView;

/// An unranked view's fields: the first element, sizes and strides.
template <typename T> struct View {
  T *data;
  const int64_t *sizes, *strides;
  int64_t rank;
  explicit View(const UnrankedView &v) : rank(v.rank) {
    const int64_t *d = static_cast<const int64_t *>(v.descriptor);
    T *aligned;
    std::memcpy(&aligned, &d[1], sizeof(void *));
    data = aligned + d[2];
    sizes = d + 3;
    strides = d + 3 + rank;
  }
  /// Size and stride of dim i counted from the end (1 and 0 past the rank).
  int64_t size(int64_t fromEnd) const {
    return fromEnd < rank ? sizes[rank - 1 - fromEnd] : 1;
  }
  int64_t stride(int64_t fromEnd) const {
    return fromEnd < rank ? strides[rank - 1 - fromEnd] : 0;
  }
};

/// Runs `fn(offsetA, offsetB, offsetC)` for every matrix of C's batch dims
/// (all but its last two), A's and B's batch dims aligned from the right
/// with C's, size-1 ones broadcast; stops at the first false.
template <typename T, typename F>
bool forEachMatrix(const View<T> &a, const View<T> &b, const View<T> &c, F fn) {
  int64_t batch = c.rank - 2, count = 1;
  for (int64_t i = 0; i < batch; ++i)
    count *= c.sizes[i];
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index, oa = 0, ob = 0, oc = 0;
    for (int64_t d = batch - 1; d >= 0; --d) {
      int64_t i = rest % c.sizes[d];
      rest /= c.sizes[d];
      int64_t fromEnd = batch - 1 - d + 2;
      oc += i * c.strides[d];
      if (a.size(fromEnd) != 1)
        oa += i * a.stride(fromEnd);
      if (b.size(fromEnd) != 1)
        ob += i * b.stride(fromEnd);
    }
    if (!fn(oa, ob, oc))
      return false;
  }
  return true;
}

/// C[batch..., n, m] += A[batch..., n, k] * B[batch..., k, m]: one cuBLAS
/// gemm per matrix of C. (A matrix already done when a later one fails is
/// not redone: layouts are checked for all matrices first.)
template <typename T>
bool batched(UnrankedView *av, UnrankedView *bv, UnrankedView *cv) {
  View<T> a(*av), b(*bv), c(*cv);
  int64_t n = c.size(1), m = c.size(0), k = a.size(0);
  Operand o;
  if (!asOperand(n, k, a.stride(1), a.stride(0), o) ||
      !asOperand(k, m, b.stride(1), b.stride(0), o) ||
      !asOperand(n, m, c.stride(1), c.stride(0), o) || o.op != CUBLAS_OP_N ||
      !handle())
    return false;
  return forEachMatrix(a, b, c, [&](int64_t oa, int64_t ob, int64_t oc) {
    return gemm<T>(n, m, k, a.data + oa, a.stride(1), a.stride(0), b.data + ob,
                   b.stride(1), b.stride(0), c.data + oc, c.stride(1),
                   c.stride(0));
  });
}

/// y[..., o] += x[..., k] * w[o, k]: w read transposed in place; one gemm
/// per matrix of x's and y's leading dims.
template <typename T>
bool linear(UnrankedView *xv, Matrix<T> *w, UnrankedView *yv) {
  View<T> x(*xv), y(*yv);
  int64_t rows = x.size(1), o = w->sizes[0], k = w->sizes[1];
  Operand op;
  if (!asOperand(rows, k, x.stride(1), x.stride(0), op) ||
      !asOperand(k, o, w->strides[1], w->strides[0], op) ||
      !asOperand(rows, o, y.stride(1), y.stride(0), op) ||
      op.op != CUBLAS_OP_N || !handle())
    return false;
  int64_t leading = 1;
  for (int64_t i = 2; i < y.rank; ++i)
    leading *= y.size(i);
  for (int64_t index = 0; index < leading; ++index) {
    int64_t rest = index, ox = 0, oy = 0;
    for (int64_t i = 2; i < y.rank; ++i) {
      int64_t at = rest % y.size(i);
      rest /= y.size(i);
      ox += at * x.stride(i);
      oy += at * y.stride(i);
    }
    if (!gemm<T>(rows, o, k, x.data + ox, x.stride(1), x.stride(0), w->data(),
                 w->strides[1], w->strides[0], y.data + oy, y.stride(1),
                 y.stride(0)))
      return false;
  }
  return true;
}

} // namespace

extern "C" {

bool _mlir_ciface_kiln_cuda_gemm_f32(Matrix<float> *a, Matrix<float> *b,
                                     Matrix<float> *c) {
  return gemm<float>(c->sizes[0], c->sizes[1], a->sizes[1], a->data(),
                     a->strides[0], a->strides[1], b->data(), b->strides[0],
                     b->strides[1], c->data(), c->strides[0], c->strides[1]);
}

bool _mlir_ciface_kiln_cuda_gemm_f64(Matrix<double> *a, Matrix<double> *b,
                                     Matrix<double> *c) {
  return gemm<double>(c->sizes[0], c->sizes[1], a->sizes[1], a->data(),
                      a->strides[0], a->strides[1], b->data(), b->strides[0],
                      b->strides[1], c->data(), c->strides[0], c->strides[1]);
}

bool _mlir_ciface_kiln_cuda_linear_f32(UnrankedView *x, Matrix<float> *w,
                                       UnrankedView *y) {
  return linear<float>(x, w, y);
}

bool _mlir_ciface_kiln_cuda_linear_f64(UnrankedView *x, Matrix<double> *w,
                                       UnrankedView *y) {
  return linear<double>(x, w, y);
}

bool _mlir_ciface_kiln_cuda_bmm_f32(UnrankedView *a, UnrankedView *b,
                                    UnrankedView *c) {
  return batched<float>(a, b, c);
}

bool _mlir_ciface_kiln_cuda_bmm_f64(UnrankedView *a, UnrankedView *b,
                                    UnrankedView *c) {
  return batched<double>(a, b, c);
}

} // extern "C"
