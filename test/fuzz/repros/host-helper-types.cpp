// Tests (differential tester finds, seed 11) that a local which host code
// sets from what an earlier graph computed, `Tensor h = host_step(t);`
// with host_step a KILN_DISABLE() helper every root shares (so the source
// alone shows many types for its result), is typed from the earlier
// graph's traced types; and that the true division of integer tensors is
// float32 in the source's types as in torch, as is clamp of integers with a
// float bound (halves' h: the source reads host_step(s) at this call, s's
// x.cumsum(1) keeping its f16, as kiln::cumsum(x, 1) does); and that what an earlier graph leaves in a local only its
// declaration sets wins over the source's reading of the initializer (seed
// 2000: t0 below, read by the host loop's graphs). Each input had been open
// or wrongly typed, so every call of the later graph missed its guard.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3
// RUN: %matches_eager %s %t 6
// CHECK-LABEL: Graph kiln_quotient_1
// CHECK: inputs: h (f32 tensor of rank 2) q (f32 tensor of rank 1)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: h earlier graph q earlier graph
// CHECK-LABEL: Graph kiln_stacked_3
// CHECK: inputs: b (f32 tensor of rank 1) h (f32 tensor of rank 4)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: b call site h source
// CHECK-LABEL: Graph kiln_gated_5
// CHECK: inputs: h (f64 tensor of rank 2) d (f64 tensor of rank 2)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: h earlier graph d call site
// CHECK-LABEL: Graph kiln_halves_7
// CHECK: inputs: h (f16 tensor of rank 3) s (f16 tensor of rank 3)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: h source s earlier graph
// CHECK-LABEL: Graph kiln_clamped_9
// CHECK: inputs: t1 (f32 tensor of rank 3) t0 (f32 tensor of rank 3)
// CHECK-NEXT: outputs: t1
// CHECK-NEXT: types: t1 source t0 earlier graph
// CHECK-NOT: variant
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_DISABLE() static Tensor host_step(const Tensor &x) { return x * 2 + 1; }

KILN_COMPILE() Tensor quotient(const Tensor &a, const Tensor &c) {
  Tensor i = a.to(kiln::kInt64);
  Tensor q = i / (c.abs() + 1);
  Tensor p = kiln::pow(q.unsqueeze(0), 2.0f);
  Tensor h = host_step(p);
  return (-0.25f - h).expand({q.size(0), -1}) + q;
}

KILN_COMPILE() Tensor stacked(const Tensor &a, const Tensor &b) {
  Tensor s = (-a.round()).softmax(-1).clamp(-1.0f, 1.0f).unsqueeze(1);
  Tensor h = host_step(kiln::stack({s, s}, 0));
  return kiln::pow(b.abs() + 0.5f, kiln::rms_norm(h, b).tanh());
}

KILN_COMPILE() Tensor gated(const Tensor &a, const Tensor &b, const Tensor &d) {
  Tensor g = d * a.minimum(b).sigmoid();
  Tensor h = host_step(g);
  return (h.matmul(d).abs() + 1.0f).sqrt();
}

KILN_COMPILE() Tensor halves(const Tensor &a, const Tensor &b) {
  Tensor s = ((a.to(kiln::kFloat16).abs() + 1.0f).sqrt().cumsum(1).unsqueeze(2) /
              (b.abs() + 1))
                 .contiguous();
  Tensor h = host_step(s);
  return h.tanh().prod({-3}, false) + s.sum({0});
}

KILN_COMPILE() Tensor clamped(const Tensor &a, int64_t steps) {
  Tensor t0 = a.clamp(std::nullopt, 1.5);
  Tensor t1 = t0;
  for (int64_t i = 0; i < steps; ++i) {
    t1 = t1 * 0.5f + t0.tanh();
  }
  return t1.squeeze(0) - -0.25f;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor a = kiln::randn({n}, 1), c = kiln::randint(-4, 5, {n}, 2);
  std::cout << quotient(a, c) << "\n";
  Tensor m = kiln::randn({n, n + 1}, 3), w = kiln::randn({n + 1}, 4);
  std::cout << stacked(m, w) << "\n";
  Tensor x = kiln::randn({n, n}, 5, kiln::kFloat64);
  Tensor y = kiln::randn({n, n}, 6, kiln::kFloat64);
  Tensor d = kiln::randn({n, n}, 7, kiln::kFloat64);
  std::cout << gated(x, y, d) << "\n";
  Tensor u = kiln::randn({n, n + 2}, 8);
  Tensor v = kiln::randn({n + 2, 1}, 9).to(kiln::kFloat16);
  std::cout << halves(u, v) << "\n";
  Tensor k = kiln::randint(-8, 9, {1, n + 1, n}, 10, kiln::kInt32);
  std::cout << clamped(k, n) << "\n";
  return 0;
}
