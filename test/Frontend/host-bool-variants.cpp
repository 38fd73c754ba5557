// Tests that a graph whose host bools choose between arms that read
// optional tensors is compiled once per value of the bools (at most two
// bools: four variants), that the variant the call's values choose runs
// compiled with the eager result for every value, and that the eager
// backend dispatches the same way.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 6
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %t.eager 6 > %t.eager.txt
// RUN: %compare %t/ref.txt %t.eager.txt
// CHECK-LABEL: Graph kiln_Block__forward_0
// CHECK: variant kiln_Block__forward_0_v0 when this->has_proj=false this->gated=false ({{[0-9]+}} ops), inputs: x this->w{{$}}
// CHECK: variant kiln_Block__forward_0_v1 when this->has_proj=true this->gated=false ({{[0-9]+}} ops), inputs: x this->proj this->w{{$}}
// CHECK: variant kiln_Block__forward_0_v2 when this->has_proj=false this->gated=true ({{[0-9]+}} ops), inputs: x this->w this->gate{{$}}
// CHECK: variant kiln_Block__forward_0_v3 when this->has_proj=true this->gated=true ({{[0-9]+}} ops), inputs: x this->proj this->w this->gate{{$}}
// CHECK-LABEL: Graph kiln_plain_{{[0-9]+}}
// CHECK-NOT: variant kiln
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

struct Block {
  Tensor w;
  bool has_proj = false;
  Tensor proj; // undefined unless has_proj
  bool gated = false;
  Tensor gate; // undefined unless gated

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor identity = x * 1.0f;
    if (has_proj)
      identity = kiln::matmul(x, proj);
    Tensor h = kiln::matmul(x, w);
    Tensor out = h + identity;
    if (!gated) {
    } else {
      out = h * kiln::sigmoid(gate) + identity;
    }
    return kiln::relu(out);
  }
};

// A flag that chooses between two computations on the same inputs needs
// no variants.
KILN_COMPILE() Tensor plain(const Tensor &x, bool square) {
  Tensor y = x;
  if (square)
    y = x * x;
  return y + 1.0f;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor x = kiln::randn({3, n}, 2);
  for (int flags = 0; flags < 4; ++flags) {
    Block b{kiln::randn({n, n}, 1), (flags & 1) != 0, Tensor(), (flags & 2) != 0,
            Tensor()};
    if (b.has_proj)
      b.proj = kiln::randn({n, n}, 3);
    if (b.gated)
      b.gate = kiln::randn({n}, 4);
    std::printf("flags=%d sum=%.6f\n", flags, kiln::sum(b.forward(x)).item<float>());
  }
  std::printf("plain %.6f %.6f\n", kiln::sum(plain(x, true)).item<float>(),
              kiln::sum(plain(x, false)).item<float>());
}
