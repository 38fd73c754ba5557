//===- CpuFeatures.h - What the running CPU can execute ---------*- C++ -*-===//
//
// The x86 features the runtime queries (cpuid, through the compiler's
// __builtin_cpu_supports), capped by KILN_CPU_CAPABILITY so that every
// level can be tested on a machine that has more: x86-64-v2 (or baseline),
// avx2 (x86-64-v3), avx512 (x86-64-v4: AVX-512 F/VL/BW/DQ/CD); unset, every
// feature the CPU has (AVX512-BF16, AMX and the rest above x86-64-v4). The
// guard of a compiled graph reads it (kiln::abi::missingCpuFeatures), and so
// do the kernels that pick an instruction set at run time: every parallel
// loop body (Core/Parallel.h) and the bfloat16 products (oneDNN).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CORE_CPUFEATURES_H
#define KILN_RUNTIME_CORE_CPUFEATURES_H

#include <string_view>

namespace kiln::detail {

enum class CpuFeature {
  Unknown, // a name the runtime cannot query: taken as present
  Usable,  // the CPU has it and KILN_CPU_CAPABILITY allows it
  Missing, // the CPU lacks it, or KILN_CPU_CAPABILITY caps it off
};

/// The state of feature `name` (GCC's and LLVM's names: "avx2",
/// "avx512bf16", "amx-bf16").
CpuFeature cpuFeature(std::string_view name);

/// KILN_CPU_CAPABILITY's level: 1 x86-64-v2, 2 avx2, 3 avx512, 4 none set
/// (every feature the CPU has).
int cpuCapabilityLevel();

/// The instruction sets the runtime's loop bodies are compiled for
/// (Core/Parallel.h), each the features of its KILN_CPU_CAPABILITY level.
enum class KernelIsa { Baseline = 1, Avx2 = 2, Avx512 = 3 };

/// The largest KernelIsa whose features are all usable (cpuFeature), fixed
/// at the first call.
KernelIsa kernelIsa();

} // namespace kiln::detail

#endif
