// Tests that a graph whose input host code computes through a chain of
// host calls from an earlier graph's value takes that value's type: t5 is
// host_step(host_step(t3)), t3 a bf16 vector the first graph leaves, so
// the second graph is compiled for bf16 of rank 1 (it was typed as the
// f32 guess's versions only, and every call fell back to eager; found by
// the differential tester, seed 57 root 86). The same helper called again
// inside its own argument (`host_step(host_step(t))`) is typed at each
// call. A local read through std::get of a tuple is not typed by reading
// the library's body (that made a loop's carried value bool: seed 60 root
// 43).
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// RUN: %matches_eager %s %t 9
// CHECK-LABEL: chained (
// CHECK: Graph kiln_chained_1
// CHECK-NEXT: inputs: t5 (bf16 tensor of rank 1)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: t5 earlier graph
// CHECK-NOT: variant
// CHECK-LABEL: nested (
// CHECK: Graph kiln_nested_2
// CHECK-NEXT: inputs: t (f64 tensor of rank 2)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: t source
// CHECK-LABEL: loopAfterTuple (
// CHECK: inputs: t3 (f32 tensor of rank 2) w (f32 tensor of rank 2)
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

using kiln::Tensor;

KILN_DISABLE() static Tensor host_step(const Tensor &x) { return x * 2 + 1; }

KILN_COMPILE()
Tensor chained(const Tensor &a, const Tensor &b) {
  Tensor t0 = kiln::matmul(a, b);
  Tensor t3 = t0.tanh();
  Tensor t4 = host_step(t3);
  Tensor t5 = host_step(t4);
  return (t5 * 2.0f).atan();
}

KILN_COMPILE()
Tensor nested(const Tensor &x) {
  Tensor t = host_step(host_step(x.exp()));
  return (t - 7.0).tanh() * 0.5;
}

KILN_COMPILE()
Tensor loopAfterTuple(const Tensor &a, const std::vector<Tensor> &ws) {
  Tensor t2 = std::get<0>(kiln::topk(a.tanh(), 1, 1, false));
  Tensor t3 = t2;
  for (const Tensor &w : ws)
    t3 = t3 * 0.5f + w;
  return t3;
}

static void print(const char *name, const Tensor &t) {
  std::printf("%s %s [", name, kiln::dtypeName(t.dtype()));
  Tensor f = t.to(kiln::kFloat32).contiguous();
  for (int64_t i = 0; i < f.numel(); ++i)
    std::printf(" %.4f", f.data<float>()[i]);
  std::printf(" ]\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoi(argv[1]) : 4;
  Tensor a = (kiln::randn({n, n}, 1) * 0.25).to(kiln::kBFloat16);
  Tensor b = (kiln::randn({n}, 2) * 0.25).to(kiln::kBFloat16);
  print("chained", chained(a, b));
  print("nested", nested(kiln::randn({2, n}, 3, kiln::kFloat64) * 0.1));
  std::vector<Tensor> ws = {kiln::randn({3, 1}, 4), kiln::randn({3, 1}, 5)};
  print("loop", loopAfterTuple(kiln::randn({3, n}, 6), ws));
}
