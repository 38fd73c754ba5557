// Repro 03 (shared/repros): squeeze(0) of a slice whose dim 0 is 1 only at
// run time. The graph squeezes a dynamic dim under a shape check; it runs
// compiled with the eager result, at sizes the source never names.
//
// RUN: %matches_eager %s %t 5 3
//
// kiln explain shows one graph and no break, but kiln compile fails:
// squeeze(0) of a slice whose dim 0 has size 1 at run time does not verify
// ("dim 0 of 'tensor<?x?x?xf32>' is not a static size-1 dim").
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor step(const Tensor &xs, int64_t t) {
  return xs.slice(0, t, t + 1).squeeze(0);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4, m = argc > 2 ? std::atoll(argv[2]) : 2;
  Tensor xs = kiln::randn({n, m, 3}, 1);
  Tensor s = step(xs, 1);
  std::printf("%lld %f\n", (long long)s.dim(), kiln::sum(s).item<float>());
}
