// Tests that a tensor input used (through views) as where's condition is
// typed bool by that use, as the runtime requires, when nothing else shows
// its element type: here a library entry point whose tensors come out of a
// container of a float and a bool tensor (the container's elements show
// their rank, 2, but not which is which). The call runs compiled, with the
// eager result.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: inputs: mask (i1 tensor of rank 2) scores (f32 tensor of rank 2)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: mask call site scores open
// CHECK-NOT: variant
// RUN: %matches_eager %s %t
#include <kiln/kiln.h>
#include <cstdio>
#include <vector>
using kiln::Tensor;

KILN_COMPILE() Tensor masked(const Tensor &scores, const Tensor &mask) {
  return kiln::where(mask, scores, -1e9f).softmax(-1) + kiln::where(mask.unsqueeze(0), scores, 0.5f);
}

int main() {
  std::vector<Tensor> in = {kiln::randn({3, 4}, 1), kiln::randn({3, 4}, 2) > 0.0f};
  Tensor y = masked(in[0], in[1]);
  std::printf("%f %f\n", kiln::sum(y).item<float>(), kiln::sum(y * y).item<float>());
}
