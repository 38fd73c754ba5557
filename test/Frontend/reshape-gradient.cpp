// Tests the gradient of a reshape that keeps the rank (group-norm style:
// [N, C, S] viewed as [N, G, C / G * S]) at sizes the source does not name.
// Its type stays tensor<?x?x?xf32>, and the reshape's gradient rule took
// an unchanged type for unchanged sizes: the compiled backward returned
// the gradient of the view ([N, G, C / G * S]) as the input's. Built with
// --autograd, against the uncompiled build.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 4 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 6 1
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// Each group's elements centred on their mean, back to x's shape.
KILN_COMPILE()
Tensor centred(const Tensor &x, int64_t groups) {
  Tensor rows = x.reshape({x.size(0), groups, -1});
  Tensor c = rows - rows.mean({-1}, true);
  return (c * c).reshape({x.size(0), x.size(1), -1}) * x;
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t c = argc > 1 ? std::atoll(argv[1]) : 4;
  int64_t s = argc > 2 ? std::atoll(argv[2]) : 3;
  Tensor x = (kiln::arange(2 * c * s).to(kiln::kFloat32) * 0.25 - 1.0)
                 .sin()
                 .reshape({2, c, s});
  x.requires_grad_();
  Tensor y = centred(x, 2);
  print("y", y);
  (y * kiln::arange(y.numel()).to(kiln::kFloat32).reshape(y.shape())).sum()
      .backward();
  print("x.grad", x.grad());
  std::printf("x.grad shape: %lld %lld %lld\n",
              static_cast<long long>(x.grad().size(0)),
              static_cast<long long>(x.grad().size(1)),
              static_cast<long long>(x.grad().size(2)));
}
