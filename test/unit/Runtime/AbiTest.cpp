//===- AbiTest.cpp - Graph results taken into Tensors
//----------------------===//
#include "TestUtil.h"

#include "ABI/Descriptors.h"
#include "kiln/Cpu.h"
#include "kiln/abi.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace kiln;

namespace {
/// A ranked descriptor over buffer: {allocated, aligned, offset, sizes...,
/// strides...}.
std::vector<int64_t> describe(void *buffer, int64_t offset,
                              std::vector<int64_t> sizes,
                              std::vector<int64_t> strides) {
  std::vector<int64_t> d(3);
  std::memcpy(&d[0], &buffer, sizeof(void *));
  std::memcpy(&d[1], &buffer, sizeof(void *));
  d[2] = offset;
  d.insert(d.end(), sizes.begin(), sizes.end());
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

/// A rank-1 result descriptor over buffer.
std::vector<int64_t> describe1d(void *buffer, int64_t offset, int64_t size) {
  return describe(buffer, offset, {size}, {1});
}
} // namespace

TEST_CASE("results in one buffer share its storage and free it once", "[abi]") {
  // A graph returning one value twice (`t1 = t0;`) and a view of it, as
  // compiled code hands them back: three descriptors, one allocation.
  auto *buffer =
      static_cast<float *>(abi::allocateForCompiled(6 * sizeof(float)));
  for (int i = 0; i < 6; ++i)
    buffer[i] = static_cast<float>(i);
  std::vector<int64_t> a = describe1d(buffer, 0, 6),
                       b = describe1d(buffer, 0, 6),
                       c = describe1d(buffer, 2, 3);
  std::vector<Tensor> t = abi::adoptResults({{a.data(), 1, kFloat32},
                                             {b.data(), 1, kFloat32},
                                             {c.data(), 1, kFloat32}});
  REQUIRE(t.size() == 3);
  CHECK(t[0].storage() == t[1].storage());
  CHECK(t[0].storage() == t[2].storage());
  CHECK(t[2].storage_offset() == 2);
  CHECK(t[2].shape() == Shape{3});
  CHECK(t[2].data<float>()[0] == 2.0f);
  // Writing through one is seen through the others, as with eager aliases.
  t[0].data<float>()[3] = 30.0f;
  CHECK(t[1].data<float>()[3] == 30.0f);
  CHECK(t[2].data<float>()[1] == 30.0f);
  // The buffer outlives the first two and is freed with the last (LSan and
  // ASan in the sanitizer build catch a double or missing free).
  t.erase(t.begin(), t.begin() + 2);
  CHECK(t[0].data<float>()[2] == 4.0f);
}

TEST_CASE("results in different buffers own one each", "[abi]") {
  void *x = abi::allocateForCompiled(4 * sizeof(int64_t));
  void *y = abi::allocateForCompiled(4 * sizeof(int64_t));
  std::vector<int64_t> a = describe1d(x, 0, 4), b = describe1d(y, 1, 3);
  std::vector<Tensor> t =
      abi::adoptResults({{a.data(), 1, kInt64}, {b.data(), 1, kInt64}});
  CHECK(t[0].storage() != t[1].storage());
  CHECK(t[1].storage_offset() == 1);
  CHECK(abi::adopt(describe1d(abi::allocateForCompiled(8), 0, 2).data(), 1,
                   kFloat32)
            .numel() == 2);
}

TEST_CASE("a file compiled for a list of CPUs runs the largest that fits",
          "[abi][cpu]") {
  // sse2 every x86-64 CPU has; avx2 and avx512f depend on the machine and
  // on KILN_CPU_CAPABILITY (ctest runs this suite again at each level).
  const bool avx2 = abi::missingCpuFeatures("avx2").empty(),
             avx512 = abi::missingCpuFeatures("avx512f").empty();
  const char *lists = "sse2|sse2,avx2|sse2,avx2,avx512f";
  CHECK(abi::chooseCpuTarget(lists) == (avx512 ? 2 : avx2 ? 1 : 0));
  CHECK(abi::missingCpuFeatures(lists).empty());
  // Order does not matter: the most features among those that fit.
  CHECK(abi::chooseCpuTarget("sse2,avx2,avx512f|sse2") == (avx512 ? 0 : 1));
  // None fits: -1, and the missing features of the nearest list.
  if (!avx512) {
    CHECK(abi::chooseCpuTarget("avx512f,avx512bw|avx512f") == -1);
    CHECK(abi::missingCpuFeatures("avx512f,avx512bw|avx512f") == "avx512f");
  }
  // One list is the single-CPU case; an empty one needs nothing.
  CHECK(abi::chooseCpuTarget("sse2") == 0);
  CHECK(abi::chooseCpuTarget("") == 0);
  CHECK(abi::missingCpuFeatures("").empty());
}

TEST_CASE("the kernels run the largest instruction set the cap allows",
          "[cpu]") {
  // Worked out here from cpuid and KILN_CPU_CAPABILITY, which ctest sets to
  // each level in turn: the loop bodies' copy the runtime runs
  // (lib/Runtime/Core/Parallel.h).
#if defined(__x86_64__)
  int cap = 3;
  if (const char *env = std::getenv("KILN_CPU_CAPABILITY")) {
    std::string level = env;
    cap = level == "x86-64-v2" || level == "baseline" ? 1
          : level == "avx2" || level == "x86-64-v3"   ? 2
                                                      : 3;
  }
  __builtin_cpu_init();
  const bool v3 = __builtin_cpu_supports("avx2") &&
                  __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi2") &&
                  __builtin_cpu_supports("f16c") &&
                  __builtin_cpu_supports("lzcnt") &&
                  __builtin_cpu_supports("movbe"),
             v4 = v3 && __builtin_cpu_supports("avx512f") &&
                  __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512cd");
  const char *expected = v4 && cap >= 3   ? "avx512"
                         : v3 && cap >= 2 ? "avx2"
                                          : "x86-64-v2";
  CHECK(cpu::get_cpu_capability() == expected);
#else
  CHECK(cpu::get_cpu_capability() == "default");
#endif
}

extern "C" void memrefCopy(int64_t elemSize, detail::UnrankedView *src,
                           detail::UnrankedView *dst);

TEST_CASE("memrefCopy copies strided buffers of any element size", "[abi]") {
  // What MLIR's lowering of memref.copy calls: a run-time broadcast (stride
  // 0: each source element read along a whole row), a transposed source, a
  // strided destination, element sizes from bool to float64 and an odd
  // one (3 bytes, copied bytewise), over enough rows to split between
  // threads. Each destination element is checked against its source
  // element's bytes; the destination's gaps stay untouched.
  const int64_t rows = 3000, cols = 21;
  for (int64_t size : {1, 2, 3, 4, 8}) {
    // Source: [rows, cols] row-major, each element's bytes from its index.
    std::vector<unsigned char> src(static_cast<size_t>(rows * cols * size));
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = static_cast<unsigned char>(i * 131 + i / 7);
    auto element = [&](int64_t r, int64_t c) {
      return src.data() + (r * cols + c) * size;
    };
    struct Layout {
      const char *what;
      std::vector<int64_t> srcStrides, dstStrides;
      int64_t (*col)(int64_t c); // the source column element c reads
    };
    for (const Layout &l :
         {Layout{
              "contiguous", {cols, 1}, {cols, 1}, [](int64_t c) { return c; }},
          Layout{"broadcast",
                 {cols, 0},
                 {cols, 1},
                 [](int64_t) { return int64_t{0}; }},
          Layout{"strided destination",
                 {cols, 1},
                 {2 * cols, 2},
                 [](int64_t c) { return c; }},
          Layout{
              "broadcast into strided", {cols, 0}, {2 * cols, 2}, [](int64_t) {
                return int64_t{0};
              }}}) {
      const int64_t dstElems = rows * l.dstStrides[0];
      std::vector<unsigned char> dst(static_cast<size_t>(dstElems * size),
                                     0xab);
      std::vector<int64_t> sd = describe(src.data(), 0, {rows, cols},
                                         l.srcStrides),
                           dd = describe(dst.data(), 0, {rows, cols},
                                         l.dstStrides);
      detail::UnrankedView s{2, sd.data()}, d{2, dd.data()};
      memrefCopy(size, &s, &d);
      INFO(l.what << ", " << size << "-byte elements");
      int64_t wrong = 0, touched = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          wrong += std::memcmp(dst.data() +
                                   (r * l.dstStrides[0] + c * l.dstStrides[1]) *
                                       size,
                               element(r, l.col(c)), size) != 0;
      for (int64_t i = 0; i < dstElems; ++i)
        if (l.dstStrides[1] == 2 && i % 2 == 1)
          for (int64_t b = 0; b < size; ++b)
            touched += dst[static_cast<size_t>(i * size + b)] != 0xab;
      CHECK(wrong == 0);
      CHECK(touched == 0);
    }
  }
}
