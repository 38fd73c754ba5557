//===- Bf16Gemm.cpp - bfloat16 products, accumulated in float32 -----------===//
//
// A bfloat16 product multiplies and accumulates in float32 (as ATen's does)
// and leaves float32 sums; the caller rounds them once. Where the CPU
// multiplies bfloat16 itself, AMX tiles (Sapphire Rapids and later) or
// AVX512-BF16 dot products (Cooper Lake, Zen 4 and 5), and
// KILN_CPU_CAPABILITY allows it, oneDNN's matmul runs the product on them.
// Elsewhere A and B are widened to float32 and run by gemm<float>.
//
//===----------------------------------------------------------------------===//
#include "Ops/Gemm.h"

#include "Core/CpuFeatures.h"
#include "Core/Parallel.h"
#include "kiln/DType.h"

#include <dnnl.hpp>

#include <algorithm>
#include <list>
#include <map>
#include <tuple>
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

/// oneDNN's matmul for one shape, stride pattern and accumulation; each
/// thread keeps the last few it made (making one costs far more than a
/// small product).
class OneDnnProducts {
public:
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, bool>;

  /// The matmul for Key, or null when oneDNN has none (its error taken as
  /// "not here": the caller widens instead).
  /// A matmul and the scratch memory it needs.
  struct Product {
    dnnl::matmul matmul;
    dnnl::memory::desc scratch;
  };

  Product *get(const Key &key) {
    auto it = cache_.find(key);
    if (it != cache_.end())
      return &it->second;
    if (cache_.size() >= kCapacity)
      cache_.clear();
    auto [n, m, k, sar, sac, sbr, sbc, accumulate] = key;
    using dt = dnnl::memory::data_type;
    try {
      dnnl::memory::desc a({n, k}, dt::bf16, {sar, sac});
      dnnl::memory::desc b({k, m}, dt::bf16, {sbr, sbc});
      dnnl::memory::desc c({n, m}, dt::f32, {m, 1});
      dnnl::primitive_attr attr;
      // The caller passes the scratch memory (B packed for the tiles): left
      // to oneDNN, each call would map and fault in megabytes afresh.
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      if (accumulate) {
        dnnl::post_ops sum;
        sum.append_sum(1.0f);
        attr.set_post_ops(sum);
      }
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr,
                                      engine());
      return &cache_
                  .emplace(key, Product{dnnl::matmul(pd), pd.scratchpad_desc()})
                  .first->second;
    } catch (const dnnl::error &) {
      return nullptr;
    }
  }

  static dnnl::engine &engine() {
    static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    return cpu;
  }

private:
  static constexpr size_t kCapacity = 64;
  std::map<Key, Product> cache_;
};

/// Runs C (= or +=) A * B through oneDNN; false when it has no matmul for
/// these strides.
bool oneDnnGemm(int64_t n, int64_t m, int64_t k, const BFloat16 *a, int64_t sar,
                int64_t sac, const BFloat16 *b, int64_t sbr, int64_t sbc,
                float *c, bool accumulate) {
  thread_local OneDnnProducts products;
  // A dim of size 1 has no stride that matters; oneDNN wants a plain one.
  if (n == 1)
    sar = k * std::max<int64_t>(sac, 1);
  if (k == 1)
    sac = 1, sbr = m * std::max<int64_t>(sbc, 1);
  if (m == 1)
    sbc = 1;
  OneDnnProducts::Product *product =
      products.get({n, m, k, sar, sac, sbr, sbc, accumulate});
  if (!product)
    return false;
  using dt = dnnl::memory::data_type;
  dnnl::engine &cpu = OneDnnProducts::engine();
  dnnl::memory ma({{n, k}, dt::bf16, {sar, sac}}, cpu,
                  const_cast<BFloat16 *>(a));
  dnnl::memory mb({{k, m}, dt::bf16, {sbr, sbc}}, cpu,
                  const_cast<BFloat16 *>(b));
  dnnl::memory mc({{n, m}, dt::f32, {m, 1}}, cpu, c);
  // One scratch buffer per thread, grown to the largest product's need.
  thread_local std::vector<char> scratch;
  const dnnl::memory::desc &scratchDesc = product->scratch;
  if (scratch.size() < scratchDesc.get_size())
    scratch.resize(scratchDesc.get_size());
  dnnl::memory ms(scratchDesc, cpu, scratch.data());
  thread_local dnnl::stream stream(cpu);
  product->matmul.execute(stream, {{DNNL_ARG_SRC, ma},
                                   {DNNL_ARG_WEIGHTS, mb},
                                   {DNNL_ARG_DST, mc},
                                   {DNNL_ARG_SCRATCHPAD, ms}});
  stream.wait();
  return true;
}

} // namespace

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
  if (hardwareBf16() &&
      oneDnnGemm(n, m, k, a, sar, sac, b, sbr, sbc, c, accumulate))
    return;
  std::vector<float> wa = widened(a, n, k, sar, sac);
  std::vector<float> wb = widened(b, k, m, sbr, sbc);
  gemm<float>(n, m, k, wa.data(), k, 1, wb.data(), m, 1, c, accumulate);
}

} // namespace kiln::detail
