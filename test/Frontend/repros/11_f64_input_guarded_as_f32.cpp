// Repro 11 (shared/repros): kiln::full(..., kiln::kFloat64) makes the input f64.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: inputs: a (f64 tensor of rank 1)
//
// A float64 input is always guarded as f32, even when the caller writes
// kiln::kFloat64: explain says "a (f32 tensor of rank 1)" and at run time
// (KILN_LOGS=guards) "guard ... failed on input 0 (dtype): compiled for rank
// 1 float32; running it eagerly". float64 graphs never run compiled.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor log_square(const Tensor &a) {
  return kiln::log(a * a);
}

int main() {
  Tensor a = kiln::full({4}, 2.5, kiln::kFloat64);
  std::printf("%.12f\n", kiln::sum(log_square(a)).item<double>());
}
