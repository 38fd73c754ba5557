// Tests that callers that disagree leave an input's type open, and that
// the graph is then compiled in one version per type they show: the f32
// and the f64 calls both run compiled, with the eager results.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// CHECK: types: a open
// CHECK-NEXT: variant kiln_twice_0_t0 for a f32[?] (1 ops), inputs: a
// CHECK-NEXT: variant kiln_twice_0_t1 for a f64[?] (1 ops), inputs: a
// CHECK-NOT: variant
// OUT: f32 sum=12.000
// OUT: f64 sum=12.000
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor twice(const Tensor &a) { return a * 2.0; }

int main() {
  Tensor f = twice(kiln::full({4}, 1.5));
  Tensor d = twice(kiln::full({4}, 1.5, kiln::kFloat64));
  std::printf("f32 sum=%.3f\n", kiln::sum(f).item<float>());
  std::printf("f64 sum=%.3f\n", kiln::sum(d).item<double>());
}
