// Tests lambdas that capture by copy what the graph computes, run compiled
// against eager: a copy made in an inlined helper keeps its value when the
// helper changes the variable afterwards; a lambda made before a graph
// break and called after it (the copied size becomes an output of the
// first graph and an input of the second); [=] and [&, n] captures.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3 5
// RUN: %matches_eager %s %t 6 2
// CHECK-LABEL: in_helper (
// CHECK-NOT: Graph breaks
// CHECK-LABEL: across_break (
// CHECK: 1. kiln::graph_break()
// CHECK-NOT: 2.
// CHECK: outputs: n a
// CHECK: inputs: a (f32 tensor of rank 2) n (int64)
// CHECK-LABEL: defaults (
// CHECK-NOT: Graph breaks
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

Tensor helper(const Tensor &x) {
  Tensor y = x * 2;
  auto add_y = [y](const Tensor &t) { return t + y; };
  y = y * 10; // the lambda keeps its copy
  return add_y(x) + y;
}

KILN_COMPILE() Tensor in_helper(const Tensor &x) { return kiln::relu(helper(x)); }

KILN_COMPILE() Tensor across_break(const Tensor &x) {
  const int64_t n = x.size(0);
  auto scale = [n](const Tensor &t) { return t * n; };
  Tensor a = scale(x);
  kiln::graph_break();
  return scale(a) + 1;
}

KILN_COMPILE() Tensor defaults(const Tensor &x) {
  Tensor m = x.mean({-1}, true);
  const int64_t n = x.size(-1);
  auto center = [=](const Tensor &t) { return (t - m) * n; };
  auto shift = [&, n](const Tensor &t) { return t + n; };
  return shift(center(x));
}

int main(int argc, char **argv) {
  int64_t rows = std::atoll(argv[1]), cols = std::atoll(argv[2]);
  Tensor x = kiln::randn({rows, cols}, 1);
  std::printf("%.5f\n", kiln::sum(in_helper(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(across_break(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(defaults(x) * defaults(x)).item<float>());
}
