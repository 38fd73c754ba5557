// Tests cumsum, cumprod, topk and scatter_add as model code calls them:
// free functions and methods, a top-k sampler's (values, indices) read
// with a structured binding, k held in a module, a scatter of token
// counts, integer inputs (cumsum of a bool mask gives int64). Each graph
// compiles and matches eager element by element at sizes the source never
// names; a k beyond the dim fails the graph call, so the statements rerun
// eagerly and raise eager's error (the ERR runs). The eager backend spells
// each op as the runtime does.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 5 3
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 9 6
// RUN: %t/ref 4 9 | FileCheck %s --check-prefix=ERR
// RUN: %t/cpu 4 9 | FileCheck %s --check-prefix=ERR
// ERR: topk: k = 9 is out of range for dim 1 of size 8
// RUN: kiln compile %s -o %t/eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t/eager.cpp -o %t/eager %kiln_link
// RUN: %t/eager 5 3 > %t/eager.txt
// RUN: %t/ref 5 3 > %t/ref.txt
// RUN: diff %t/ref.txt %t/eager.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

// Positions from a padding mask, as position ids are built:
// cumsum(mask) * mask - 1; and a running product of decay factors.
// CHECK-LABEL: positions (
// CHECK-NOT: Graph breaks
// CHECK: cumsum(
KILN_COMPILE()
Tensor positions(const Tensor &mask, const Tensor &decay) {
  Tensor ids = mask.cumsum(1) * mask - 1;
  Tensor running = kiln::cumprod(decay, -1) + decay.cumsum(0, kiln::kFloat64)
                                                  .to(kiln::kFloat32);
  return ids.to(kiln::kFloat32).sum({1}, true) + running;
}

// Top-k filtering of logits: everything below the k-th largest is -inf.
struct TopKFilter {
  int64_t k;
  // CHECK-LABEL: TopKFilter::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: topk(
  KILN_COMPILE() Tensor forward(const Tensor &logits) const {
    auto [values, indices] = kiln::topk(logits, k, -1);
    Tensor kth = values.narrow(-1, k - 1, 1);
    Tensor kept = kiln::where(logits < kth, logits * 0.0f - 1e9f, logits);
    return kept + indices.to(kiln::kFloat32).sum({-1}, true) * 1e-3f;
  }
};

// The smallest entries of each column, and their rows.
// CHECK-LABEL: smallest (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor smallest(const Tensor &x) {
  auto picked = x.topk(2, 0, false);
  return std::get<0>(picked) * 100.0f +
         std::get<1>(picked).to(kiln::kFloat32);
}

// Token counts and a scatter of rows (an embedding's gradient).
// CHECK-LABEL: scattered (
// CHECK-NOT: Graph breaks
// CHECK: scatter_add(
KILN_COMPILE()
Tensor scattered(const Tensor &table, const Tensor &ids, const Tensor &rows) {
  Tensor counts = kiln::zeros({table.size(0)}, kiln::kInt64)
                      .scatter_add(0, ids, kiln::ones_like(ids));
  Tensor index = ids.unsqueeze(1).expand({ids.size(0), table.size(1)});
  Tensor grad = kiln::scatter_add(table * 0.0f, 0, index, rows);
  return grad + counts.to(kiln::kFloat32).unsqueeze(1);
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 5;
  int64_t k = argc > 2 ? std::atoll(argv[2]) : 3;
  const int64_t V = 8;
  Tensor mask = kiln::randn({B, V}, 1) > 0.0f;
  std::cout << positions(mask.to(kiln::kInt64), kiln::rand({B, V}, 2))
            << "\n";
  std::cout << smallest(kiln::randn({B, V}, 3)) << "\n";
  Tensor ids = kiln::randint(0, V, {B + 3}, 4);
  std::cout << scattered(kiln::randn({V, 3}, 5), ids,
                         kiln::randn({B + 3, 3}, 6))
            << "\n";
  try {
    std::cout << TopKFilter{k}.forward(kiln::randn({4, V}, 7)) << "\n";
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
