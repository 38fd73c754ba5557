// Repro 01 (shared/repros): targets made by from_vector<int64_t> reach
// cross_entropy through reshape; the input is typed i64 from the call site.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: inputs: logits (f32 tensor of rank 3) targets (i64 tensor of rank 2)
//
// kiln compile fails: targets reach cross_entropy through reshape, and the
// graph input is typed f32 ("cross_entropy needs integer targets").
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor lm_loss(const Tensor &logits, const Tensor &targets) {
  return kiln::cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
}

int main() {
  Tensor logits = kiln::randn({2, 3, 5}, 1);
  Tensor targets = kiln::from_vector<int64_t>({0, 1, 2, 3, 4, 0}, {2, 3});
  std::printf("%f\n", lm_loss(logits, targets).item<float>());
}
