// Tests the ops kiln composes of its own (dropout, batch_norm, group_norm,
// instance_norm, conv1d, bmm, addmm, baddbmm, stack, narrow, select, eye,
// one_hot), prod, argmax and argmin
// as model code calls them:
// free functions and methods, modules holding p, eps and running
// statistics, indices known only at run time. Each graph compiles and
// matches eager at sizes the source never names; a run-time index out of
// range fails the graph call, so the statements rerun eagerly and raise
// eager's error (the ERR runs: compiled and eager print the same).
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 2
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 6 -5
// RUN: %t/ref 3 7 | FileCheck %s --check-prefix=ERR
// RUN: %t/cpu 3 7 | FileCheck %s --check-prefix=ERR
// ERR: select: index 7 is out of range for dim 0 of size 3
// RUN: %t/ref 3 1 mask | FileCheck %s --check-prefix=MASK
// RUN: %t/cpu 3 1 mask | FileCheck %s --check-prefix=MASK
// MASK: masked_fill: a mask of shape [2, 3, 5] does not broadcast to the tensor's shape [3, 5]
// RUN: %t/ref 3 1 batch | FileCheck %s --check-prefix=BATCH
// RUN: %t/cpu 3 1 batch | FileCheck %s --check-prefix=BATCH
// BATCH: error: bmm: batch sizes differ: [1, 3, 4] and [3, 4, 2]
// RUN: %t/ref 3 1 bias | FileCheck %s --check-prefix=BIAS
// RUN: %t/cpu 3 1 bias | FileCheck %s --check-prefix=BIAS
// BIAS: error: addmm: shapes [7] and [4, 4] cannot be broadcast: dim -1 has sizes 7 and 4
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct Dropout {
  double p = 0.1;
  Tensor operator()(const Tensor &x) const { return kiln::dropout(x, p); }
};

struct BatchNorm2d {
  Tensor running_mean, running_var, weight, bias;
  double eps = 1e-5;
  Tensor operator()(const Tensor &x) const {
    return kiln::batch_norm(x, running_mean, running_var, weight, bias, false,
                            0.1, eps);
  }
};

struct ConvBlock {
  BatchNorm2d bn;
  Dropout drop;
  // CHECK-LABEL: ConvBlock::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: batch_norm(%0, %1, %2, _, _, _) {eps = 1.000000e-05}
  // CHECK: batch_norm(%0, %1, %2, %4, %5, %6) {eps = 0.000000e+00}
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor plain = kiln::batch_norm(x, bn.running_mean, bn.running_var);
    return kiln::relu(drop(bn(x))) + plain * 0.5f + kiln::dropout(x, 0.0);
  }
};

// CHECK-LABEL: products (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor products(const Tensor &a, const Tensor &b, const Tensor &c,
                const Tensor &bias) {
  Tensor p = kiln::bmm(a, b) + a.bmm(b) * 0.5f;
  Tensor q = kiln::baddbmm(p, a, b, 0.5, 2.0) + p.baddbmm(a, b);
  Tensor m = kiln::addmm(bias, c, c.transpose(0, 1)) +
             bias.addmm(c, c.transpose(0, 1), 0, 3);
  return q.sum() + m.sum();
}

