// Tests returns inside branches. An early return on a host value, `if (c)
// return a;` and then more statements, is one graph whose returned value
// the condition chooses (here a host bool input, so a variant per value).
// A return inside an unrolled loop is a graph break, not a second output of
// one graph: a graph once returned the last arm's value on every call,
// whichever arm the flag chose. Every path runs compiled with the eager
// results.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// CHECK: Kiln produced 2 graphs, with 1 graph break
// CHECK-LABEL: gate (
// CHECK-NOT: Graph breaks
// CHECK: variant kiln_gate_0_v0 when gated=false (2 ops), inputs: x
// CHECK: variant kiln_gate_0_v1 when gated=true (4 ops), inputs: x g
// CHECK: select(
// CHECK-LABEL: first (
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
