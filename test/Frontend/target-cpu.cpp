// Tests --target-cpu and --target-features: the graphs are compiled for the
// named CPU (no AVX in an x86-64-v2 object), the stitched guard carries the
// features that CPU implies, and a program whose graphs need features the
// running CPU lacks runs them eagerly with a warning instead of dying of an
// illegal instruction (KILN_CPU_CAPABILITY=avx2 makes any machine lack
// AVX-512). An unknown CPU is bad usage.
//
// With a list of CPUs (the LIST prefixes): the object holds every graph
// compiled for each (the first CPU's entry points under their own names,
// the second's with __t1), the stitched file keeps one feature list per
// CPU and picks, once, the CPU with the most features among those the
// running CPU has (kiln::abi::chooseCpuTarget): x86-64-v2 and the host
// here, the host's code where nothing caps it, the x86-64-v2 code under
// KILN_CPU_CAPABILITY=x86-64-v2, compiled both times and giving eager's
// results. Where no CPU of the list fits, the graphs run eagerly with the
// warning that names what the nearest one lacks. A list is for the cpu
// backend; each name must be a CPU LLVM knows.
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
// RUN: kiln compile %s -o %t.list.cpp --target-cpu=x86-64-v2,native
// RUN: FileCheck %s --check-prefix=LISTSTITCH < %t.list.cpp
// RUN: llvm-nm %t.list.o | FileCheck %s --check-prefix=LISTSYM
// RUN: kiln compile %s -o %t.list.ll --emit=llvm --target-cpu=x86-64-v2,x86-64-v4
// RUN: FileCheck %s --check-prefix=LISTIR < %t.list.ll
// RUN: kiln compile %s -o %t.list.big.cpp --target-cpu=sapphirerapids,znver4
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.list.cpp %t.list.o -o %t.list.exe %kiln_link %kernel_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.list.big.cpp %t.list.big.o -o %t.list.big %kiln_link %kernel_link
// RUN: env KILN_STATS=1 KILN_LOGS=graph_calls %t.list.exe > %t.list.host.txt 2> %t.list.host.err
// RUN: %compare %t.ref.txt %t.list.host.txt
// RUN: FileCheck %s --check-prefix=LISTHOST < %t.list.host.err
// RUN: env KILN_STATS=1 KILN_LOGS=graph_calls KILN_CPU_CAPABILITY=x86-64-v2 %t.list.exe > %t.list.v2.txt 2> %t.list.v2.err
// RUN: %compare %t.ref.txt %t.list.v2.txt
// RUN: FileCheck %s --check-prefix=LISTLOW < %t.list.v2.err
// RUN: env KILN_STATS=1 KILN_CPU_CAPABILITY=avx2 %t.list.big > %t.list.big.txt 2> %t.list.big.err
// RUN: %compare %t.ref.txt %t.list.big.txt
// RUN: FileCheck %s --check-prefix=LISTNONE < %t.list.big.err
// RUN: not kiln compile %s -o %t.list.bad.cpp --target-cpu=x86-64-v3,pentium9 2>&1 | FileCheck %s --check-prefix=LISTBAD
// RUN: not kiln compile %s -o %t.list.cuda.cpp --backend=cuda --target-cpu=x86-64-v3,native 2>&1 | FileCheck %s --check-prefix=LISTCUDA
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
// BAD: kiln: error: --target-cpu=pentium9: pentium9 is not a CPU LLVM knows
// LISTSTITCH: static constexpr char kiln_cpu_features_[] = "cmov,crc32,cx16,cx8,fxsr,mmx,popcnt,sahf,sse,sse2,sse3,sse4.1,sse4.2,ssse3,x87|{{.+}}";
// LISTSTITCH: static const int kiln_cpu_target_ = kiln::abi::chooseCpuTarget(kiln_cpu_features_);
// LISTSTITCH-DAG: extern "C" void kiln_entry_kiln_f_0(void **);
// LISTSTITCH-DAG: extern "C" void kiln_entry_kiln_f_0__t1(void **);
// LISTSTITCH: kiln::abi::GraphCall(site, (kiln_cpu_target_ == 1 ? kiln_entry_kiln_f_0__t1 : kiln_entry_kiln_f_0))
// LISTSYM-DAG: T kiln_entry_kiln_f_0{{$}}
// LISTSYM-DAG: T kiln_entry_kiln_f_0__t1{{$}}
// LISTIR-DAG: define {{.*}}@_mlir_ciface_kiln_f_0({{.*}} #[[FIRST:[0-9]+]]
// LISTIR-DAG: define {{.*}}@_mlir_ciface_kiln_f_0__t1({{.*}} #[[SECOND:[0-9]+]]
// LISTIR-DAG: attributes #[[FIRST]] = {{{.*}}"target-cpu"="x86-64-v2"
// LISTIR-DAG: attributes #[[SECOND]] = {{{.*}}"prefer-vector-width"="512"{{.*}}"target-cpu"="x86-64-v4"
// LISTHOST: kiln: graphs compiled for 2 CPUs: running CPU 2's code
// LISTHOST: kiln-stats graph_calls=2 compiled=2 guard_misses=0
// LISTLOW: kiln: graphs compiled for 2 CPUs: running CPU 1's code
// LISTLOW: kiln-stats graph_calls=2 compiled=2 guard_misses=0
// LISTNONE: kiln: warning: graph kiln_f_0 (target-cpu.cpp:{{[0-9]+}}) runs eagerly: its compiled code needs CPU features this CPU lacks ({{.*}}avx512f{{.*}}) at KILN_CPU_CAPABILITY=avx2
// LISTNONE: kiln-stats graph_calls=2 compiled=0 guard_misses=2
// LISTBAD: kiln: error: --target-cpu=x86-64-v3,pentium9: pentium9 is not a CPU LLVM knows
// LISTCUDA: kiln: error: --target-cpu=x86-64-v3,native: a list of CPUs is for --backend=cpu
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