// CHECK-LABEL: pieces (
// CHECK-NOT: Graph breaks
// CHECK: one_hot(
// CHECK: eye({{.*}}) {dtype = i64}
KILN_COMPILE() Tensor pieces(const Tensor &x, const Tensor &ids, int64_t i) {
  Tensor s = kiln::stack({x, x * 2.0f, -x}, 1).sum({1});
  Tensor n = x.narrow(-1, 1, 2) + kiln::narrow(x, 1, -3, 2);
  Tensor picked = kiln::select(x, 0, i) + x.select(-1, -1).sum() +
                  kiln::stack({x.select(1, 0), x.select(1, 4)}, -1).sum();
  Tensor hot = kiln::one_hot(ids, 7).to(kiln::kFloat32) +
               kiln::eye(7).sum({0}) + kiln::eye(x.size(0), 7, kiln::kInt64)
                                           .to(kiln::kFloat32)
                                           .sum({0});
  Tensor products = x.prod({1}).sum() + kiln::prod(ids, {-1}, true).sum();
  // A greedy sampler's picks, and the flattened index.
  Tensor picks = x.argmax(-1).to(kiln::kFloat32).sum() +
                 kiln::argmin(x, 0, true).to(kiln::kFloat32).sum() +
                 kiln::argmax(x).to(kiln::kFloat32);
  return s.sum() + n.sum() + picked.sum() + hot.sum() + products + picks;
}

// A 1-d conv block (WaveNet/Whisper-style front end): conv1d, group_norm
// with a module's group count and eps, instance_norm, view_as.
struct AudioBlock {
  Tensor w1, b1, w2, gamma, beta;
  int64_t groups = 2;
  double eps = 1e-5;
  // CHECK-LABEL: AudioBlock::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = kiln::conv1d(x, w1, b1, 1, 1);
    h = kiln::silu(kiln::group_norm(h, groups, gamma, beta, eps));
    Tensor g = kiln::conv1d(h, w2, Tensor(), 2);
    Tensor n = kiln::instance_norm(g) + kiln::group_norm(g, 1) * 0.5f;
    return n.reshape({-1}).view_as(n) + kiln::instance_norm(g, gamma, beta);
  }
};

// masked_fill's mask must not make the result larger than the tensor.
// CHECK-LABEL: fill (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor fill(const Tensor &x, const Tensor &mask) {
  return kiln::masked_fill(x * 2.0f, mask, 0.5f);
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t i = argc > 2 ? std::atoll(argv[2]) : 1;
  const int64_t C = 4;
  ConvBlock block{{kiln::randn({C}, 1), kiln::randn({C}, 2).abs() + 0.5f,
                   kiln::randn({C}, 3), kiln::randn({C}, 4)},
                  {0.25}};
  Tensor x = kiln::randn({B, C, 3, 5}, 5);
  std::printf("block %.5f\n", kiln::sum(block.forward(x)).item<float>());

  std::string mode = argc > 3 ? argv[3] : "";
  // A batch of 1 that matmul would broadcast, or a bias longer than the
  // product's rows: eager raises, and so must the compiled call.
  Tensor a = kiln::randn({mode == "batch" ? 1 : B, 3, 4}, 6),
         b = kiln::randn({B, 4, 2}, 7), c = kiln::randn({B + 1, 5}, 8),
         bias = kiln::randn({mode == "bias" ? 2 * B + 1 : B + 1}, 9);
  try {
    std::printf("products %.5f\n",
                kiln::sum(products(a, b, c, bias)).item<float>());
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }

  AudioBlock audio{kiln::randn({4, C, 3}, 12) * 0.4f, kiln::randn({4}, 13),
                   kiln::randn({4, 4, 2}, 14) * 0.4f, kiln::randn({4}, 15),
                   kiln::randn({4}, 16)};
  std::cout << audio.forward(kiln::randn({B, C, 2 * B + 5}, 17)) << "\n";

  std::vector<int64_t> labels;
  for (int64_t k = 0; k < B * 2; ++k)
    labels.push_back(k % 7);
  Tensor ids = kiln::from_vector(labels, {B, 2});
  try {
    Tensor keep = mode == "mask" ? kiln::ones({2, B, 5}) > 0 : kiln::arange(5) > 2;
    Tensor f = fill(kiln::randn({B, 5}, 11), keep);
    std::printf("fill %.5f\n", kiln::sum(f).item<float>());
    Tensor y = pieces(kiln::randn({B, 5}, 10), ids, i);
    std::printf("pieces %.5f\n", kiln::sum(y).item<float>());
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
