// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 23, roots 45 and 67) that a compiled kiln::std's gradient is eager's
// where the deviation is zero: none (torch's std_backward masks a zero
// result), where the root of the variance had given inf * 0 = NaN once
// std differentiated through its decomposition. A row of equal values and
// single-element groups (correction 0), values and gradients; built with
// --autograd, every call and its backward compiled, at sizes the source
// does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 1
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_COMPILE()
Tensor spreads(const Tensor &x) {
  return kiln::std(x, {1}, 0, false) + kiln::std(x, {0}, 1, false).sum();
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
  // Row 1 holds one value repeated: its deviation is zero.
  Tensor x = kiln::randn({3, n}, 5) * (kiln::arange(3) != 1).to(kiln::kFloat32).unsqueeze(1) + 0.25f;
  x.requires_grad_();
  Tensor y = spreads(x);
  print("y", y);
  (y * (kiln::arange(3).to(kiln::kFloat32) + 1)).sum().backward();
  print("x.grad", x.grad());
  return 0;
}
