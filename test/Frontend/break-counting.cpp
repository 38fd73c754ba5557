// Tests the counting rules of docs/frontend.md, as torch counts: a break is
// counted once, where it is caused. A graph_break() in a compile root
// called from another is the callee's; the caller lists the call that
// stays on the host (a consequence). A break in an if arm or an unrolled
// loop body is traced twice (speculatively, then as host code) and counted
// once. A root with no tensor work has no graph and no break, even under
// error_on_graph_break (torch's test_error_on_graph_break_empty_graph), and
// returning a host scalar computed from sizes is no break either.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln explain %s --json | FileCheck %s --check-prefix=JSON
// RUN: %matches_eager %s %t 5

#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// CHECK: Kiln produced 8 graphs, with 4 graph breaks and {{[0-9]+}} ops.

// CHECK-LABEL: inner (
// CHECK: Graph breaks:
// CHECK-NEXT: 1. kiln::graph_break()
// CHECK-NOT: {{^ +}}2. 
KILN_COMPILE() Tensor inner(const Tensor &x) {
  Tensor y = x * 2.0f;
  kiln::graph_break();
  return y + 1.0f;
}

// CHECK-LABEL: outer (
// CHECK-NOT: Graph breaks:
// CHECK: Calls left on the host because the callee breaks (counted there):
// CHECK-NEXT: - inner at {{.*}}break-counting.cpp:[[#@LINE+4]]:14
// CHECK-NEXT: (kiln::graph_break() at {{.*}}break-counting.cpp:29:3)
KILN_COMPILE() Tensor outer(const Tensor &x) {
  Tensor z = kiln::relu(x);
  Tensor w = inner(z);
  return w - 3.0f;
}

// CHECK-LABEL: verbose_if (
// CHECK: 1. call to 'printf'
// CHECK-NOT: {{^ +}}2. 
// CHECK: Graph
KILN_COMPILE() Tensor verbose_if(const Tensor &x, bool verbose) {
  Tensor y = kiln::exp(x);
  if (verbose)
    std::printf("verbose_if\n");
  return y * 0.5f;
}

// CHECK-LABEL: unrolled (
// CHECK: 1. call to 'printf'
// CHECK-NOT: {{^ +}}2. 
// CHECK: Graph
KILN_COMPILE() Tensor unrolled(const Tensor &x) {
  Tensor y = x;
  for (int i = 0; i < 2; ++i)
    std::printf("unrolled %d\n", i);
  return kiln::tanh(y);
}

// CHECK-LABEL: nothing (
// CHECK-NOT: Graph
// CHECK-LABEL: rows (
// CHECK-NOT: Graph
KILN_ERROR_ON_GRAPH_BREAK(true) KILN_COMPILE() int nothing() { return 1; }
KILN_ERROR_ON_GRAPH_BREAK(true) KILN_COMPILE() int64_t rows(const Tensor &x) {
  int64_t r = x.size(0) * 2;
  return r + x.dim();
}

// CHECK-LABEL: positives (
// CHECK: 1. Tensor::item()
// CHECK-NOT: {{^ +}}2. 
KILN_COMPILE() int64_t positives(const Tensor &x) {
  Tensor m = kiln::sum(x > 0.0f);
  return m.item<int64_t>();
}

// JSON: "graph_break_count": 4,
// JSON: "host_calls": [{{$}}
// JSON-NEXT: {
// JSON-NEXT: "callee": "inner",
// JSON-NEXT: "error": false,
// JSON: "reason": "kiln::graph_break()",
// JSON: "name": "outer"

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({n, n + 1}, 11);
  std::printf("outer %.6f\n", kiln::sum(outer(x)).item<float>());
  std::printf("verbose_if %.6f\n", kiln::sum(verbose_if(x, true)).item<float>());
  std::printf("quiet_if %.6f\n", kiln::sum(verbose_if(x, false)).item<float>());
  std::printf("unrolled %.6f\n", kiln::sum(unrolled(x)).item<float>());
  std::printf("nothing %d rows %lld positives %lld\n", nothing(), (long long)rows(x),
              (long long)positives(x));
}
