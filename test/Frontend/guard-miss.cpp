// Tests what a user sees when a graph cannot run compiled: the first guard
// miss of a graph prints one warning (the graph, where it is, the input,
// what arrived and what the graph was compiled for; for a graph compiled
// in type versions, every version), later misses stay quiet, and
// KILN_STATS=1 prints one line at exit counting graph calls, compiled
// runs, misses, the kiln ops compiled graphs ran and the tensor ops that
// ran eagerly under the compile roots.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// CHECK: kiln: warning: graph kiln_twice_0 (guard-miss.cpp:[[@LINE+19]]) runs eagerly: input 0 (a) is a float64 tensor of rank 1 on cpu, the graph is compiled for float32 of rank 1 on cpu (reported once per graph; KILN_LOGS=guards reports every miss)
// CHECK-NOT: warning: graph kiln_twice
// CHECK: kiln: warning: graph kiln_halve_1 (guard-miss.cpp:[[@LINE+22]]) runs eagerly: its inputs (a) arrive as (f32[?,?,?,?,?]), the graph is compiled for (f32[?,?]), (f32[?]), (f32[?,?,?]) and (f32[?,?,?,?]) on cpu
// CHECK-NOT: warning
// CHECK: {{^}}kiln-stats graph_calls=6 compiled=2 guard_misses=4 ops_compiled=3 ops_eager=7{{$}}
// CHECK-NOT: kiln-stats
// OUT: f32 sum=16.000
// OUT-COUNT-3: f64 sum=16.000
// OUT: rank 3 sum=4.000
// OUT: rank 5 sum=4.000
#include <kiln/kiln.h>
#include <cstdio>
#include <vector>
using kiln::Tensor;

// Its one visible caller passes a float32 tensor of rank 1: that is what
// it is compiled for. The float64 tensors come out of a container, where
// the source shows nothing of their types.
KILN_COMPILE() Tensor twice(const Tensor &a) {
  return kiln::relu(a * 2.0);
}

// No caller shows its rank: it is compiled in versions, one per rank.
KILN_COMPILE() Tensor halve(const Tensor &a) {
  return a * 0.5;
}

int main() {
  Tensor f = twice(kiln::full({4}, 2.0));
  std::printf("f32 sum=%.3f\n", kiln::sum(f).item<float>());
  std::vector<Tensor> doubles(3, kiln::full({4}, 2.0, kiln::kFloat64));
  for (const Tensor &t : doubles) {
    Tensor d = twice(t);
    std::printf("f64 sum=%.3f\n", kiln::sum(d).item<double>());
  }
  std::vector<Tensor> blocks = {kiln::ones({2, 2, 2}), kiln::ones({2, 1, 2, 1, 2})};
  for (const Tensor &t : blocks)
    std::printf("rank %lld sum=%.3f\n", static_cast<long long>(t.dim()),
                kiln::sum(halve(t)).item<float>());
}
