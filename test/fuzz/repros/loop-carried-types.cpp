// Tests (differential tester find, seed 6000, root 466) that a variable a
// loop left on the host changes type in is typed for every type it can
// hold: float32 before the loop, float64 after a step that adds a float64
// weight, and either after the loop (it may not run). Each graph of the
// body had been typed for the first iteration alone, so the second call
// of the body missed its guard and ran eagerly.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3
// RUN: %matches_eager %s %t 6
// CHECK-LABEL: Graph kiln_widened_1
// CHECK: variant kiln_widened_1_t0 for t f32[?], w f64[?]
// CHECK: variant kiln_widened_1_t1 for t f64[?], w f64[?]
// CHECK-LABEL: Graph kiln_widened_2
// CHECK: variant kiln_widened_2_t0 for t f{{32|64}}[?]
// CHECK: variant kiln_widened_2_t1 for t f{{32|64}}[?]
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

KILN_COMPILE() Tensor widened(const Tensor &a, const std::vector<Tensor> &ws) {
  Tensor t = a.relu();
  for (const Tensor &w : ws)
    t = t * 0.5f + w;
  return t * 2.0f;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor a = kiln::randn({n}, 1);
  std::vector<Tensor> ws{kiln::randn({n}, 2, kiln::kFloat64),
                         kiln::randn({n}, 3, kiln::kFloat64)};
  std::cout << widened(a, ws) << "\n";
  std::vector<Tensor> none;
  std::cout << widened(a, none) << "\n";
  return 0;
}
