// Tests that ops eager refuses for a dtype are refused when compiling too,
// with eager's reason, rather than compiled to a result eager never gives:
// the activations torch defines on floating tensors only (softplus, mish,
// hardswish, hardsigmoid, silu, gelu, softmax) given an integer tensor, and
// rounding given a bool tensor. The eager build raises kiln::Error for each.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s
// CHECK-DAG: float-only-ops.cpp:[[@LINE+11]]:{{[0-9]+}}: error: kiln could not compile 'soft': kiln::softplus at {{.*}}float-only-ops.cpp:[[@LINE+12]]: not supported for dtype i64
// CHECK-DAG: error: kiln could not compile 'activations': kiln::mish at {{.*}}: not supported for dtype i64
// CHECK-DAG: error: kiln could not compile 'rounded': kiln::floor at {{.*}}: not supported for dtype i1
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.eager %kiln_link
// RUN: %t.eager | FileCheck %s --check-prefix=EAGER
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

KILN_COMPILE() Tensor soft(const Tensor &x) {
  return kiln::softplus(x * 2);
}
KILN_COMPILE() Tensor activations(const Tensor &x) {
  return kiln::mish(x) + x.hardswish();
}
KILN_COMPILE() Tensor rounded(const Tensor &x) { return kiln::floor(x > 1); }

int main() {
  Tensor ints = kiln::arange(4);
  // EAGER: softplus: not supported for dtype int64
  // EAGER: mish: not supported for dtype int64
  // EAGER: floor: not supported for dtype bool
  try {
    soft(ints);
  } catch (const kiln::Error &e) {
    std::printf("%s\n", e.what());
  }
  try {
    activations(ints);
  } catch (const kiln::Error &e) {
    std::printf("%s\n", e.what());
  }
  try {
    rounded(ints);
  } catch (const kiln::Error &e) {
    std::printf("%s\n", e.what());
  }
}
