// Tests --target-cpu and --target-features: the graphs are compiled for the
// named CPU (no AVX in an x86-64-v2 object), the stitched guard carries the
// features that CPU implies, and a program whose graphs need features the
// running CPU lacks runs them eagerly with a warning instead of dying of an
// illegal instruction (KILN_CPU_CAPABILITY=avx2 makes any machine lack
// AVX-512). An unknown CPU is bad usage.
//
// RUN: kiln compile %s -o %t.v2.cpp --target-cpu=x86-64-v2
// RUN: FileCheck %s --check-prefix=V2 < %t.v2.cpp
// RUN: llvm-objdump -d %t.v2.o | FileCheck %s --check-prefix=NOAVX --implicit-check-not=%%ymm --implicit-check-not=%%zmm
// RUN: kiln compile %s -o %t.ll --emit=llvm --target-cpu=x86-64-v2 --target-features=+avx2
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: kiln compile %s -o %t.spr.cpp --target-cpu=sapphirerapids
// RUN: FileCheck %s --check-prefix=SPR < %t.spr.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.v2.cpp %t.v2.o -o %t.v2 %kiln_link %kernel_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.spr.cpp %t.spr.o -o %t.spr %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_STATS=1 KILN_CPU_CAPABILITY=x86-64-v2 %t.v2 > %t.v2.txt 2> %t.v2.err
// RUN: %compare %t.ref.txt %t.v2.txt
// RUN: FileCheck %s --check-prefix=RAN < %t.v2.err
// RUN: env KILN_STATS=1 KILN_CPU_CAPABILITY=avx2 %t.spr > %t.spr.txt 2> %t.spr.err
// RUN: %compare %t.ref.txt %t.spr.txt
// RUN: FileCheck %s --check-prefix=EAGER < %t.spr.err
// RUN: not kiln compile %s -o %t.bad.cpp --target-cpu=pentium9 2>&1 | FileCheck %s --check-prefix=BAD
//
// V2: static constexpr char kiln_cpu_features_[] = "cmov,crc32,cx16,cx8,fxsr,mmx,popcnt,sahf,sse,sse2,sse3,sse4.1,sse4.2,ssse3,x87";
// V2: kiln::abi::GraphSite site("kiln_f_0", "target-cpu.cpp:{{[0-9]+}}", {{[0-9]+}}, "x", kiln_cpu_features_);
// NOAVX: %xmm
// IR: "target-cpu"="x86-64-v2"
// IR-SAME: "target-features"="+avx2"
// SPR: kiln_cpu_features_[] = "{{.*}}amx-tile,{{.*}}avx512f,{{.*}}"
// RAN: kiln-stats graph_calls=2 compiled=2 guard_misses=0
// EAGER: kiln: warning: graph kiln_f_0 (target-cpu.cpp:{{[0-9]+}}) runs eagerly: its compiled code needs CPU features this CPU lacks ({{.*}}avx512f{{.*}}) at KILN_CPU_CAPABILITY=avx2
// EAGER: kiln-stats graph_calls=2 compiled=0 guard_misses=2
// BAD: kiln: error: --target-cpu=pentium9: not a CPU LLVM knows
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

KILN_COMPILE() Tensor f(const Tensor &x) {
  return kiln::gelu(x * 2.0f) + kiln::exp(x).sum({-1}, true);
}

int main() {
  std::printf("%.5f\n", kiln::sum(f(kiln::randn({64, 33}, 1))).item<float>());
  std::printf("%.5f\n", kiln::sum(f(kiln::randn({5, 300}, 2))).item<float>());
}
