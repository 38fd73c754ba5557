// Tests differential tester finds (seeds 7 and 11) in code that ports
// PyTorch modules: the elements of a std::vector<Tensor> are typed from
// what the vector is built of (braced items, push_back, the argument a
// parameter receives), so a range-for over float64 weights runs compiled;
// a module struct used with two dtypes in one file has its weight tried in
// its activations' dtype; conv2d and conv1d take unbatched inputs, as in
// eager; embedding ids with a static unit dim, scatter_add into a tensor
// with one, and slices that are empty (a start at the end of a dim of size
// 1, then sliced again) compile. Each had run eagerly or failed to compile.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 3
// RUN: %matches_eager %s %t 5
// CHECK-LABEL: Graph kiln_residuals_1
// CHECK: inputs: t (f64 tensor of rank 2) w (f64 tensor of rank 1)
// CHECK-NEXT: outputs: t
// CHECK-NEXT: types: t source w source
// CHECK-LABEL: Graph kiln_pushed_4
// CHECK: inputs: t (f64 tensor of rank 2) w (f64 tensor of rank 2)
// CHECK-LABEL: Graph kiln_stack_of_6
// CHECK: variant kiln_stack_of_6_t0 for t f32[?,?], layer.w f32[?]
// CHECK-NEXT: variant kiln_stack_of_6_t1 for t f64[?,?], layer.w f64[?]
// CHECK-LABEL: Graph kiln_image_7
// CHECK: inputs: x (f32 tensor of rank 3) w (f32 tensor of rank 4) k (f32 tensor of rank 3)
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct Layer {
  Tensor w;
  Tensor operator()(const Tensor &x) const { return (x * w).tanh() + x; }
};

KILN_COMPILE() Tensor residuals(const Tensor &a, const std::vector<Tensor> &ws) {
  Tensor t = a * 2;
  for (const Tensor &w : ws)
    t = t * 0.5f + w;
  return t.sum({0});
}

KILN_COMPILE() Tensor pushed(const Tensor &a, const std::vector<Tensor> &ws) {
  Tensor t = a.abs();
  for (const Tensor &w : ws)
    t = t - w;
  return t;
}

KILN_COMPILE() Tensor stack_of(const Tensor &a, const std::vector<Layer> &layers) {
  Tensor t = a.softmax(-1);
  for (const Layer &layer : layers)
    t = layer(t);
  return t;
}

KILN_COMPILE() Tensor image(const Tensor &x, const Tensor &w, const Tensor &k,
                            const Tensor &s) {
  Tensor y = kiln::conv2d(x, w, Tensor(), 1, 1);         // [C, H, W]
  Tensor z = kiln::conv1d(y.flatten(1), k, Tensor(), 1, 1); // [C, L]
  return z.relu() + kiln::max_pool2d(x, 3, 1, 1).sum();
}

KILN_COMPILE() Tensor picked(const Tensor &c, const Tensor &table) {
  Tensor ids = c.unsqueeze(0).argmax(-1); // [1, n]: a static unit dim
  Tensor rows = kiln::embedding(ids, table);
  Tensor m = c.amax({0}, true);             // [1, n]
  Tensor added = m.scatter_add(0, m.argmax(0, true), m);
  return rows.sum({0}) + added.sum();
}

KILN_COMPILE() Tensor emptied(const Tensor &b) {
  Tensor t = kiln::logsumexp(b, {0}, true); // [1]
  Tensor e = t.slice(0, 1, t.size(0), 1);   // [0]
  Tensor f = e.slice(0, 0, e.size(0), 2);   // [0]
  return f.sum() + t;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor a = kiln::randn({n, n + 1}, 1, kiln::kFloat64);
  std::vector<Tensor> ws{kiln::randn({n + 1}, 2, kiln::kFloat64),
                         kiln::randn({n + 1}, 3, kiln::kFloat64)};
  std::cout << residuals(a, ws) << "\n";
  std::vector<Tensor> more;
  for (int i = 0; i < 3; ++i)
    more.push_back(kiln::randn({n, n + 1}, 10 + i, kiln::kFloat64));
  std::cout << pushed(a, more) << "\n";
  std::vector<Layer> f32{{kiln::randn({n}, 4)}, {kiln::randn({n}, 5)}};
  std::vector<Layer> f64{{kiln::randn({n + 1}, 6, kiln::kFloat64)}};
  std::cout << stack_of(kiln::randn({2, n}, 7), f32) << "\n";
  std::cout << stack_of(a, f64) << "\n";
  Tensor x = kiln::randn({2, n, n + 1}, 8), w = kiln::randn({3, 2, 3, 3}, 9);
  std::cout << image(x, w, kiln::randn({2, 3, 3}, 10), x) << "\n";
  std::cout << picked(kiln::randn({n, n}, 11), kiln::randn({n, 2}, 12)) << "\n";
  std::cout << emptied(kiln::randn({n}, 13)) << "\n";
  return 0;
}
