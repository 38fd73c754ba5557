// Tests that callers that disagree leave an input's type open: the graph is
// compiled for the guess (f32) and the f64 call runs the original
// statements eagerly (KILN_LOGS=guards says so), with the eager result.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: env KILN_LOGS=guards %t 2>&1 | FileCheck %s --check-prefix=LOG
// CHECK: inputs: a (f32 tensor of rank 1)
// LOG: guard of graph {{.*}} failed on input 0 (dtype): compiled for rank 1 float32
// LOG: f32 sum=12.000
// LOG: f64 sum=12.000
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
