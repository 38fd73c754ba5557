// Tests (differential tester finds, seed 8000, roots 2367, 5020 and 9963)
// that variables a loop over an empty std::vector carries are compiled for
// the types they hold on entry to the loop, which is what the code after
// the loop finds when the vector is empty:
// - `carried`: nothing in the source shows t3's rank (amax keeps a dim) or
//   the layers' weights' ranks, so what the loop leaves in t4 (and t6, its
//   copy) is any rank; the rank 3 the graph before the loop left is tried
//   first, for t4 and t6 together. Versions varied one input at a time
//   from the guess (rank 2) and never tried (rank 3, rank 3).
// - `promoted`: t3 is host code's copy of a float64 value after a break;
//   its float64 was not tried at all, since the copy is assigned again in
//   the loop.
// Each call ran eagerly in full.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5 4
// RUN: %matches_eager %s %t 2 7
// CHECK-LABEL: Graph kiln_carried_2
// CHECK: variant kiln_carried_2_t0 for t6 f32[?,?], t4 f32[?,?]
// CHECK: variant kiln_carried_2_t1 for t6 f32[?,?,?], t4 f32[?,?,?]
// CHECK-LABEL: Graph kiln_promoted_5
// CHECK: variant kiln_promoted_5_t1 for t3 f64[?,?]
// CHECK-LABEL: Graph kiln_promoted_6
// CHECK: variant kiln_promoted_6_t1 for t3 f64[?,?]
// CHECK-LABEL: Graph kiln_promoted_7
// CHECK: variant kiln_promoted_7_t1 for t0 f64[?,?], t4 f64[?,?], t1 f64[?,?]
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct Layer {
  Tensor w;
  Tensor operator()(const Tensor &x) const { return (x * w).tanh() + x; }
};

KILN_COMPILE()
Tensor carried(const Tensor &a, bool flag, const std::vector<Layer> &layers,
               int64_t steps) {
  Tensor t1 = a.expm1() / (a.abs() + 1);
  Tensor t3 = t1.amax({0}, true) + 3;
  Tensor t4 = t3;
  for (const Layer &layer : layers)
    t4 = layer(t4);
  Tensor t6 = t4;
  for (int64_t i = 0; i < steps; ++i)
    t6 = t6 * 0.5f + t4.tanh();
  Tensor t7 = t6 * 2.0f;
  if (flag)
    t7 = t6.tanh() + t7;
  return t7;
}

KILN_COMPILE()
Tensor promoted(const Tensor &a, const Tensor &b, const Tensor &c,
                const std::vector<Tensor> &ws, Tensor &out) {
  Tensor t0 = kiln::minimum(b, a);
  Tensor t1 = t0 / (c.abs() + 1);
  kiln::graph_break();
  Tensor t3 = t1;
  for (const Tensor &w : ws)
    t3 = t3 * 0.5f + w;
  Tensor t4 = t3.cumsum(0);
  kiln::graph_break();
  Tensor t6 = kiln::pow(t0.abs() + 0.5f, t4.tanh());
  out = t1;
  return t6 * 2.0f;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 5;
  int64_t m = argc > 2 ? std::atoll(argv[2]) : 4;
  std::vector<Layer> layers;
  std::cout << carried(kiln::randn({1, n, m}, 1), true, layers, 3) << "\n";
  std::cout << carried(kiln::randn({2, m, n}, 2), false, layers, 0) << "\n";
  std::vector<Tensor> ws;
  Tensor out;
  std::cout << promoted(kiln::randn({m, 2}, 3),
                        kiln::randn({m, 2}, 4, kiln::kFloat64),
                        kiln::randn({2}, 5, kiln::kFloat64), ws, out)
            << "\n";
  std::cout << out << "\n";
  return 0;
}
