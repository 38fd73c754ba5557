// Tests what a user sees when a graph cannot run compiled: the first guard
// miss of a graph prints one warning (the graph, where it is, the input,
// what arrived and what the graph was compiled for), later misses stay
// quiet, and KILN_STATS=1 prints one line at exit counting graph calls,
// compiled runs, misses, the kiln ops compiled graphs ran and the tensor
// ops that ran eagerly under the compile root.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// CHECK: kiln: warning: graph kiln_twice_0 (guard-miss.cpp:[[@LINE+13]]) runs eagerly: input 0 (a) is a float64 tensor of rank 1 on cpu, the graph is compiled for float32 of rank 1 on cpu
// CHECK-NOT: warning
// CHECK: {{^}}kiln-stats graph_calls=4 compiled=1 guard_misses=3 ops_compiled=2 ops_eager=6{{$}}
// CHECK-NOT: kiln-stats
// OUT: f32 sum=16.000
// OUT: f64 sum=16.000
// OUT: f64 sum=16.000
// OUT: f64 sum=16.000
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor twice(const Tensor &a) {
  return kiln::relu(a * 2.0);
}

int main() {
  Tensor f = twice(kiln::full({4}, 2.0));
  std::printf("f32 sum=%.3f\n", kiln::sum(f).item<float>());
  for (int i = 0; i < 3; ++i) {
    Tensor d = twice(kiln::full({4}, 2.0, kiln::kFloat64));
    std::printf("f64 sum=%.3f\n", kiln::sum(d).item<double>());
  }
}
