// Repro 19 (shared/repros): a slice of a tensor with a static unit dim
// (from unsqueeze) keeps that dim; compiled equals eager.
//
// RUN: %matches_eager %s %t 7
//
// Compile failure on a valid program: slice of a tensor with a static unit
// dim (from unsqueeze) fails the kiln.slice verifier.
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &a) {
  Tensor t = a.unsqueeze(-1);
  return t.slice(0, 0, t.size(0) - 1) * 2.0f;
}
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor r = f(kiln::randn({n}, 1));
  std::printf("%lld %lld %f\n", (long long)r.size(0), (long long)r.size(1), kiln::sum(r).item<float>());
}
