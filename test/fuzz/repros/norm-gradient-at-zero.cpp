// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 23, roots 119 and 321) that a compiled kiln::norm's gradient is eager's
// for a vector of zeros: none (torch masks it), where the root of the sum,
// traced as sqrt or pow, had given inf * 0 = NaN. The 2-norm and a 3-norm,
// over rows one of which is all zeros, values and gradients; built with
// --autograd, every call and its backward compiled, at sizes the source
// does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 6
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_COMPILE()
Tensor norms(const Tensor &x) {
  return kiln::norm(x, 2, {1}, false) + kiln::norm(x, 3, {1}, false) * 0.5f;
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
  // Row 1 is all zeros.
  Tensor x = kiln::randn({3, n}, 5) * (kiln::arange(3) != 1).to(kiln::kFloat32).unsqueeze(1);
  x.requires_grad_();
  Tensor y = norms(x);
  print("y", y);
  (y * kiln::arange(3).to(kiln::kFloat32)).sum().backward();
  print("x.grad", x.grad());
  return 0;
}
