// Tests lambdas that capture by copy what the graph computes, run compiled
// against eager: a copy made in an inlined helper keeps its value when the
// helper changes the variable afterwards; a lambda made before a graph
// break and called after it (the copied size becomes an output of the
// first graph and an input of the second); [=] and [&, n] captures.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3 5
// RUN: %matches_eager %s %t 6 2
// RUN: kiln compile %s -o %t.cpp
// RUN: FileCheck %s --check-prefix=CPP < %t.cpp
// CHECK-LABEL: in_helper (
// CHECK-NOT: Graph breaks
// CHECK-LABEL: across_break (
// CHECK: 1. kiln::graph_break()
// CHECK-NOT: 2.
// CHECK: outputs: n a
// CHECK: inputs: a (f32 tensor of rank 2) n (int64)
// CHECK-LABEL: defaults (
// CHECK-NOT: Graph breaks
// A lambda capturing one that copies a size, called after a break: the
// size is read there too (an output of the first graph).
// CHECK-LABEL: nested (
// CHECK: outputs: n a
// CHECK: inputs: a (f32 tensor of rank 2) n (int64)
// CHECK-LABEL: constants (
// CHECK: 1. kiln::graph_break()
// CHECK-NOT: 2.
// A copy of a list in a helper could change after it is made.
// CHECK-LABEL: list_copy (
// CHECK: a lambda capturing by copy 'parts', which the tracer cannot copy
// CPP: auto f = ([&n](const Tensor &t) { return t * n; });
// CPP: const int64_t k = 4;
// CPP-NEXT: auto g = [=](const Tensor &t) { return t * k; };
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

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

KILN_COMPILE() Tensor nested(const Tensor &x) {
  const int64_t n = x.size(0);
  auto scale = [n](const Tensor &t) { return t * n; };
  auto twice = [=](const Tensor &t) { return scale(scale(t)); };
  Tensor a = twice(x);
  kiln::graph_break();
  return twice(a);
}

KILN_COMPILE() Tensor constants(const Tensor &x) {
  const int64_t n = x.size(1);
  auto f = ([n](const Tensor &t) { return t * n; });
  const int64_t k = 4;
  auto g = [=](const Tensor &t) { return t * k; };
  Tensor a = f(x);
  kiln::graph_break();
  return g(a) + k;
}

Tensor stacked(const Tensor &x) {
  std::vector<Tensor> parts{x};
  auto first = [parts]() { return kiln::cat(parts, 0); };
  parts.push_back(x * 2);
  return first();
}

KILN_COMPILE() Tensor list_copy(const Tensor &x) { return kiln::exp(stacked(x)); }

int main(int argc, char **argv) {
  int64_t rows = std::atoll(argv[1]), cols = std::atoll(argv[2]);
  Tensor x = kiln::randn({rows, cols}, 1);
  std::printf("%.5f\n", kiln::sum(in_helper(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(across_break(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(defaults(x) * defaults(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(nested(x)).item<float>());
  std::printf("%.5f\n", kiln::sum(constants(x)).item<float>());
  Tensor s = list_copy(x);
  std::printf("%lld %.5f\n", (long long)s.size(0), kiln::sum(s).item<float>());
}
