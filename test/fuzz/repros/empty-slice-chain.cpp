// Tests (a differential tester's find, seed 1129) that a graph whose last
// ops compute a tensor with a dim of static size 0 compiles and matches
// eager: slicing dim 1 from 1 of a keepdim reduction's size-1 result leaves
// [N, 0], and kiln compile had crashed tiling that chain by rows (SCF's
// tile sizes of a size-0 dim). The same graph at other sizes, too.
//
// RUN: %matches_eager %s %t 4
// RUN: %matches_eager %s %t 7
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <tuple>

using kiln::Tensor;

KILN_COMPILE()
Tensor ranks(const Tensor &a) {
  Tensor best = a.argmax(-2, true);
  Tensor low = std::get<0>(best.topk(1, 1, false));
  Tensor rows = low.sum({-1}, false);
  Tensor rest = rows.slice(1, 1, rows.size(1), 1);
  return rest + rest;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor a = kiln::randint(-8, 9, {n, n, n}, 7, kiln::kInt64);
  Tensor r = ranks(a);
  std::printf("shape %lld %lld\n", static_cast<long long>(r.size(0)),
              static_cast<long long>(r.size(1)));
  Tensor full = ranks(kiln::randint(-8, 9, {n, n + 2, n}, 8, kiln::kInt64));
  std::printf("numel %lld\n", static_cast<long long>(full.numel()));
}
