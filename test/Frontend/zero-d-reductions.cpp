// Tests that reductions of a 0-d tensor over dim -1 or 0 (which torch
// counts as the one dim a 0-d tensor has) run compiled with the eager
// results, at sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: with 0 graph breaks
// RUN: %matches_eager %s %t 5
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor total(const Tensor &x) {
  Tensor s = x.sum();
  return s.sum({-1}) + s.amax({0}, true) + s.mean({-1}, true) * 2.0f;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor t = total(kiln::randn({n, 3}, 1));
  std::printf("total %f (rank %lld)\n", t.item<float>(),
              static_cast<long long>(t.dim()));
}
