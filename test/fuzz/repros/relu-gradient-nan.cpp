// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 56, root 66) that relu's gradient is torch's threshold_backward, eager
// and compiled: 0 where the result is at most 0 even when the incoming
// gradient is NaN (a std of one element with correction 1 is NaN, and so
// is its gradient), and the gradient where the input is NaN. Eager used to
// multiply by the mask (NaN * 0 = NaN) while the compiled backward chose
// 0; the compiled rule chose 0 at a NaN input where torch passes the
// gradient. Built with --autograd, at sizes the source does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 1
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using kiln::Tensor;

KILN_COMPILE()
Tensor spread(const Tensor &a) {
  return kiln::std(kiln::relu(a), {-1}, 1, true).abs();
}

KILN_COMPILE()
Tensor scaled(const Tensor &a, const Tensor &w) { return kiln::relu(a) * w; }

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  // Rows of n values, some at or below 0: with n = 1 each row's std is
  // NaN, and so is the gradient reaching relu.
  Tensor a = (kiln::arange(2 * n).to(kiln::kFloat64) - 1.5).reshape({2, n});
  a.requires_grad_();
  Tensor y = spread(a);
  print("y", y);
  y.sum().backward();
  print("a.grad", a.grad());
  // A NaN input: relu passes NaN, and its gradient passes the incoming one.
  Tensor b = kiln::full({n}, -1.0);
  b.detach().narrow(0, 0, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  b.requires_grad_();
  Tensor w = kiln::full({n}, 3.0);
  Tensor z = scaled(b, w);
  print("z", z);
  z.sum().backward();
  print("b.grad", b.grad());
}
