//===- CpuFeatures.cpp - What the running CPU can execute -----------------===//
#include "Core/CpuFeatures.h"
#include "kiln/Cpu.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln::detail {
namespace {

/// The x86 features the runtime can query, with the lowest
/// KILN_CPU_CAPABILITY level that includes each (x86-64-v2 = 1, avx2 = 2,
/// avx512 = 3; 4: above every level).
struct Feature {
  const char *name;
  int level;
  bool (*present)();
};
#if defined(__x86_64__) || defined(__i386__)
#define KILN_CPU_FEATURE(NAME, LEVEL)                                          \
  Feature {                                                                    \
    NAME, LEVEL, [] { return bool(__builtin_cpu_supports(NAME)); }             \
  }
const Feature kFeatures[] = {
    KILN_CPU_FEATURE("sse3", 1),         KILN_CPU_FEATURE("ssse3", 1),
    KILN_CPU_FEATURE("sse4.1", 1),       KILN_CPU_FEATURE("sse4.2", 1),
    KILN_CPU_FEATURE("popcnt", 1),       KILN_CPU_FEATURE("avx", 2),
    KILN_CPU_FEATURE("avx2", 2),         KILN_CPU_FEATURE("fma", 2),
    KILN_CPU_FEATURE("f16c", 2),         KILN_CPU_FEATURE("bmi", 2),
    KILN_CPU_FEATURE("bmi2", 2),         KILN_CPU_FEATURE("lzcnt", 2),
    KILN_CPU_FEATURE("movbe", 2),        KILN_CPU_FEATURE("avx512f", 3),
    KILN_CPU_FEATURE("avx512vl", 3),     KILN_CPU_FEATURE("avx512bw", 3),
    KILN_CPU_FEATURE("avx512dq", 3),     KILN_CPU_FEATURE("avx512cd", 3),
    KILN_CPU_FEATURE("avx512vnni", 4),   KILN_CPU_FEATURE("avx512bf16", 4),
    KILN_CPU_FEATURE("avx512fp16", 4),   KILN_CPU_FEATURE("avx512vbmi", 4),
    KILN_CPU_FEATURE("avx512vbmi2", 4),  KILN_CPU_FEATURE("avx512ifma", 4),
    KILN_CPU_FEATURE("avx512bitalg", 4), KILN_CPU_FEATURE("avx512vpopcntdq", 4),
    KILN_CPU_FEATURE("vpclmulqdq", 4),   KILN_CPU_FEATURE("gfni", 4),
    KILN_CPU_FEATURE("vaes", 4),         KILN_CPU_FEATURE("avxvnni", 4),
    KILN_CPU_FEATURE("amx-tile", 4),     KILN_CPU_FEATURE("amx-bf16", 4),
    KILN_CPU_FEATURE("amx-int8", 4),     KILN_CPU_FEATURE("sha", 4),
    KILN_CPU_FEATURE("adx", 4)};
#undef KILN_CPU_FEATURE
#else
const Feature kFeatures[] = {{"", 0, [] { return true; }}};
#endif

} // namespace

CpuFeature cpuFeature(std::string_view name) {
  for (const Feature &f : kFeatures)
    if (name == f.name)
      return f.level <= cpuCapabilityLevel() && f.present()
                 ? CpuFeature::Usable
                 : CpuFeature::Missing;
  return CpuFeature::Unknown;
}

int cpuCapabilityLevel() {
  static const int cap = [] {
    const char *env = std::getenv("KILN_CPU_CAPABILITY");
    if (!env || !*env)
      return 4;
    std::string level(env);
    if (level == "x86-64-v2" || level == "baseline")
      return 1;
    if (level == "avx2" || level == "x86-64-v3")
      return 2;
    if (level == "avx512" || level == "x86-64-v4")
      return 3;
    std::fprintf(stderr,
                 "kiln: warning: KILN_CPU_CAPABILITY=%s is none of "
                 "x86-64-v2, avx2, avx512: ignored\n",
                 env);
    return 4;
  }();
  return cap;
}

KernelIsa kernelIsa() {
  static const KernelIsa isa = [] {
    auto all = [](int level) {
      bool usable = true;
      for (const Feature &f : kFeatures)
        if (f.level == level)
          usable &= cpuFeature(f.name) == CpuFeature::Usable;
      return usable;
    };
#if defined(__x86_64__)
    if (all(2) && all(3))
      return KernelIsa::Avx512;
    if (all(2))
      return KernelIsa::Avx2;
#else
    (void)all;
#endif
    return KernelIsa::Baseline;
  }();
  return isa;
}

} // namespace kiln::detail

std::string kiln::cpu::get_cpu_capability() {
#if defined(__x86_64__)
  switch (detail::kernelIsa()) {
  case detail::KernelIsa::Avx512:
    return "avx512";
  case detail::KernelIsa::Avx2:
    return "avx2";
  case detail::KernelIsa::Baseline:
    return "x86-64-v2";
  }
#endif
  return "default";
}
