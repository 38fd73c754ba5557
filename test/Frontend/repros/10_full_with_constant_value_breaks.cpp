// Repro 10 (shared/repros): kiln::full with a literal value is traced, and
// so is a value known only at run time (a member, a parameter), converted
// to the dtype as the runtime's full converts it. Every graph runs
// compiled with the eager result, with no break.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: Kiln produced 4 graphs, with 0 graph breaks
// RUN: %matches_eager %s %t 5
//
// kiln::full(shape, 3.0) with a literal value is a graph break: "kiln::full
// with a value that is not a constant" (also 3.0f, 3, and a symbolic shape).
// The docs list full among the traced ops. Here the root gets 0 graphs.
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor clip_high(const Tensor &x) {
  return kiln::minimum(x, kiln::full({1}, 3.0));
}

struct Clamp {
  double high = 0.75;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::minimum(x, kiln::full({x.size(0), 1}, high));
  }
};

KILN_COMPILE() Tensor counts(const Tensor &x, double step) {
  return x.to(kiln::kInt64) + kiln::full({x.size(1)}, step, kiln::kInt64);
}

KILN_COMPILE() Tensor mask(const Tensor &x, int64_t on) {
  return kiln::where(kiln::full({x.size(0), x.size(1)}, on, kiln::kBool), x, -x);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor x = kiln::randn({n, 3}, 1) * 4.0f;
  std::printf("%f\n", kiln::sum(clip_high(x)).item<float>());
  std::printf("%f\n", kiln::sum(Clamp{}.forward(x)).item<float>());
  std::printf("%lld\n", (long long)kiln::sum(counts(x, -2.7)).item<int64_t>());
  std::printf("%f %f\n", kiln::sum(mask(x, 0)).item<float>(), kiln::sum(mask(x, 3)).item<float>());
}
