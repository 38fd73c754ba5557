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

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

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
  // Many products of one shape whose operands are `stride` elements apart
  // (0: the same matrix for every product), in one launch; optional.
  cublasStatus_t (*sgemmStrided)(cublasHandle_t, cublasOperation_t,
                                 cublasOperation_t, int, int, int,
                                 const float *, const float *, int, long long,
                                 const float *, int, long long, const float *,
                                 float *, int, long long, int);
  cublasStatus_t (*dgemmStrided)(cublasHandle_t, cublasOperation_t,
                                 cublasOperation_t, int, int, int,
                                 const double *, const double *, int, long long,
                                 const double *, int, long long, const double *,
                                 double *, int, long long, int);
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
  b.sgemmStrided = reinterpret_cast<decltype(b.sgemmStrided)>(
      dlsym(lib, "cublasSgemmStridedBatched"));
  b.dgemmStrided = reinterpret_cast<decltype(b.dgemmStrided)>(
      dlsym(lib, "cublasDgemmStridedBatched"));
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

/// C[n, m] += A[n, k] * B[k, m], strides in elements, for `count` products
/// whose operands lie `batchA`, `batchB` and `batchC` elements apart (0:
/// one matrix serves all): one cuBLAS launch (gemm, or strided-batched
/// gemm). False if cuBLAS cannot take these operands (nothing was done).
template <typename T>
bool gemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sa0, int64_t sa1,
          const T *b, int64_t sb0, int64_t sb1, T *c, int64_t sc0, int64_t sc1,
          int64_t count = 1, int64_t batchA = 0, int64_t batchB = 0,
          int64_t batchC = 0) {
  for (int64_t v : {n, m, k, count})
    if (v > INT_MAX)
      return false;
  if (n == 0 || m == 0 || k == 0 || count == 0)
    return true; // C += 0
  Operand oa, ob, oc;
  if (!asOperand(n, k, sa0, sa1, oa) || !asOperand(k, m, sb0, sb1, ob) ||
      !asOperand(n, m, sc0, sc1, oc) || oc.op != CUBLAS_OP_N)
    return false;
  cublasHandle_t h = handle();
  if (!h)
    return false;
  kiln::cuda::detail::TimedWork timed(
      [&] {
        return std::string(sizeof(T) == 4 ? "cublas sgemm " : "cublas dgemm ") +
               std::to_string(n) + "x" + std::to_string(m) + "x" +
               std::to_string(k) +
               (count > 1 ? " batch " + std::to_string(count) : std::string());
      },
      2.0 * double(n) * double(m) * double(k) * double(count));
  const T one = 1;
  cublasStatus_t status;
  if (count == 1) {
    if constexpr (sizeof(T) == 4)
      status = blas().sgemm(h, ob.op, oa.op, int(m), int(n), int(k), &one, b,
                            int(ob.ld), a, int(oa.ld), &one, c, int(oc.ld));
    else
      status = blas().dgemm(h, ob.op, oa.op, int(m), int(n), int(k), &one, b,
                            int(ob.ld), a, int(oa.ld), &one, c, int(oc.ld));
    return status == 0;
  }
  auto strided = [&](auto fn) {
    return fn(h, ob.op, oa.op, int(m), int(n), int(k), &one, b, int(ob.ld),
              static_cast<long long>(batchB), a, int(oa.ld),
              static_cast<long long>(batchA), &one, c, int(oc.ld),
              static_cast<long long>(batchC), int(count));
  };
  if constexpr (sizeof(T) == 4) {
    if (blas().sgemmStrided)
      return strided(blas().sgemmStrided) == 0;
  } else {
    if (blas().dgemmStrided)
      return strided(blas().dgemmStrided) == 0;
  }
  for (int64_t i = 0; i < count; ++i) // a cuBLAS without the batched entry
    if (!gemm<T>(n, m, k, a + i * batchA, sa0, sa1, b + i * batchB, sb0, sb1,
                 c + i * batchC, sc0, sc1))
      return false;
  return true;
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

/// The batch dims of a product, innermost first: C's size and each
/// operand's stride, 0 where the operand broadcasts.
struct BatchDims {
  std::vector<int64_t> sizes;
  std::vector<std::array<int64_t, 3>> strides; // A, B, C
  /// The next dim outwards; one of size 1 moves no operand and is left out.
  void add(int64_t size, std::array<int64_t, 3> stride) {
    if (size != 1) {
      sizes.push_back(size);
      strides.push_back(stride);
    }
  }
  /// How many of the innermost dims index every operand linearly (offset
  /// = flat index * the innermost dim's stride): one strided launch.
  size_t linearPrefix() const {
    size_t d = 1;
    for (int64_t count = sizes.empty() ? 1 : sizes[0]; d < sizes.size(); ++d) {
      for (size_t x = 0; x < 3; ++x)
        if (strides[d][x] != strides[0][x] * count)
          return d;
      count *= sizes[d];
    }
    return std::min(d, sizes.size());
  }
};

/// Runs fn(offsetA, offsetB, offsetC, count, strideA, strideB, strideC) once
/// per matrix of the dims past the linear prefix, each call covering the
/// prefix's `count` products; stops at the first false.
template <typename F> bool forEachLaunch(const BatchDims &dims, F fn) {
  size_t inner = dims.linearPrefix();
  int64_t count = 1, outer = 1;
  for (size_t d = 0; d < dims.sizes.size(); ++d)
    (d < inner ? count : outer) *= dims.sizes[d];
  std::array<int64_t, 3> step =
      inner > 0 ? dims.strides[0] : std::array<int64_t, 3>{0, 0, 0};
  for (int64_t index = 0; index < outer; ++index) {
    int64_t rest = index;
    std::array<int64_t, 3> at{0, 0, 0};
    for (size_t d = inner; d < dims.sizes.size(); ++d) {
      int64_t i = rest % dims.sizes[d];
      rest /= dims.sizes[d];
      for (size_t x = 0; x < 3; ++x)
        at[x] += i * dims.strides[d][x];
    }
    if (!fn(at[0], at[1], at[2], count, step[0], step[1], step[2]))
      return false;
  }
  return true;
}

/// C[batch..., n, m] += A[batch..., n, k] * B[batch..., k, m], A's and B's
/// batch dims aligned from the right with C's, size-1 ones broadcast: one
/// strided-batched cuBLAS launch for the innermost batch dims that every
/// operand indexes linearly, repeated over the rest. (Layouts are checked
/// before the first launch, so nothing is done twice when one fails.)
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
  BatchDims dims;
  for (int64_t fromEnd = 2; fromEnd < c.rank; ++fromEnd)
    dims.add(c.size(fromEnd),
             {a.size(fromEnd) == 1 ? 0 : a.stride(fromEnd),
              b.size(fromEnd) == 1 ? 0 : b.stride(fromEnd), c.stride(fromEnd)});
  return forEachLaunch(dims, [&](int64_t oa, int64_t ob, int64_t oc,
                                 int64_t count, int64_t sa, int64_t sb,
                                 int64_t sc) {
    return gemm<T>(n, m, k, a.data + oa, a.stride(1), a.stride(0), b.data + ob,
                   b.stride(1), b.stride(0), c.data + oc, c.stride(1),
                   c.stride(0), count, sa, sb, sc);
  });
}

