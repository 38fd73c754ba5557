// Repro 20 (shared/repros): squeeze(0) of a dim that is 1 only at run
// time. The graph squeezes it under a shape check and runs compiled; a
// call where the dim is not 1 (eager keeps it) fails the check and runs
// the original statements eagerly, with the eager result.
//
// RUN: %matches_eager %s %t 9
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t.bin %kiln_link %kernel_link
// RUN: env KILN_STATS=1 KILN_LOGS=guards %t.bin 9 2 > %t.out 2> %t.err
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: %t.ref 9 2 > %t.ref.txt
// RUN: %compare %t.ref.txt %t.out
// RUN: FileCheck %s < %t.err
// CHECK: kiln: graph kiln_f_0: a shape check failed ({{.*}}); running it eagerly
// CHECK: kiln-stats graph_calls=1 compiled=0 guard_misses=1
//
// Compile failure on a valid program: squeeze(d) of a dim whose size is not
// known at compile time (it is 1 at run time; torch/eager accept any size).
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &b) { return b.squeeze(0) + 1.0f; }
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 8, rows = argc > 2 ? std::atoll(argv[2]) : 1;
  Tensor r = f(kiln::randn({rows, n}, 1));
  std::printf("%lld %f\n", (long long)r.dim(), kiln::sum(r).item<float>());
}
