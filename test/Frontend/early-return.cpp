// Tests early returns on host values, in a root and in an inlined callee:
// `if (c) return a;` followed by more statements is an if whose else-arm is
// the rest, both paths traced and the returned value chosen by c (nested
// ones included); Tensor::flatten; and squeeze() without a dim, a break. Every path runs compiled, at shapes
// main picks, and prints what the eager build prints.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t

#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

// CHECK-LABEL: skip_at_zero (
// CHECK-NOT: Graph breaks
// CHECK: outputs: return
// CHECK: select(
KILN_COMPILE() Tensor skip_at_zero(const Tensor &x, int64_t t) {
  Tensor h = kiln::relu(x);
  if (t == 0)
    return h;
  Tensor y = h * static_cast<float>(t);
  return y + x;
}

// CHECK-LABEL: three_ways (
// CHECK-NOT: Graph breaks
// CHECK: select(
// CHECK: select(
KILN_COMPILE() Tensor three_ways(const Tensor &x, int mode) {
  if (mode == 0) {
    Tensor e = kiln::exp(x);
    return e;
  }
  if (mode == 1)
    return kiln::tanh(x) * 2.0f;
  return x.sum({-1}, true) + x;
}

Tensor activation(const Tensor &x, bool smooth) {
  if (smooth)
    return kiln::gelu(x);
  return kiln::relu(x);
}

// CHECK-LABEL: inlined_early_return (
// CHECK-NOT: Graph breaks
// CHECK: gelu
// CHECK: relu
// CHECK: select(
KILN_COMPILE() Tensor inlined_early_return(const Tensor &x, bool smooth) {
  return activation(x, smooth) + 1.0f;
}

// A return inside an unrolled loop ends the function in that iteration:
// the rest of the loop and what follows it never run (in an inlined callee
// and in a root's early-return arm alike).
Tensor first_steps(const Tensor &x) {
  Tensor h = x;
  for (int i = 0; i < 3; ++i) {
    h = h + 1.0f;
    if (i == 1)
      return h;
  }
  return h * 100.0f;
}

// CHECK-LABEL: loop_return (
// CHECK-NOT: Graph breaks
// CHECK: select(
KILN_COMPILE() Tensor loop_return(const Tensor &x, bool skip) {
  if (skip)
    return x;
  Tensor h = x * 2.0f;
  for (int i = 0; i < 3; ++i) {
    h = h + 1.0f;
    if (i == 0)
      return h + first_steps(x);
  }
  return h;
}

// A return on some paths only is still a break (a void function's early
// return has nothing to choose).
// CHECK-LABEL: scale_in_place (
// CHECK: Graph breaks:
// CHECK-NEXT: 1. a return without a value
KILN_COMPILE() void scale_in_place(Tensor &x, bool skip) {
  if (skip)
    return;
  x = x * 3.0f;
}

// CHECK-LABEL: flatten_all (
// CHECK-NOT: Graph breaks
// CHECK: flatten(%0) {end_dim = -1, start_dim = 1}
// CHECK: flatten(%0) {end_dim = -1, start_dim = 0}
// CHECK: flatten(%0) {end_dim = 1, start_dim = 0}
KILN_COMPILE() Tensor flatten_all(const Tensor &images) {
  Tensor rows = images.flatten(1);       // [N, C*H*W]
  Tensor all = images.flatten();         // [N*C*H*W]
  Tensor batch = images.flatten(0, 1);   // [N*C, H, W]
  return rows.sum({1}) * 2.0f + all.sum() + batch.mean({0, 1, 2});
}

// squeeze() without a dim breaks: the rank depends on run-time sizes.
// CHECK-LABEL: squeeze_all (
// CHECK: 1. Tensor::squeeze() without a dim (the result's rank depends on which sizes are 1 at run time; name the dim)
KILN_COMPILE() Tensor squeeze_all(const Tensor &x) { return x.squeeze() * 2.0f; }

int main() {
  Tensor x = kiln::randn({3, 5}, 1);
  for (int64_t t : {0, 1, 4})
    std::printf("skip_at_zero(%lld) %.6f\n", static_cast<long long>(t),
                kiln::sum(skip_at_zero(x, t) * x).item<float>());
  for (int mode : {0, 1, 2})
    std::printf("three_ways(%d) %.6f\n", mode, kiln::sum(three_ways(x, mode) * x).item<float>());
  for (bool smooth : {false, true})
    std::printf("inlined(%d) %.6f\n", smooth ? 1 : 0,
                kiln::sum(inlined_early_return(x, smooth) * x).item<float>());
  for (bool skip : {false, true})
    std::printf("loop_return(%d) %.6f\n", skip ? 1 : 0,
                kiln::sum(loop_return(x, skip) * x).item<float>());
  for (bool skip : {false, true}) {
    Tensor y = x;
    scale_in_place(y, skip);
    std::printf("scale_in_place(%d) %.6f\n", skip ? 1 : 0, kiln::sum(y).item<float>());
  }
  Tensor images = kiln::randn({2, 3, 4, 5}, 2);
  Tensor f = flatten_all(images);
  Tensor w = kiln::arange(f.size(0)).to(kiln::kFloat32);
  std::printf("flatten %lld: %.6f %.6f\n", static_cast<long long>(f.size(0)),
              kiln::sum(f).item<float>(), kiln::sum(f * w).item<float>());
  std::printf("squeeze_all %.6f\n", kiln::sum(squeeze_all(x.unsqueeze(1))).item<float>());
  return 0;
}
