//===- kiln/Cpu.h - Which instruction set the kernels use -------*- C++ -*-===//
//
// Like torch.backends.cpu: the runtime is built for x86-64-v2 and its loop
// bodies once more for AVX2 and for AVX-512; it runs the largest set the
// CPU has, capped by the environment variable KILN_CPU_CAPABILITY
// (x86-64-v2, avx2 or avx512), fixed at the first parallel loop.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CPU_H
#define KILN_CPU_H

#include <string>

namespace kiln::cpu {

/// The instruction set the runtime's kernels run: "x86-64-v2", "avx2" or
/// "avx512" (KILN_CPU_CAPABILITY's names), "default" on other machines.
std::string get_cpu_capability();

} // namespace kiln::cpu

#endif
