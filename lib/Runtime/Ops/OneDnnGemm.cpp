//===- OneDnnGemm.cpp - Products through oneDNN's matmul ------------------===//
//
// oneDNN (Debian's libdnnl-dev) runs the products that the CPU's own
// instructions run best through it:
//
// - bfloat16 products multiply in hardware and sum in float32 (as ATen's
//   do), leaving float32 sums that the caller rounds once: on AMX tiles
//   (Sapphire Rapids and later) or AVX512-BF16 dot products (Cooper Lake,
//   Zen 4 and 5) where the CPU has them and KILN_CPU_CAPABILITY allows
//   them (on Intel cores without AMX, for few rows only: bf16Products);
//   elsewhere A and B are widened to float32 for gemm<float>.
// - float32 products of many rows where OpenBLAS does not know the CPU
//   (LinearAlgebra.cpp decides; oneDNN's kernels are chosen from cpuid).
//
// Each thread keeps the matmuls it made for the last shapes (making one
// costs far more than a small product) and one scratch buffer: left to
// oneDNN, every call would map and fault in megabytes afresh.
//
//===----------------------------------------------------------------------===//
#include "Ops/Gemm.h"

#include "Core/Allocator.h"
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

/// Who runs bfloat16 products.
enum class Bf16Products {
  Hardware, // oneDNN's bfloat16 matmul: AMX tiles or AVX512-BF16
  Widened,  // A and B widened to float32 for gemm<float>
  ByRows,   // the hardware for at most kWidenedRows rows, widened above
};

/// Products of more rows than this widen on Bf16Products::ByRows CPUs.
constexpr int64_t kWidenedRows = 32;

/// How the CPU runs bfloat16 products: in hardware where it has AMX tiles
/// or AVX512-BF16 on an AMD core, widened where it has neither. Intel cores
/// run VDPBF16PS on one port, two bfloat16 multiply-adds per lane and
/// cycle where two FMA ports give float32 the same, so without AMX (Cooper
/// Lake; a Sapphire or Emerald Rapids whose hypervisor hides AMX) oneDNN's
/// bfloat16 matmul, which also pairs B's rows on every call, ran GPT-2's
/// products of 512 rows at 167-173 GFLOP/s against 280-300 widened to
/// float32, on a 2-core Xeon (model 207); at 1-8 rows, bound by reading
/// the weight, bfloat16's half of the bytes wins (1 x 1024 x 4096: 28
/// against 12), level at 32. A Zen 4's two 256-bit pipes give bfloat16
/// twice float32's rate (its bfloat16 GPT-2 block ran 0.6x its float32
/// one): docs/benchmarks.md. KILN_BF16_PRODUCTS=hardware|float32 forces
/// one, to measure it on a machine (hardware still needs the
/// instructions).
Bf16Products bf16Products() {
  static const Bf16Products who = [] {
    const bool amx = cpuFeature("amx-bf16") == CpuFeature::Usable,
               dot = cpuFeature("avx512bf16") == CpuFeature::Usable;
    if (!amx && !dot)
      return Bf16Products::Widened;
    switch (productsChoice("KILN_BF16_PRODUCTS", {"hardware", "float32"})) {
    case 0:
      return Bf16Products::Hardware;
    case 1:
      return Bf16Products::Widened;
    default:
      break;
    }
#if defined(__x86_64__)
    if (!amx && !__builtin_cpu_is("amd"))
      return Bf16Products::ByRows;
#endif
    return Bf16Products::Hardware;
  }();
  return who;
}

} // namespace

bool bf16DotProducts() {
  static const bool dot = cpuFeature("avx512bf16") == CpuFeature::Usable &&
                          bf16Products() != Bf16Products::Widened;
  return dot;
}

namespace {

/// A [rows, cols] bfloat16 matrix at these element strides, widened into
/// a dense float32 one at `out` (rows * cols elements) in the same order:
/// column-major where the columns are contiguous (a linear layer's weight
/// read transposed), row-major otherwise. The strides are rewritten to
/// describe the copy.
void widen(const BFloat16 *x, int64_t rows, int64_t cols, int64_t &rowStride,
           int64_t &colStride, float *out) {
  const bool byColumns = rowStride == 1 && colStride != 1;
  // Lines of the copy: rows, or columns when byColumns.
  const int64_t lines = byColumns ? cols : rows,
                length = byColumns ? rows : cols;
  const int64_t lineStride = byColumns ? colStride : rowStride,
                step = byColumns ? rowStride : colStride;
  parallelFor(lines, lines * length, [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) {
      const BFloat16 *xl = x + l * lineStride;
      float *o = out + l * length;
      if (step == 1) {
#pragma omp simd
        for (int64_t e = 0; e < length; ++e)
          o[e] = float(xl[e]);
      } else {
        for (int64_t e = 0; e < length; ++e)
          o[e] = float(xl[e * step]);
      }
    }
  });
  rowStride = byColumns ? 1 : cols;
  colStride = byColumns ? rows : 1;
}

/// Host memory for the widened operands, from the runtime's block cache (a
/// fresh vector faulted in megabytes on every product).
class HostBuffer {
public:
  explicit HostBuffer(size_t elements)
      : bytes_(std::max<size_t>(elements, 1) * sizeof(float)),
        data_(static_cast<float *>(allocateHost(bytes_))) {}
  ~HostBuffer() { freeHost(data_, bytes_); }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  float *data() const { return data_; }

private:
  size_t bytes_;
  float *data_;
};

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
  const Bf16Products who = bf16Products();
  const bool hardware = who == Bf16Products::Hardware ||
                        (who == Bf16Products::ByRows && n <= kWidenedRows);
  if (hardware && oneDnnGemm(dnnl::memory::data_type::bf16, n, m, k, a, sar,
                             sac, b, sbr, sbc, c, accumulate))
    return;
  HostBuffer wa(static_cast<size_t>(n * k)), wb(static_cast<size_t>(k * m));
  widen(a, n, k, sar, sac, wa.data());
  widen(b, k, m, sbr, sbc, wb.data());
  gemm<float>(n, m, k, wa.data(), sar, sac, wb.data(), sbr, sbc, c, accumulate);
}

} // namespace kiln::detail
