// Repro 14 (shared/repros): one root per ordinary C++ construct. Traced
// now: operator() of a module, a struct return, a std::array element at
// an unrolled loop's index, ?: on a host bool, `Tensor h;` assigned in
// both arms, (void) of an unused size, a std::vector<Tensor> filled by
// push_back and concatenated, and a conv2d stride held in a member (an
// operand of the graph, read at run time). The program prints what its
// eager build prints and every graph runs compiled.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK-LABEL: call_op (
// CHECK-NOT: Graph breaks
// CHECK-LABEL: two_outputs (
// CHECK-NOT: Graph breaks
// CHECK: outputs: return.0 return.1
// CHECK-LABEL: array_elem (
// CHECK-NOT: Graph breaks
// CHECK: inputs: x (f32 tensor of rank 2) ns[0].w (f32 tensor of rank 1) ns[0].b (f32 tensor of rank 1) ns[1].w
// CHECK-LABEL: member_stride (
// CHECK-NOT: Graph breaks
// CHECK: inputs: x (f32 tensor of rank 4) c.w (f32 tensor of rank 4) c.stride (int64)
// CHECK: conv2d(%0, %1, _, %2, %2) {dilation = [1, 1], groups = 1, padding = [1, 1], strides = [?, ?]}
// CHECK-LABEL: ternary (
// CHECK-NOT: Graph breaks
// CHECK: select
// CHECK-LABEL: default_tensor (
// CHECK-NOT: Graph breaks
// CHECK: select
// CHECK-LABEL: void_cast (
// CHECK-NOT: Graph breaks
// CHECK-LABEL: stack_steps (
// CHECK-NOT: Graph breaks
// CHECK: cat
//
// Ordinary C++ in ported model code that kiln turns into graph breaks
// (each root below is one construct; all bodies are visible, non-virtual,
// and do tensor math only). kiln explain lists one break per root.
#include <kiln/kiln.h>
#include <array>
#include <cstdio>
#include <vector>
using kiln::Tensor;

struct Norm {
  Tensor w, b;
  Tensor operator()(const Tensor &x) const { return kiln::layer_norm(x, w, b); }
};
struct Pair {
  Tensor a, b;
};
struct Conv {
  Tensor w;
  int64_t stride = 1;
};

// 1. "a call through operator() of an object" (nn.Module.__call__ style)
KILN_COMPILE() Tensor call_op(const Norm &n, const Tensor &x) { return n(x) * 2.0f; }
// 2. "an expression the tracer does not model (InitListExpr)": returning a struct
KILN_COMPILE() Pair two_outputs(const Tensor &x) { return {kiln::relu(x), kiln::exp(x)}; }
// 3. "a method call on an object the stitched code cannot name": std::array element
KILN_COMPILE() Tensor array_elem(const std::array<Norm, 2> &ns, const Tensor &x) {
  Tensor h = x;
  for (int i = 0; i < 2; ++i)
    h = kiln::layer_norm(h, ns[i].w, ns[i].b);
  return h;
}
// 4. "kiln::conv2d with a stride that is not a constant": stride held in a struct
KILN_COMPILE() Tensor member_stride(const Conv &c, const Tensor &x) {
  return kiln::conv2d(x, c.w, Tensor(), c.stride, 1);
}
// 5. "a conditional expression": ?: on a host bool
KILN_COMPILE() Tensor ternary(const Tensor &x, bool use_relu) {
  Tensor h = use_relu ? kiln::relu(x) : kiln::tanh(x);
  return h * 2.0f;
}
// 6. "a construction the tracer does not model": a default-constructed Tensor
KILN_COMPILE() Tensor default_tensor(const Tensor &x, bool use_relu) {
  Tensor h;
  if (use_relu)
    h = kiln::relu(x);
  else
    h = kiln::tanh(x);
  return h * 2.0f;
}
// 7. "a cast to a type the tracer does not model": (void) on an unused size
KILN_COMPILE() Tensor void_cast(const Tensor &x) {
  const int64_t width = x.size(1);
  (void)width;
  return kiln::relu(x);
}
// 8. "a local of type 'std::vector<Tensor>'..." + push_back + cat of a vector
KILN_COMPILE() Tensor stack_steps(const Tensor &x) {
  std::vector<Tensor> parts;
  for (int i = 0; i < 3; ++i)
    parts.push_back(x * static_cast<float>(i));
  return kiln::cat(parts, 0);
}

int main() {
  Tensor x = kiln::randn({2, 4}, 1);
  Norm n{kiln::ones({4}), kiln::zeros({4})};
  std::array<Norm, 2> ns{n, n};
  Conv c{kiln::randn({2, 1, 3, 3}, 2), 2};
  float s = kiln::sum(call_op(n, x)).item<float>() + kiln::sum(two_outputs(x).b).item<float>() +
            kiln::sum(array_elem(ns, x)).item<float>() +
            kiln::sum(member_stride(c, kiln::randn({1, 1, 8, 8}, 3))).item<float>() +
            kiln::sum(ternary(x, true)).item<float>() + kiln::sum(default_tensor(x, false)).item<float>() +
            kiln::sum(void_cast(x)).item<float>() + kiln::sum(stack_steps(x)).item<float>();
  std::printf("%f\n", s);
}
