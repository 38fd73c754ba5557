// Repro 04 (shared/repros): graph outputs with dims known at compile time
// (a reshape to 64 columns, zeros with a literal size) are results of
// their static type; the graphs run compiled with the eager results.
//
// RUN: %matches_eager %s %t 6
//
// Any graph whose output has a dimension known at compile time fails to
// compile: "type of return operand 0 ('tensor<?x64xf32>') doesn't match
// function result type ('tensor<?x?xf32>')". kiln explain shows one graph
// and no break. Same for kiln::zeros({x.size(0), 64}), kiln::zeros({2, 3}),
// relu(x).reshape({x.size(0), 8, 8}).
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor rows_of_64(const Tensor &x) {
  return x.reshape({-1, 64});
}
KILN_COMPILE() Tensor padded(const Tensor &x) {
  return kiln::zeros({x.size(0), 64}) + kiln::sum(kiln::zeros({2, 3})) + x.reshape({x.size(0), 64});
}
KILN_COMPILE() Tensor grid(const Tensor &x) { return kiln::relu(x).reshape({x.size(0), 8, 8}); }

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor x = kiln::randn({n, 64}, 1);
  std::printf("%f\n", kiln::sum(rows_of_64(x)).item<float>());
  std::printf("%f\n", kiln::sum(padded(x)).item<float>());
  Tensor g = grid(x);
  std::printf("%lld %lld %f\n", (long long)g.size(1), (long long)g.size(2), kiln::sum(g).item<float>());
}
