// Repro 21 (shared/repros): a static size-1 dim (unsqueeze(0)) reaches the
// graph's result, whose type keeps it; compiled equals eager.
//
// RUN: %matches_eager %s %t 5 3
//
// Compile failure on a valid program: a static size-1 dim (unsqueeze(0))
// reaches the graph's result, whose declared type is fully dynamic.
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &a) { return a.unsqueeze(0) * 2.0f; }
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3, m = argc > 2 ? std::atoll(argv[2]) : 2;
  Tensor r = f(kiln::randn({n, m}, 1));
  std::printf("%lld %lld %f\n", (long long)r.size(0), (long long)r.size(1), kiln::sum(r).item<float>());
}
