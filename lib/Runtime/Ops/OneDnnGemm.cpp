//===- OneDnnGemm.cpp - Products through oneDNN's matmul ------------------===//
//
// oneDNN (Debian's libdnnl-dev) runs the products that the CPU's own
// instructions run best through it:
//
// - bfloat16 products multiply in hardware and sum in float32 (as ATen's
//   do), leaving float32 sums that the caller rounds once: on AMX tiles
//   (Sapphire Rapids and later) or AVX512-BF16 dot products (Cooper Lake,
//   Zen 4 and 5) where the CPU has them and KILN_CPU_CAPABILITY allows
//   them; elsewhere A and B are widened to float32 for gemm<float>.
// - float32 products of many rows where OpenBLAS does not know the CPU
//   (LinearAlgebra.cpp decides; oneDNN's kernels are chosen from cpuid).
//
// Each thread keeps the matmuls it made for the last shapes (making one
// costs far more than a small product) and one scratch buffer: left to
// oneDNN, every call would map and fault in megabytes afresh.
//
//===----------------------------------------------------------------------===//
#include "Ops/Gemm.h"

#include "Core/CpuFeatures.h"
#include "Core/Parallel.h"
#include "kiln/DType.h"
#include "kiln/Error.h"

#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kiln::detail {
namespace {

/// Whether the CPU multiplies bfloat16 in hardware (and may use it).
bool hardwareBf16() {
  static const bool has = cpuFeature("amx-bf16") == CpuFeature::Usable ||
                          cpuFeature("avx512bf16") == CpuFeature::Usable;
  return has;
}

/// A [rows, cols] bfloat16 matrix at these element strides, widened to a
/// contiguous float32 one.
std::vector<float> widened(const BFloat16 *x, int64_t rows, int64_t cols,
                           int64_t rowStride, int64_t colStride) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  parallelFor(rows, rows * cols, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < cols; ++j)
        out[i * cols + j] = float(x[i * rowStride + j * colStride]);
  });
  return out;
}

dnnl::engine &cpuEngine() {
  static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

/// The matmuls this thread made, by operand type, shape, strides and
/// accumulation.
class OneDnnProducts {
public:
  using Key = std::tuple<dnnl::memory::data_type, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, bool>;

  /// A matmul and the scratch memory it needs.
  struct Product {
    dnnl::matmul matmul;
    dnnl::memory::desc scratch;
  };

  /// The matmul for `key`, or null when oneDNN has none (its error taken
  /// as "not here": the caller runs the product another way).
  Product *get(const Key &key) {
    auto it = cache_.find(key);
    if (it != cache_.end())
      return &it->second;
    if (cache_.size() >= kCapacity)
      cache_.clear();
    auto [type, n, m, k, sar, sac, sbr, sbc, accumulate] = key;
    try {
      dnnl::memory::desc a({n, k}, type, {sar, sac});
      dnnl::memory::desc b({k, m}, type, {sbr, sbc});
      dnnl::memory::desc c({n, m}, dnnl::memory::data_type::f32, {m, 1});
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      if (accumulate) {
        dnnl::post_ops sum;
        sum.append_sum(1.0f);
        attr.set_post_ops(sum);
      }
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr,
                                      cpuEngine());
      return &cache_
                  .emplace(key, Product{dnnl::matmul(pd), pd.scratchpad_desc()})
                  .first->second;
    } catch (const std::exception &) {
      return nullptr;
    }
  }

private:
  static constexpr size_t kCapacity = 64;
  std::map<Key, Product> cache_;
};

/// oneDNN's instruction sets capped as KILN_CPU_CAPABILITY caps the
/// runtime's (before its first primitive: oneDNN fixes it then).
void capOneDnnIsa() {
  static const bool capped = [] {
    dnnl::cpu_isa isa = dnnl::cpu_isa::all;
    switch (cpuCapabilityLevel()) {
    case 1:
      isa = dnnl::cpu_isa::sse41;
      break;
    case 2:
      isa = dnnl::cpu_isa::avx2;
      break;
    case 3:
      isa = dnnl::cpu_isa::avx512_core;
      break;
    default:
      break;
    }
    try {
      dnnl::set_max_cpu_isa(isa);
    } catch (const dnnl::error &) {
      // Too late (something in the process made a primitive first).
    }
    return true;
  }();
  (void)capped;
}

