// Tests (a differential tester's find) that a graph returning one value as
// two outputs (`t1 = t0;` before a loop left on the host) hands back
// tensors that share one buffer, as eager's do, and frees it once: the
// compiled program had freed it twice (a crash at the function's end). The
// loop's body reads both, typed float32 across the break: `-0.25f - a` of
// an int64 tensor is float32, which type evidence had read as int64 (every
// call of the body missed its guard).
//
// RUN: %matches_eager %s %t 4 3
// RUN: %matches_eager %s %t 7 1
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_COMPILE()
Tensor decay(const Tensor &a, int64_t steps) {
  Tensor t0 = -0.25f - a;
  Tensor t1 = t0;
  for (int64_t i = 0; i < steps; ++i) {
    t1 = t1 * 0.5f + t0.sin();
  }
  return t1.slice(1, 1, 100, 1).atan();
}

KILN_COMPILE()
Tensor shifted(const Tensor &a, int64_t steps) {
  Tensor t0 = a - 0.25f;
  Tensor t1 = t0;
  for (int64_t i = 0; i < steps; ++i)
    t1 = t1 * 0.5f + t0;
  return t1 + t0;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  int64_t steps = argc > 2 ? std::atoll(argv[2]) : 3;
  Tensor a = kiln::randint(-8, 9, {n, n + 1}, 1, kiln::kInt64);
  std::cout << decay(a, steps) << "\n";
  std::cout << shifted(a, steps) << "\n";
}
