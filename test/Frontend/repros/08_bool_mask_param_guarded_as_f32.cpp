// Repro 08 (shared/repros): the mask the caller passes is a comparison: bool.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: inputs: pad (i1 tensor of rank 2) scores (f32 tensor of rank 2)
//
// A bool mask parameter used as where()'s condition is guarded as "f32
// tensor of rank 2" (where requires bool; the caller passes a comparison),
// so the guard fails on every call (KILN_LOGS=guards: "failed on input 0
// (dtype)") and the graph never runs compiled.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor masked_softmax(const Tensor &scores, const Tensor &pad) {
  return kiln::softmax(kiln::where(pad, -1e9, scores), -1);
}

int main() {
  Tensor scores = kiln::randn({4, 5}, 1);
  Tensor pad = kiln::randn({4, 5}, 2) > 0.5;
  Tensor y = masked_softmax(scores, pad);
  std::printf("%f\n", kiln::sum(y * kiln::arange(5)).item<float>());
}
