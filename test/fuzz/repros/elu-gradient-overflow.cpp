// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 31, root 122) that a compiled kiln::elu's gradient is eager's where x is
// large: 1, where the traced where(x > 0, x, expm1(x)) had given the
// branch it does not pick inf * 0 = NaN once expm1 of x overflowed (x
// above about 88 in float32). Values on both sides of 0 and past the
// overflow, with the default and a given alpha; built with --autograd,
// every call and its backward compiled, at sizes the source does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 7
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_COMPILE()
Tensor activations(const Tensor &x) {
  return kiln::elu(x) + kiln::elu(x * 0.5f, 0.7);
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  // Row 0 small values of either sign, row 1 past expm1's overflow.
  Tensor x = kiln::randn({2, n}, 7) + kiln::arange(2).to(kiln::kFloat32).unsqueeze(1) * 300.0f;
  x.requires_grad_();
  Tensor y = activations(x);
  print("y", y);
  (y * 0.25f).sum().backward();
  print("x.grad", x.grad());
  return 0;
}
