// Tests (differential tester find, seed 8000, root 590) that a tensor a
// host function returns, whose rank nothing in the source shows, is
// compiled for both ranks conv2d and the 2-d pools take when it reaches
// them: [N, C, H, W] and the unbatched [C, H, W]. It had been compiled for
// rank 4 alone, so every call with an unbatched tensor missed its guard
// and ran eagerly. The program calls each root batched and unbatched.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// RUN: %matches_eager %s %t 8
// CHECK-LABEL: Graph kiln_pooled_0
// CHECK: variant kiln_pooled_0_t0 for y f32[?,?,?,?]
// CHECK: variant kiln_pooled_0_t1 for y f32[?,?,?]
// CHECK-LABEL: Graph kiln_convolved_1
// CHECK: variant kiln_convolved_1_t0 for y f32[?,?,?,?], w f32[?,?,?,?]
// CHECK: variant kiln_convolved_1_t1 for y f32[?,?,?], w f32[?,?,?,?]
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_DISABLE() static Tensor host_step(const Tensor &x) { return x * 2 + 1; }

KILN_COMPILE() Tensor pooled(const Tensor &a) {
  Tensor y = host_step(a.tanh());
  return kiln::avg_pool2d(y, 3, 1, 1) * 2.0f;
}

KILN_COMPILE() Tensor convolved(const Tensor &a, const Tensor &w) {
  Tensor y = host_step(a * 0.5f);
  return kiln::conv2d(y, w, Tensor(), 1, 1).relu();
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 5;
  Tensor w = kiln::randn({4, 3, 3, 3}, 1);
  Tensor batched = kiln::randn({2, 3, n, n + 1}, 2);
  Tensor unbatched = kiln::randn({3, n + 2, n}, 3);
  std::cout << pooled(batched) << "\n" << pooled(unbatched) << "\n";
  std::cout << convolved(batched, w) << "\n"
            << convolved(unbatched, w) << "\n";
  return 0;
}
