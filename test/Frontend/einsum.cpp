// Tests kiln::einsum as model code calls it: attention written with the
// contractions models use ("bhqd,bhkd->bhqk" and back), a projection with
// a shared batch label, an outer product, per-row dot products, a label
// summed out of one operand, a permutation of one operand, torch's
// implicit output and broadcast batch dims ('...', resolved once the
// operands' ranks are known). Each graph compiles (kiln.einsum: sums,
// permutes and one batched matmul) and matches eager at sizes the source never names; contracted
// sizes that differ at run time fail the graph's check and rerun eagerly,
// raising eager's error (the ERR runs: compiled and eager print the same).
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 2 5
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 1 9
// RUN: %t/ref 2 5 bad | FileCheck %s --check-prefix=ERR
// RUN: %t/cpu 2 5 bad | FileCheck %s --check-prefix=ERR
// ERR: error: einsum: a contracted subscript has size 4 in one operand and 5 in the other
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

// CHECK-LABEL: attention (
// CHECK-NOT: Graph breaks
// CHECK: einsum(%{{[0-9]+}}, %{{[0-9]+}}) {equation = "bhqd,bhkd->bhqk"}
KILN_COMPILE()
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v) {
  double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor scores = kiln::einsum("bhqd,bhkd->bhqk", {q, k}) * scale;
  Tensor p = kiln::softmax(scores, -1);
  return kiln::einsum("bhqk,bhkd->bhqd", {p, v});
}

// CHECK-LABEL: contractions (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor contractions(const Tensor &x, const Tensor &w, const Tensor &u) {
  Tensor proj = kiln::einsum("btc, cd -> btd", {x, w});   // spaces allowed
  Tensor outer = kiln::einsum("i,j->ij", {u, u});
  Tensor dots = kiln::einsum("btc,btc->bt", {x, x});
  Tensor summed = kiln::einsum("btc,c->b", {x, u.narrow(0, 0, x.size(2))});
  Tensor swapped = kiln::einsum("btc->cbt", {x});
  Tensor implicit = kiln::einsum("ij,jk", {outer, outer});
  Tensor batched = kiln::einsum("...c,cd->...d", {x, w});
  Tensor pairs = kiln::einsum("...i,...i", {x, x.flip({0})});
  return kiln::sum(proj) + kiln::sum(outer * 0.5f) + kiln::sum(dots) +
         kiln::sum(summed) + kiln::sum(swapped * swapped) +
         kiln::sum(implicit) * 0.01f + kiln::sum(batched * proj) +
         kiln::sum(pairs);
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t T = argc > 2 ? std::atoll(argv[2]) : 5;
  const int64_t H = 2, D = 4;
  try {
    Tensor q = kiln::randn({B, H, T, D}, 1), k = kiln::randn({B, H, T + 1, D}, 2);
    Tensor v = kiln::randn({B, H, T + 1, D}, 3);
    if (argc > 3)
      k = kiln::randn({B, H, T + 1, D + 1}, 2);
    std::cout << attention(q, k, v) << "\n";
    Tensor x = kiln::randn({B, T, 3}, 4), w = kiln::randn({3, 6}, 5),
           u = kiln::randn({T + 2}, 6);
    std::printf("contractions %.4f\n", contractions(x, w, u).item<float>());
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
