// Repro 26 (shared/repros): an optional conv2d projection left undefined
// (off) must not be read by the graph call. The stitched call passed the
// projection's absent bias as a bias of -0.0s made from weight.size(0),
// which throws "size: undefined tensor" when the whole projection is off;
// kiln::abi::absentBias now makes the stand-in only when the weight is there.
//
// RUN: %matches_eager %s %t
// RUN: kiln compile %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// CHECK: ::kiln::abi::absentBias(this->projection.bias, this->projection.weight)
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;
struct Conv2d {
  Tensor weight, bias;
  int64_t stride = 1, padding = 0;
  Tensor forward(const Tensor &x) const { return kiln::conv2d(x, weight, bias, stride, padding); }
};
struct Block {
  Conv2d conv;
  bool has_projection = false;
  Conv2d projection; // undefined when has_projection is false
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor out = kiln::relu(conv.forward(x));
    Tensor identity = has_projection ? projection.forward(x) : x;
    return out + identity;
  }
};
int main() {
  // Off, then on with an absent bias, then on with one: each as eager.
  Block off{Conv2d{kiln::randn({4, 4, 3, 3}, 1), Tensor(), 1, 1}};
  Tensor y = off.forward(kiln::randn({2, 4, 8, 8}, 2));
  std::printf("%.4f\n", kiln::sum(y).item<float>());
  Block on{Conv2d{kiln::randn({4, 4, 3, 3}, 3), Tensor(), 1, 1}, true,
           Conv2d{kiln::randn({4, 4, 1, 1}, 4), Tensor(), 1, 0}};
  y = on.forward(kiln::randn({3, 4, 5, 7}, 5));
  std::printf("%.4f\n", kiln::sum(y).item<float>());
  on.projection.bias = kiln::randn({4}, 6);
  y = on.forward(kiln::randn({1, 4, 6, 6}, 7));
  std::printf("%.4f\n", kiln::sum(y).item<float>());
}
