// Tests that a call the tracer sees is an error in eager (a factory with a
// negative constant size, gelu with an approximation eager does not know)
// breaks the graph with its reason, instead of reaching kiln compile (a
// factory's -1 taken as a size to infer), and that the statement, left to
// eager, raises eager's own error; the rest of the root still compiles.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: %t.cpu > %t.cpu.txt
// RUN: diff %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

// CHECK-LABEL: padded (
// CHECK: kiln::zeros with a negative size (an error in eager)
// CHECK-NEXT: at {{.*}}eager-errors.cpp:[[@LINE+3]]
KILN_COMPILE() Tensor padded(const Tensor &x, bool wrong) {
  Tensor y = x * 2.0f;
  Tensor z = wrong ? kiln::zeros({-1, 4}) : kiln::zeros({2, 4});
  return y + z;
}

// A size known only at run time is checked there, as eager checks it.
// CHECK-LABEL: noisy (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor noisy(const Tensor &x, int64_t n) {
  return x + kiln::randn({n, 4}, 7) + kiln::zeros({n, 4});
}

// CHECK-LABEL: activated (
// CHECK: kiln::gelu with approximation "erf" (an error in eager)
// CHECK-NEXT: at {{.*}}eager-errors.cpp:[[@LINE+3]]
KILN_COMPILE() Tensor activated(const Tensor &x, bool wrong) {
  Tensor y = x * 2.0f;
  Tensor z = wrong ? kiln::gelu(y, "erf") : kiln::gelu(y, "tanh");
  return z + y;
}

// A stride passed as {} is 0 (the int64_t overload), an empty Shape is no
// stride at all: both eager's errors, not the default stride.
// CHECK-LABEL: strided (
// CHECK: kiln::conv2d with stride below 1
// CHECK-NEXT: at {{.*}}eager-errors.cpp:[[@LINE+6]]
// CHECK: kiln::conv_transpose2d with no stride (an error in eager)
// CHECK-NEXT: at {{.*}}eager-errors.cpp:[[@LINE+6]]
KILN_COMPILE() Tensor strided(const Tensor &x, const Tensor &w, int which) {
  Tensor y = x * 2.0f;
  if (which == 0)
    return kiln::conv2d(y, w, Tensor(), {});
  if (which == 1)
    return kiln::conv_transpose2d(y, w, Tensor(), kiln::Shape{});
  return kiln::conv_transpose2d(y, w, Tensor(), 1);
}

int main() {
  Tensor x = kiln::ones({2, 4});
  // OUT: sum 16
  std::printf("sum %g\n", kiln::sum(padded(x, false)).item<float>());
  try {
    padded(x, true);
    std::printf("no error\n");
  } catch (const kiln::Error &e) {
    // OUT: error: tensor: negative size in shape [-1, 4]
    std::printf("error: %s\n", e.what());
  }
  std::printf("noisy %g\n", kiln::sum(noisy(x, 2)).item<float>());
  try {
    noisy(x, -2);
    std::printf("no error\n");
  } catch (const kiln::Error &e) {
    // OUT: error: tensor: negative size in shape [-2, 4]
    std::printf("error: %s\n", e.what());
  }
  std::printf("activated %g\n", kiln::sum(activated(x, false)).item<float>());
  try {
    activated(x, true);
    std::printf("no error\n");
  } catch (const kiln::Error &e) {
    // OUT: error: gelu: approximate must be "none" or "tanh", got "erf"
    std::printf("error: %s\n", e.what());
  }
  Tensor image = kiln::ones({1, 2, 3, 3}), w = kiln::ones({2, 2, 1, 1});
  // OUT: strided 72
  std::printf("strided %g\n", kiln::sum(strided(image, w, 2)).item<float>());
  for (int which : {0, 1})
    try {
      strided(image, w, which);
      std::printf("no error\n");
    } catch (const kiln::Error &e) {
      // OUT: error: conv2d: stride must be at least 1, got [0]
      // OUT: error: conv_transpose2d: stride takes one value or two ({h, w}), got []
      std::printf("error: %s\n", e.what());
    }
}
