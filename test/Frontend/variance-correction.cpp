// Tests var and std (one kiln op each, kiln.var and kiln.std) with their
// correction known at compile time and only at run time (a module's member,
// a parameter): compiled as the eager build computes them, at sizes the
// source never names, with every dims and keepdim form.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 5 0
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 2 2
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

struct Spread {
  int64_t correction = 0;
  // CHECK-LABEL: Spread::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: var(%{{[0-9]+}}) {correction = 1, dims = [1]}
  // CHECK: std(%{{[0-9]+}}, %{{[0-9]+}}) {{{.*}}dims = [0], keepdim}
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::var(x, {1}).unsqueeze(1) +
           kiln::std(x, {0}, correction, true);
  }
};

// CHECK-LABEL: spread (
// CHECK-NOT: Graph breaks
// CHECK: var(%{{[0-9]+}}, %{{[0-9]+}}) {{{.*}}dims = []}
// CHECK: std(%{{[0-9]+}}) {correction = 0, dims = [-1, -2], keepdim}
KILN_COMPILE() Tensor spread(const Tensor &x, int64_t c) {
  return kiln::var(x, {}, c) + kiln::std(x, {-1, -2}, 0, true).sum();
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  int64_t c = argc > 2 ? std::atoll(argv[2]) : 1;
  Tensor x = kiln::randn({n, 7}, 3) * 3.0f + 1.0f;
  Spread s;
  s.correction = c;
  std::cout << s.forward(x) << "\n";
  std::cout << spread(x, c) << "\n";
  std::cout << spread(x.to(kiln::kFloat64), c + 1) << "\n";
}
