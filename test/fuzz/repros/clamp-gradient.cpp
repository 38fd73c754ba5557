// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 11) that a compiled clamp's gradient is eager's: the input's only where
// min < x < max strictly, none at a bound and none at NaN. clamp had been
// traced as maximum then minimum, which share a tie's gradient, so an input
// at a bound took half of it. The values stay eager's: NaN stays NaN and a
// min above the max gives the max. Built with --autograd, every call and
// its backward compiled, at sizes the source does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 4
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 9
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

using kiln::Tensor;

KILN_COMPILE()
Tensor squash(const Tensor &x, const Tensor &y) {
  Tensor both = x.clamp(-1.0f, 1.0f) / 4.0f;
  Tensor low = kiln::clamp(x, 0.5f, std::nullopt);
  Tensor high = kiln::clamp(y, std::nullopt, 0.25);
  Tensor crossed = kiln::clamp(y, 1.0f, -1.0f);
  return both + low * 2.0f + high - crossed * 3.0f;
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  // Multiples of 0.25 from -2: every bound is hit exactly; one NaN.
  Tensor x = (kiln::arange(4 * n).to(kiln::kFloat32) * 0.25f - 2.0f).reshape({4, n});
  Tensor y = kiln::where(kiln::arange(4 * n).reshape({4, n}) == 3,
                         std::numeric_limits<float>::quiet_NaN(), x.flip({1}));
  x.requires_grad_();
  y.requires_grad_();
  Tensor out = squash(x, y);
  print("out", out);
  (out * kiln::arange(4 * n).reshape({4, n}).to(kiln::kFloat32)).sum().backward();
  print("x.grad", x.grad());
  print("y.grad", y.grad());
  return 0;
}
