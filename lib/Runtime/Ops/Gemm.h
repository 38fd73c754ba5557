//===- Gemm.h - One matrix product, BLAS where it can -----------*- C++ -*-===//
#ifndef KILN_RUNTIME_GEMM_H
#define KILN_RUNTIME_GEMM_H

#include <cstdint>
#include <initializer_list>

namespace kiln {
struct BFloat16;
}

namespace kiln::detail {

/// C[n, m] (contiguous) = A[n, k] * B[k, m] (or += when accumulate), A and B
/// given by element
/// strides. float and double go through BLAS, which needs one unit stride
/// per matrix (see blasReadable in LinearAlgebra.cpp); int32 and int64 loop.
template <typename T>
void gemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar, int64_t sac,
          const T *b, int64_t sbr, int64_t sbc, T *c, bool accumulate = false);

/// C[n, m] (contiguous float32) = A[n, k] * B[k, m] (or += when
/// accumulate) for bfloat16 A and B: multiplied and summed in float32, for
/// the caller to round once (OneDnnGemm.cpp: AMX or AVX512-BF16 through
/// oneDNN where the CPU has them, else widened to float32).
void gemm(int64_t n, int64_t m, int64_t k, const BFloat16 *a, int64_t sar,
          int64_t sac, const BFloat16 *b, int64_t sbr, int64_t sbc, float *c,
          bool accumulate = false);

/// C[n, m] (contiguous) = A[n, k] * B[k, m] (or +=) for one block of a
/// larger computation that runs on the calling thread (a task of a fused
/// kernel): Kiln's own tiles at any size, no library call to pick or
/// thread team to wake. B's rows contiguous run as broadcasts, without
/// the lane sums of dot products: attention packs K^T for it.
template <typename T>
void blockGemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar,
               int64_t sac, const T *b, int64_t sbr, int64_t sbc, T *c,
               bool accumulate);

/// C (contiguous) = A * B (or +=) in float32 through oneDNN's matmul
/// (OneDnnGemm.cpp); false when oneDNN has no matmul for these strides.
bool oneDnnGemm(int64_t n, int64_t m, int64_t k, const float *a, int64_t sar,
                int64_t sac, const float *b, int64_t sbr, int64_t sbc, float *c,
                bool accumulate);

/// Whether bfloat16 products multiply on the CPU's AVX512-BF16 dot
/// products: the CPU has them, KILN_CPU_CAPABILITY allows them and
/// KILN_BF16_PRODUCTS does not say float32 (OneDnnGemm.cpp). Fused
/// attention's bfloat16 kernel runs only then.
bool bf16DotProducts();

/// Which of `names` environment variable `variable` names: its index, or
/// -1 when it is unset or names none of them (then with a warning). How the
/// KILN_FLOAT_PRODUCTS and KILN_BF16_PRODUCTS overrides are read.
int productsChoice(const char *variable,
                   std::initializer_list<const char *> names);

/// Whether BLAS reads a matrix with these strides in place (one unit
/// stride and a leading dimension that covers the other).
bool blasCanRead(int64_t rows, int64_t cols, int64_t rowStride,
                 int64_t colStride);

} // namespace kiln::detail

#endif
