// Repro 27 (shared/repros): a lambda that captures a size by copy is traced
// like the function it is: no graph break, one graph per module.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// RUN: kiln compile %s -o %t.cpp
// RUN: FileCheck %s --check-prefix=CPP < %t.cpp
// CHECK: Kiln produced 1 graph, with 0 graph breaks
// CPP: auto chan = [&C](const Tensor &t)
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;
struct BatchNorm2d {
  Tensor running_mean, running_var, gamma, beta;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    const int64_t C = running_mean.size(0);
    auto chan = [C](const Tensor &t) { return t.reshape({1, C, 1, 1}); };
    return (x - chan(running_mean)) * kiln::rsqrt(chan(running_var) + 1e-5) * chan(gamma) + chan(beta);
  }
};
int main() {
  BatchNorm2d bn{kiln::randn({4}, 1), kiln::ones({4}), kiln::ones({4}), kiln::zeros({4})};
  Tensor y = bn.forward(kiln::randn({2, 4, 3, 3}, 2));
  std::printf("%.4f\n", kiln::sum(y).item<float>());
  // Other channel counts and sizes than the source shows.
  BatchNorm2d bn7{kiln::randn({7}, 3), kiln::rand({7}, 4) + 0.5, kiln::randn({7}, 5), kiln::randn({7}, 6)};
  y = bn7.forward(kiln::randn({3, 7, 5, 2}, 7));
  std::printf("%.4f\n", kiln::sum(y * y).item<float>());
}
