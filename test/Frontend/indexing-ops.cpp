// Tests gather and the ops written with it (index_select, flip, roll, max
// and min with indices, pad
// in its three modes) and repeat and tile (extra leading repeats, short
// tile repeats), as model code calls them: free
// functions and methods, indices that are graph inputs, modules holding
// their pads. Each graph compiles and matches eager, element by element
// (whole tensors are printed: a permutation that sums the same would
// still differ), at sizes the source never names. An index out of range
// fails the graph call, so the statements rerun eagerly and raise eager's
// error (the ERR runs print the same compiled and eager). The eager
// backend spells each op as the runtime does.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 1
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 6 2
// RUN: %t/ref 3 9 | FileCheck %s --check-prefix=ERR
// RUN: %t/cpu 3 9 | FileCheck %s --check-prefix=ERR
// ERR: index_select: index 9 is out of range for dim 0 of size 3
// RUN: kiln compile %s -o %t/eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t/eager.cpp -o %t/eager %kiln_link
// RUN: %t/eager 3 1 > %t/eager.txt
// RUN: %t/ref 3 1 > %t/ref.txt
// RUN: diff %t/ref.txt %t/eager.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

// The log-probability of each target: logp.gather(-1, targets[:, None]).
// CHECK-LABEL: picked_logprobs (
// CHECK-NOT: Graph breaks
// CHECK: gather(
KILN_COMPILE()
Tensor picked_logprobs(const Tensor &logits, const Tensor &targets) {
  Tensor logp = kiln::log_softmax(logits, -1);
  return logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
}

// CHECK-LABEL: rows_and_columns (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor rows_and_columns(const Tensor &x, const Tensor &rows) {
  Tensor picked = kiln::index_select(x, 0, rows);
  Tensor columns = x.index_select(-1, kiln::arange(2));
  Tensor along = kiln::gather(x, 0, kiln::zeros({1, 3}, kiln::kInt64));
  return picked.sum({-1}, true) + columns.sum() + along.sum();
}

// A greedy decoder's step: the best logit and its token, read from ATen's
// (values, indices) tuple with a structured binding and std::get.
// CHECK-LABEL: greedy (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor greedy(const Tensor &logits) {
  auto [best, token] = kiln::max(logits, -1);
  Tensor worst = std::get<0>(logits.min(0, true));
  auto picked = logits.max(1, true);
  return best + token.to(kiln::kFloat32) * 10.0f + worst.sum() +
         std::get<1>(picked).squeeze(1).to(kiln::kFloat32) + logits.max() -
         kiln::min(logits) + std::get<1>(kiln::min(logits, 1)).to(kiln::kFloat32);
}

// CHECK-LABEL: shifted (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor shifted(const Tensor &x) {
  Tensor mirrored = kiln::flip(x, {0, -1}) + x.flip(1);
  Tensor rolled = kiln::roll(x, {2, -1}, {0, 1}) + x.roll({7}, {-1});
  return mirrored * 10.0f + rolled;
}

// CHECK-LABEL: tiled (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor tiled(const Tensor &x, const Tensor &v) {
  Tensor a = x.repeat({2, 3}) + kiln::tile(x, {2, 3}) * 0.5f;
  // Extra leading repeats add dims; tile pads short repeats with 1s.
  Tensor c = x.repeat({2, 1, 2}).select(0, 1) - kiln::tile(x * 3.0f, {2});
  Tensor b = kiln::repeat(v, {4}).unsqueeze(0) + v.tile({1}).sum();
  return kiln::cat({a.flatten(), c.flatten(), b.flatten()}, 0);
}

struct ReflectPad2d {
  // CHECK-LABEL: ReflectPad2d::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::pad(x, {1, 2, 2, 1}, "reflect");
  }
};

// CHECK-LABEL: padded (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor padded(const Tensor &x, const Tensor &ids) {
  Tensor zeros = kiln::pad(x, {1, 1});
  Tensor filled = kiln::pad(x, {0, 2, 1, 0}, "constant", -1.5);
  Tensor cropped = kiln::pad(x, {-1, 3});
  Tensor edge = kiln::pad(x, {2, 0}, "replicate");
  Tensor intPad = kiln::pad(ids, {1, 1}, "constant", 7);
  return zeros.sum({0}) + filled.sum({0}).slice(0, 0, 1) + cropped.sum({0}) +
         edge.sum({0}).slice(0, 0, x.size(1) + 2) +
         intPad.to(kiln::kFloat32).sum();
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t pick = argc > 2 ? std::atoll(argv[2]) : 1;
  const int64_t V = 7;
  std::vector<int64_t> labels, rowIds;
  for (int64_t k = 0; k < B; ++k)
    labels.push_back((k * 3) % V);
  for (int64_t k = 0; k < 4; ++k)
    rowIds.push_back((k + pick) % B);
  rowIds.push_back(pick);
  Tensor targets = kiln::from_vector(labels, {B});
  Tensor rows = kiln::from_vector(rowIds, {5});
  Tensor x = kiln::randn({B, 5}, 1);
  std::cout << picked_logprobs(kiln::randn({B, V}, 2), targets) << "\n";
  std::cout << shifted(x) << "\n";
  std::cout << greedy(kiln::randn({B, V}, 6)) << "\n";
  std::cout << tiled(kiln::randn({B, 4}, 3), kiln::randn({B + 2}, 4)) << "\n";
  std::cout << ReflectPad2d().forward(kiln::randn({2, B, 5}, 5)) << "\n";
  std::cout << padded(x, targets.reshape({1, B})) << "\n";
  try {
    std::cout << rows_and_columns(x, pick >= B ? rows * 0 + pick : rows)
              << "\n";
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
