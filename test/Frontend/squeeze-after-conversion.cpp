// Tests a graph where typing drops a conversion that the types make a
// no-op (the bool condition of a where) and then turns a squeeze of a dim
// of static size other than 1 into a copy: the copy is the graph's result,
// never the squeezed tensor's buffer, and compiled code matches eager.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 6
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>

using kiln::Tensor;

// CHECK-LABEL: picked (
// CHECK-NOT: Graph breaks
// CHECK: squeeze(
KILN_COMPILE()
Tensor picked(const Tensor &mask, const Tensor &a, const Tensor &b) {
  Tensor y = kiln::where(mask, a, b);
  return (y.reshape({4, -1}).squeeze(0) * 2).unsqueeze(0);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor a = kiln::randn({4, n}, 1), b = kiln::randn({4, n}, 2);
  Tensor mask = a > b;
  std::cout << picked(mask, a, b) << "\n";
}
