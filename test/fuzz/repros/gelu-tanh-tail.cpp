// Tests (differential tester find, seed 5000) that gelu's tanh form is
// computed without the cancellation in 1 + tanh(u): at x = -3.875 the
// result is 1.3e-4 of x and tanh's last bit a thousandth of it, and the
// eager (libm's tanh) and compiled (a polynomial) results of an rms_norm
// of it, which divides the size out, differed by 1.5e-3. Both now compute
// x sigmoid(2u), within float32 rounding of the exact value. The CHECKs
// are the exact values (mpmath, 30 digits) to the 6 digits printed.
//
// RUN: %matches_eager %s %t
// RUN: FileCheck %s < %t/cpu.txt
// CHECK: -0.000125788
// CHECK-NEXT: -7.02459e-05
// CHECK-NEXT: -2.2918e-07
// CHECK-NEXT: 1.53353
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

KILN_COMPILE() Tensor tail(const Tensor &a) { return kiln::gelu(a, "tanh"); }

KILN_COMPILE() Tensor normed(const Tensor &a, const Tensor &w) {
  return kiln::rms_norm(kiln::gelu(a, "tanh") * a, w);
}

int main() {
  Tensor a = kiln::from_vector<float>({-3.875f, -4.0f, -5.0f}, {3});
  Tensor g = tail(a);
  for (int i = 0; i < 3; ++i)
    std::printf("%g\n", g.select(0, i).item<float>());
  Tensor n = normed(a.narrow(0, 0, 1).unsqueeze(1), kiln::full({1}, 3.5));
  std::printf("%g\n", n.sum().item<float>());
  return 0;
}
