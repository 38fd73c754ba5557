// Tests that a return inside a branch on a host value (or inside an
// unrolled loop) is a graph break, not a second output of one graph: the
// graph used to return the last arm's value on every call, whichever arm
// the flag chose. Both arms run compiled with the eager results.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// CHECK: Kiln produced 4 graphs, with 2 graph breaks
// CHECK: 1. a return inside a branch or a loop
// CHECK-NEXT: at {{.*}}return-in-branch.cpp:[[@LINE+14]]:5
// CHECK: 1. a return inside a branch or a loop
// CHECK-NEXT: at {{.*}}return-in-branch.cpp:[[@LINE+21]]:7
// OUT: gate off 2.445975
// OUT: gate on 0.688870
// OUT: first 6.000000
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor gate(const Tensor &x, const Tensor &g, bool gated) {
  Tensor h = x * 2.0f;
  if (!gated)
    return kiln::relu(h);
  return kiln::relu(h * kiln::sigmoid(g));
}

KILN_COMPILE() Tensor first(const Tensor &x) {
  Tensor acc = x;
  for (int i = 0; i < 3; ++i) {
    acc = acc + 1.0f;
    if (i == 0)
      return acc;
  }
  return acc;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor x = kiln::randn({3, 4}, 1), g = kiln::randn({4}, 2);
  std::printf("gate off %f\n", kiln::sum(gate(x, g, false)).item<float>());
  std::printf("gate on %f\n", kiln::sum(gate(x, g, true)).item<float>());
  std::printf("first %f\n", kiln::sum(first(kiln::ones({n}))).item<float>() - (float)n + 1.0f);
}
