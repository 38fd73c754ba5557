// Repro 22 (shared/repros): a literal size in reshape gives the graph's
// result a static dim (tensor<?x5xf32>); compiled equals eager.
//
// RUN: %matches_eager %s %t 7
//
// Compile failure on a valid program: a literal size in reshape gives the
// graph a static dim (tensor<?x5xf32>) that the result type does not have.
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor rs(const Tensor &x) { return x.reshape({x.size(0) * 2, 5}) + 1.0f; }
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor r = rs(kiln::randn({n, 10}, 1));
  std::printf("%lld %f\n", (long long)r.size(1), kiln::sum(r).item<float>());
}
