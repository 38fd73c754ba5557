// Tests std::vector<Tensor> locals: declared empty, with a braced list or
// as a copy of another, filled by push_back and emplace_back in unrolled
// loops, read by kiln::cat, by index (a constant, an unrolled
// loop's counter), back() and by range-for (unrolled over what the graph
// pushed). A vector that code outside the graph reads (here printf of its
// size) stays on the host: its declaration is the break. Every graph runs
// compiled with the eager results, at sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// CHECK-LABEL: stack_steps (
// CHECK-NOT: Graph breaks
// CHECK: cat
// CHECK-LABEL: heads (
// CHECK-NOT: Graph breaks
// CHECK: Graph kiln_heads_1
// CHECK-LABEL: initial_values (
// CHECK-NOT: Graph breaks
// CHECK: cat
// CHECK-LABEL: escapes (
// CHECK: 1. a std::vector<Tensor> that code outside the graph reads
// CHECK-NEXT: at {{.*}}tensor-lists.cpp:[[@LINE+37]]:23
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
using kiln::Tensor;

KILN_COMPILE() Tensor stack_steps(const Tensor &x) {
  std::vector<Tensor> parts;
  for (int i = 0; i < 3; ++i)
    parts.push_back(x * static_cast<float>(i));
  return kiln::cat(parts, 0);
}

// Heads computed in a loop, then summed by range-for and read by index.
KILN_COMPILE() Tensor heads(const Tensor &x, const Tensor &w) {
  std::vector<Tensor> outs;
  outs.reserve(4);
  for (int h = 0; h < 4; ++h)
    outs.emplace_back(kiln::matmul(x, w) * static_cast<float>(h + 1));
  Tensor total = outs[0] * 0.0f;
  for (const Tensor &o : outs)
    total = total + o;
  return kiln::cat(outs, -1).sum({-1}, true) + total.sum({-1}, true) + outs.back() - outs[1];
}

// Lists with initial values: braces, then a copy that grows apart.
KILN_COMPILE() Tensor initial_values(const Tensor &x, const Tensor &w) {
  std::vector<Tensor> parts = {x, kiln::relu(x)};
  std::vector<Tensor> more{kiln::matmul(x, w)};
  std::vector<Tensor> copy = parts;
  copy.push_back(more[0] * 2.0f);
  return kiln::cat(copy, 1).sum({1}, true) + kiln::cat(parts, 1).mean({1}, true) * 3.0f;
}

// A list code outside the graph reads stays on the host.
KILN_COMPILE() Tensor escapes(const Tensor &x) {
  std::vector<Tensor> parts;
  parts.push_back(kiln::relu(x));
  parts.push_back(kiln::exp(x));
  std::printf("parts %zu\n", parts.size());
  return kiln::cat(parts, 1);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({n, 4}, 1), w = kiln::randn({4, 4}, 2);
  std::printf("%f\n", kiln::sum(stack_steps(x)).item<float>());
  std::printf("%f\n", kiln::sum(heads(x, w)).item<float>());
  std::printf("%f\n", kiln::sum(initial_values(x, w) * x).item<float>());
  std::printf("%f\n", kiln::sum(escapes(x)).item<float>());
}
