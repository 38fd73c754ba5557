//===- VecMath.h - exp and erf that vectorize -------------------*- C++ -*-===//
//
// libm's expf and erff are scalar calls, which keep the hottest eager loops
// (exp, softmax, gelu, sigmoid) far below memory bandwidth. These versions
// are branch-free arithmetic (selects, no calls) that compilers vectorize in
// `omp simd` loops. Accuracy, checked against numpy in the unit tests:
// exp within 2 ulp over the whole float range, subnormal results, overflow
// to inf and NaN included (Cephes' polynomial after Cody-Waite range
// reduction; the power of two applied in two halves so that no
// intermediate leaves the normal range); erf within 1.5e-7 absolute
// (Abramowitz and Stegun 7.1.26, the form PyTorch's vectorized erf uses).
// The double versions call libm.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_VECMATH_H
#define KILN_RUNTIME_VECMATH_H

#include "Core/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kiln::detail {

inline float powerOfTwo(int32_t n) {
  int32_t bits = (n + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline float vexp(float x) {
  // Below -104 exp rounds to 0; above 88.8 it overflows to inf, which the
  // final multiplication produces by itself. NaN is clamped here (keeping
  // the float-to-int conversion defined) and restored at the end.
  float xc = (x >= -104.0f && x <= 88.8f) ? x : (x > 88.8f ? 88.8f : -104.0f);
  float n = std::floor(xc * 1.44269504088896341f + 0.5f);
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t ni = static_cast<int32_t>(n); // in [-150, 129]
  int32_t half = ni / 2;
  float result = p * powerOfTwo(half) * powerOfTwo(ni - half);
  return x != x ? x : result;
}

inline double vexp(double x) { return std::exp(x); }

/// erf(x) = 1 - erfc(|x|) with the sign of x; Abramowitz and Stegun 7.1.26:
/// erfc(z) ~ t * P(t) * exp(-z^2) with t = 1 / (1 + p z).
inline float verf(float x) {
  float z = std::fabs(x);
  float t = 1.0f / (1.0f + 0.3275911f * z);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  float r = 1.0f - p * t * vexp(-z * z);
  return x < 0.0f ? -r : r;
}

inline double verf(double x) { return std::erf(x); }

// Integer arguments (instantiated by generic kernels, never used for
// integer tensors, which these functions promote to float first).
template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
double vexp(T x) {
  return std::exp(static_cast<double>(x));
}
template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
double verf(T x) {
  return std::erf(static_cast<double>(x));
}

/// The maximum of in[0, n), NaN when any element is NaN (-inf when n is
/// 0); vectorized by lanes.
template <typename T> KILN_KERNEL_INLINE T rowMax(const T *in, int64_t n) {
  // Per-lane maxima: a select-based max is not a reduction the vectorizer
  // accepts (it is not commutative with NaN), but lane-wise it vectorizes.
  // NaNs are counted on the side so that they propagate.
  constexpr int64_t kLanes = 16;
  T lanes[kLanes];
  int nans[kLanes] = {};
  std::fill(lanes, lanes + kLanes, -std::numeric_limits<T>::infinity());
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (int64_t j = 0; j < kLanes; ++j) {
      T v = in[i + j];
      lanes[j] = v > lanes[j] ? v : lanes[j];
      nans[j] |= v != v;
    }
  }
  for (; i < n; ++i) {
    lanes[0] = in[i] > lanes[0] ? in[i] : lanes[0];
    nans[0] |= in[i] != in[i];
  }
  T m = lanes[0];
  int anyNan = 0;
  for (int64_t j = 0; j < kLanes; ++j) {
    m = lanes[j] > m ? lanes[j] : m;
    anyNan |= nans[j];
  }
  return anyNan ? std::numeric_limits<T>::quiet_NaN() : m;
}

} // namespace kiln::detail

#endif
