//===- FakeBlas.cpp - A stand-in libcublas for testing the runtime --------===//
//
// Loaded through KILN_LIBCUBLAS by kiln-cuda-runtime-tests, beside the
// stand-in driver (whose device memory is host memory): cuBLAS's gemm and
// strided-batched gemm as its documentation defines them, column-major with
// op(A) and leading dimensions, so that the runtime's mapping of row-major
// strided tensors onto it is checked without a GPU.
//
//===----------------------------------------------------------------------===//
#include <cstdint>

namespace {
int calls = 0;
int handleStorage;
constexpr int kTranspose = 1;

/// C = alpha op(A) op(B) + beta C, all column-major; op(A) is m x k.
template <typename T>
int gemm(int opA, int opB, int m, int n, int k, const T *alpha, const T *a,
         int lda, const T *b, int ldb, const T *beta, T *c, int ldc) {
  if (m < 0 || n < 0 || k < 0 || ldc < (m > 1 ? m : 1) ||
      lda <
          ((opA == kTranspose ? k : m) > 1 ? (opA == kTranspose ? k : m) : 1) ||
      ldb < ((opB == kTranspose ? n : k) > 1 ? (opB == kTranspose ? n : k) : 1))
    return 7; // CUBLAS_STATUS_INVALID_VALUE
  ++calls;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      T sum = 0;
      for (int p = 0; p < k; ++p) {
        T x = opA == kTranspose ? a[p + i * lda] : a[i + p * lda];
        T y = opB == kTranspose ? b[j + p * ldb] : b[p + j * ldb];
        sum += x * y;
      }
      c[i + j * ldc] = *alpha * sum + *beta * c[i + j * ldc];
    }
  return 0;
}
/// `count` gemms whose operands lie stride elements apart: one launch.
template <typename T>
int stridedBatched(int opA, int opB, int m, int n, int k, const T *alpha,
                   const T *a, int lda, long long strideA, const T *b, int ldb,
                   long long strideB, const T *beta, T *c, int ldc,
                   long long strideC, int count) {
  for (int i = 0; i < count; ++i)
    if (int status = gemm(opA, opB, m, n, k, alpha, a + i * strideA, lda,
                          b + i * strideB, ldb, beta, c + i * strideC, ldc))
      return status;
  calls -= count - 1;
  return 0;
}
} // namespace

extern "C" {

int cublasCreate_v2(void **handle) {
  *handle = &handleStorage;
  return 0;
}
int cublasSgemm_v2(void *, int opA, int opB, int m, int n, int k,
                   const float *alpha, const float *a, int lda, const float *b,
                   int ldb, const float *beta, float *c, int ldc) {
  return gemm(opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
int cublasDgemm_v2(void *, int opA, int opB, int m, int n, int k,
                   const double *alpha, const double *a, int lda,
                   const double *b, int ldb, const double *beta, double *c,
                   int ldc) {
  return gemm(opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int cublasSgemmStridedBatched(void *, int opA, int opB, int m, int n, int k,
                              const float *alpha, const float *a, int lda,
                              long long strideA, const float *b, int ldb,
                              long long strideB, const float *beta, float *c,
                              int ldc, long long strideC, int count) {
  return stridedBatched(opA, opB, m, n, k, alpha, a, lda, strideA, b, ldb,
                        strideB, beta, c, ldc, strideC, count);
}
int cublasDgemmStridedBatched(void *, int opA, int opB, int m, int n, int k,
                              const double *alpha, const double *a, int lda,
                              long long strideA, const double *b, int ldb,
                              long long strideB, const double *beta, double *c,
                              int ldc, long long strideC, int count) {
  return stridedBatched(opA, opB, m, n, k, alpha, a, lda, strideA, b, ldb,
                        strideB, beta, c, ldc, strideC, count);
}

/// For the tests: how many cuBLAS launches ran (a strided batch is one).
int kiln_fake_cublas_calls() { return calls; }

} // extern "C"