/// Runs C (= or +=) A * B through oneDNN, A and B of `type`; false when it
/// has no matmul for these strides, or when called inside an OpenMP
/// region: a matmul divides its work among the threads it was made for,
/// and inside a region oneDNN runs it on one (the runtime's products
/// there run single-threaded in the tiles or OpenBLAS, as before).
bool oneDnnGemm(dnnl::memory::data_type type, int64_t n, int64_t m, int64_t k,
                const void *a, int64_t sar, int64_t sac, const void *b,
                int64_t sbr, int64_t sbc, float *c, bool accumulate) {
  if (omp_in_parallel())
    return false;
  capOneDnnIsa();
  thread_local OneDnnProducts products;
  // A dim of size 1 has no stride that matters; oneDNN wants a plain one.
  if (n == 1)
    sar = k * std::max<int64_t>(sac, 1);
  if (k == 1)
    sac = 1, sbr = m * std::max<int64_t>(sbc, 1);
  if (m == 1)
    sbc = 1;
  OneDnnProducts::Product *product =
      products.get({type, n, m, k, sar, sac, sbr, sbc, accumulate});
  if (!product)
    return false;
  dnnl::engine &cpu = cpuEngine();
  thread_local std::vector<char> scratch;
  std::unordered_map<int, dnnl::memory> args;
  try {
    if (scratch.size() < product->scratch.get_size())
      scratch.resize(product->scratch.get_size());
    args = {
        {DNNL_ARG_SRC,
         dnnl::memory({{n, k}, type, {sar, sac}}, cpu, const_cast<void *>(a))},
        {DNNL_ARG_WEIGHTS,
         dnnl::memory({{k, m}, type, {sbr, sbc}}, cpu, const_cast<void *>(b))},
        {DNNL_ARG_DST,
         dnnl::memory({{n, m}, dnnl::memory::data_type::f32, {m, 1}}, cpu, c)},
        {DNNL_ARG_SCRATCHPAD,
         dnnl::memory(product->scratch, cpu, scratch.data())}};
  } catch (const std::exception &) {
    return false; // nothing written yet: the caller runs it another way
  }
  // Past this point C may be partly written: a failure is an error.
  try {
    thread_local dnnl::stream stream(cpu);
    product->matmul.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error &e) {
    throw Error(std::string("matmul: oneDNN failed: ") + e.what());
  }
  return true;
}

} // namespace

bool oneDnnGemm(int64_t n, int64_t m, int64_t k, const float *a, int64_t sar,
                int64_t sac, const float *b, int64_t sbr, int64_t sbc, float *c,
                bool accumulate) {
  return oneDnnGemm(dnnl::memory::data_type::f32, n, m, k, a, sar, sac, b, sbr,
                    sbc, c, accumulate);
}

void gemm(int64_t n, int64_t m, int64_t k, const BFloat16 *a, int64_t sar,
          int64_t sac, const BFloat16 *b, int64_t sbr, int64_t sbc, float *c,
          bool accumulate) {
  if (n == 0 || m == 0)
    return;
  if (k == 0) {
    if (!accumulate)
      std::fill(c, c + n * m, 0.0f);
    return;
  }
  if (hardwareBf16() && oneDnnGemm(dnnl::memory::data_type::bf16, n, m, k, a,
                                   sar, sac, b, sbr, sbc, c, accumulate))
    return;
  std::vector<float> wa = widened(a, n, k, sar, sac);
  std::vector<float> wb = widened(b, k, m, sbr, sbc);
  gemm<float>(n, m, k, wa.data(), k, 1, wb.data(), m, 1, c, accumulate);
}

} // namespace kiln::detail