/// y[..., o] += x[..., k] * w[o, k], w read transposed in place. Leading
/// dims that continue x's and y's rows (a contiguous [B, T, C]) are rows of
/// one gemm; others are a strided batch over w, read once per product.
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
  // Leading dims that continue the rows of both x and y (and leave them
  // readable by cuBLAS) merge into them.
  int64_t merged = 2, allRows = rows;
  for (; merged < y.rank; ++merged) {
    int64_t more = allRows * y.size(merged);
    Operand unused;
    if (x.stride(merged) != x.stride(1) * allRows ||
        y.stride(merged) != y.stride(1) * allRows ||
        !asOperand(more, k, x.stride(1), x.stride(0), unused) ||
        !asOperand(more, o, y.stride(1), y.stride(0), unused))
      break;
    allRows = more;
  }
  BatchDims dims;
  for (int64_t i = merged; i < y.rank; ++i)
    dims.add(y.size(i), {x.stride(i), 0, y.stride(i)});
  int64_t rowStrideX = x.stride(1), rowStrideY = y.stride(1);
  return forEachLaunch(dims, [&](int64_t ox, int64_t, int64_t oy, int64_t count,
                                 int64_t sx, int64_t, int64_t sy) {
    return gemm<T>(allRows, o, k, x.data + ox, rowStrideX, x.stride(0),
                   w->data(), w->strides[1], w->strides[0], y.data + oy,
                   rowStrideY, y.stride(0), count, sx, 0, sy);
  });
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
