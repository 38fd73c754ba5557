// Repro 12 (shared/repros): slices of a tensor whose other dims are static
// (from a reshape with constants) keep those dims; the graph runs compiled
// with the eager result, at sizes the source never names.
//
// RUN: %matches_eager %s %t 5
//
// Any slice of a tensor that has static dims (here from a reshape with
// constants) does not verify: "'kiln.slice' op dim 1 changes from
// [?, 4, 16] to [?, ?, ?]". Same with h.slice(-1, 8, 16),
// h.slice(2, 8, h.size(2)). (llama_v2: rotate_half after view({B, T, H, hd})
// with constexpr H, hd.)
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor second_half(const Tensor &x) {
  Tensor h = x.reshape({x.size(0), 4, 16}); // [?, 4, 16]
  Tensor upper = h.slice(2, 8, 16);
  Tensor last = h.slice(-1, 8, 16);
  Tensor rest = h.slice(2, 8, h.size(2));
  return kiln::sum(upper, {1, 2}) + kiln::sum(last, {1, 2}) * 2.0f + kiln::sum(rest, {1, 2});
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({n, 64}, 1);
  std::printf("%f\n", kiln::sum(second_half(x)).item<float>());
}
