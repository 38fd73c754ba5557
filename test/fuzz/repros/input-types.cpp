// Tests (differential tester finds) that graph input types are read
// through views the caller builds (a slice at an offset, a transpose),
// through a float function of a half tensor (it stays half, as in torch),
// through a composite reduction (std) handed across a KILN_DISABLE()
// call, and through a helper called with float64 in one root and float32
// in another (each call returns its argument's type): each had been
// guessed, and every call missed its guard.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3
// RUN: %matches_eager %s %t 6
// CHECK: inputs: a (i1 tensor of rank 2) b (f64 tensor of rank 2)
// CHECK: inputs: a (f16 tensor of rank 2) b (f16 tensor of rank 2)
// CHECK: inputs: a (f32 tensor of rank 3)
// CHECK: inputs: h (f64 tensor of rank 2)
// CHECK: inputs: h (f32 tensor of rank 3)
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_DISABLE() static Tensor host_step(const Tensor &x) { return x * 2 + 1; }

KILN_COMPILE() Tensor viewed(const Tensor &a, const Tensor &b) {
  return a.to(kiln::kFloat64) * b + b.sum({0}, true);
}

KILN_COMPILE() Tensor halves(const Tensor &a, const Tensor &b) {
  return kiln::cos(a.lerp(b, 0.25)).flip({0}) + 0.25f;
}

KILN_COMPILE() Tensor spread(const Tensor &a) {
  Tensor s = kiln::std(a.to(kiln::kFloat64), {0}, 0, false);
  Tensor h = host_step(s);
  return kiln::pow(h.abs() + 0.25f, 0.5);
}

KILN_COMPILE() Tensor rescaled(const Tensor &x) {
  Tensor h = host_step(x.relu());
  return h * 0.5f - x;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor mask = (kiln::randint(-32, 33, {n, n + 2}, 1) > 0).slice(-1, 1, n + 1);
  Tensor w = kiln::randn({n, n}, 2, kiln::kFloat64).transpose(-1, -2);
  std::cout << viewed(mask, w) << "\n";
  Tensor x = kiln::randn({n, n}, 3).to(kiln::kFloat16);
  Tensor y = (kiln::randn({1, n + 2}, 4).to(kiln::kFloat16)).slice(-1, 1, n + 1);
  std::cout << halves(x, y) << "\n";
  std::cout << spread(kiln::randn({n, n, n + 2}, 5).slice(-1, 1, n + 1)) << "\n";
  std::cout << rescaled(kiln::randn({2, n, 3}, 6)) << "\n";
}
