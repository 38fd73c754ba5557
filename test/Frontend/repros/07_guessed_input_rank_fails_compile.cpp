// Repro 07 (shared/repros): the caller's tensor comes from a function
// returning kiln::randn({batch, 3, 8}, 1): x is rank 3.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: inputs: x (f32 tensor of rank 3)
//
// kiln compile fails on a valid program when no caller shows the input
// rank and only a derived tensor is indexed: x is guessed rank 2, then
// "kiln::dim at ...: dim 2 is out of range for rank 2". (header_split:
// EncoderLayer::forward, x guessed rank 1, "dim 1 is out of range for rank 1".)
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor heads(const Tensor &x, const Tensor &w, const Tensor &b, int64_t n) {
  Tensor h = kiln::layer_norm(x, w, b);
  return h.reshape({h.size(0), h.size(1), n, h.size(2) / n});
}

Tensor load_batch(int64_t batch) { return kiln::randn({batch, 3, 8}, 1); }

int main() {
  Tensor x = load_batch(2);
  Tensor y = heads(x, kiln::ones({8}), kiln::zeros({8}), 2);
  std::printf("%f\n", kiln::sum(y).item<float>());
}
