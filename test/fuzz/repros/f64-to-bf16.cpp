// Tests (a differential tester find) that a graph converting float64 to
// bfloat16 links and matches eager: LLVM lowers the conversion to a call
// of __truncdfbf2, which Debian 12's libgcc lacks (the stitched program
// failed to link); the runtime supplies it, rounding through float32 as
// eager's conversion does.
//
// RUN: %matches_eager %s %t 2
// RUN: %matches_eager %s %t 7
#include <kiln/kiln.h>

#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_COMPILE()
Tensor normed(const Tensor &a, const Tensor &b, const Tensor &c) {
  Tensor t = kiln::maximum(a, b).abs().log1p();
  Tensor n = kiln::layer_norm(t, c, Tensor());
  return n.slice(0, 0, n.size(0), 2).to(kiln::kBFloat16);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2;
  Tensor a = kiln::randn({n}, 1, kiln::kFloat64);
  Tensor b = kiln::randn({}, 2, kiln::kFloat64);
  Tensor c = kiln::randn({n}, 3, kiln::kFloat64);
  std::cout << normed(a, b, c).to(kiln::kFloat32) << "\n";
}
