// Tests ATen-style Tensor methods, as code ported from PyTorch writes them
// (x.mean({-1}, true), q.matmul(k), s.softmax(-1), x.exp(), ...): they run
// eagerly as kiln's free functions of the same name, and trace as those
// ops, with no break; every graph runs compiled with the eager results, at
// sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: Kiln produced 2 graphs, with 0 graph breaks
// CHECK: matmul
// CHECK: softmax
// RUN: %matches_eager %s %t 5 6
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor attention(const Tensor &q, const Tensor &k) {
  Tensor s = q.matmul(k.transpose(-2, -1)) * 0.125f;
  return s.softmax(-1);
}

KILN_COMPILE() Tensor features(const Tensor &x) {
  Tensor centered = x - x.mean({-1}, true);
  Tensor var = (centered * centered).mean({-1}, true);
  Tensor normed = centered * (var + 1e-5f).rsqrt();
  Tensor pos = x.relu().sqrt() + x.exp().log() + x.sigmoid().tanh();
  Tensor act = x.silu() + x.gelu("tanh") + x.gelu() + x.abs().amax({-1}, true);
  Tensor powers = x.pow(2) + x.abs().pow(x.sigmoid());
  return normed + pos + act + powers + x.log_softmax(1) + x.sum({1}, true) -
         x.amin() + x.maximum(x * 0.5f).minimum(x);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3, d = argc > 2 ? std::atoll(argv[2]) : 4;
  Tensor q = kiln::randn({2, n, d}, 1), k = kiln::randn({2, n, d}, 2);
  std::printf("attention %f\n", kiln::sum(attention(q, k)).item<float>());
  Tensor f = features(kiln::randn({n, d}, 3));
  std::printf("features %f %f\n", kiln::sum(f).item<float>(), f.abs().sum().item<float>());
}
