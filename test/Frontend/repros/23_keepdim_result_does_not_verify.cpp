// Repro 23 (shared/repros): a keepdim reduction's static size-1 dim,
// returned and sliced; compiled equals eager.
//
// RUN: %matches_eager %s %t 6 5
//
// Compile failure on a valid program: a keepdim reduction gives a static
// size-1 dim; returned, the graph does not verify; sliced, kiln.slice fails.
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &x) { return kiln::sum(x, -1, true); }
KILN_COMPILE() Tensor g(const Tensor &x) {
  Tensor s = kiln::softmax(x, 1);
  return kiln::sum(s, 1, true).slice(0, 0, x.size(0), 2) * 2.0f;
}
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3, m = argc > 2 ? std::atoll(argv[2]) : 4;
  Tensor a = f(kiln::randn({n, m}, 1)), b = g(kiln::randn({n, m}, 2));
  std::printf("%lld %f\n", (long long)a.size(1), kiln::sum(a).item<float>());
  std::printf("%lld %lld %f\n", (long long)b.size(0), (long long)b.size(1), kiln::sum(b).item<float>());
}
