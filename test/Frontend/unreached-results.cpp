// Tests the compiled backward of a graph some of whose results reach no
// loss, against eager autograd, which never runs the formulas of the ops
// only those results read and leaves undefined the gradients made of them
// alone. Here the forward holds inf (a masked_fill), and the product that
// only the out-parameter `side` reads has the gradient dside^T-times-inf
// for its other operand: the compiled backward, which gets zeros for
// side's gradient, gives zeros where side's did not arrive (the flag after
// the gradients), not the NaN that zeros times inf would make, and w's
// gradient (made of side's alone) is left undefined, as is the gradient of
// the eager op before the graph whose result only side reads (eager
// autograd runs no node that no gradient reached). When side reaches the
// loss too, all of them are defined and the same as eager's. On shapes the
// source never names.
//
// RUN: kiln compile %s --autograd -o %t.cpp
// RUN: FileCheck %s --check-prefix=STITCHED < %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 5 3 > %t.ref.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 5 3 > %t.cpu.txt 2> %t.cpu.err
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
// RUN: %t.ref 2 7 > %t.ref2.txt
// RUN: %t.cpu 2 7 > %t.cpu2.txt
// RUN: %python %S/Inputs/compare.py %t.ref2.txt %t.cpu2.txt
// The same pair as printed runtime calls (--backend=aot_eager).
// RUN: kiln compile %s --backend=aot_eager -o %t.aot.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.aot.cpp %t.aot.o -o %t.aot %kiln_link
// RUN: %t.aot 5 3 > %t.aot.txt
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.aot.txt
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// Of x's inputs a and w, w's gradient is made of side's only.
// STITCHED: .gradientSources({{[{][{]}}0, 1}, {1}})
KILN_COMPILE()
Tensor scores(const Tensor &a, const Tensor &w, Tensor &side) {
  Tensor capped = a.masked_fill(a > 1.0f, -INFINITY);
  side = kiln::matmul(-1 - capped, w);
  return (a * 2).tanh();
}

static void print(const char *name, const Tensor &t) {
  if (!t.defined()) {
    std::printf("%s undefined\n", name);
    return;
  }
  Tensor c = t.contiguous();
  std::printf("%s", name);
  for (int64_t i = 0; i < c.numel(); ++i)
    std::printf(" %.6g", c.data<float>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 5;
  int64_t cols = argc > 2 ? std::atoll(argv[2]) : 3;
  Tensor a = kiln::randn({rows, cols}, 1) * 2;
  Tensor v = kiln::randn({cols, 2}, 2);
  Tensor scale = kiln::full({1}, INFINITY);
  a.requires_grad_();
  v.requires_grad_();
  scale.requires_grad_();
  for (bool sideToo : {false, true}) {
    a.mutable_grad() = Tensor();
    v.mutable_grad() = Tensor();
    scale.mutable_grad() = Tensor();
    // An eager op before the graph, read by side's product only.
    Tensor w = v * scale.clamp(-1, 1);
    Tensor side;
    Tensor y = scores(a, w, side);
    Tensor loss = y.square().sum();
    if (sideToo)
      loss = loss + side.clamp(-10, 10).sum();
    loss.backward();
    std::printf("side reaches the loss: %d\n", sideToo);
    print("loss", loss);
    print("a.grad", a.grad());
    print("v.grad", v.grad());
    print("scale.grad", scale.grad());
  }
}
// OUT: side reaches the loss: 0
// OUT-NEXT: loss
// OUT-NEXT: a.grad{{( -?[0-9][.0-9e+-]*)+$}}
// OUT-NEXT: v.grad undefined
// OUT-NEXT: scale.grad undefined
// OUT-NEXT: side reaches the loss: 1
// OUT-NEXT: loss
// OUT-NEXT: a.grad
// OUT-NEXT: v.grad
// OUT-NEXT: scale.grad
// EXEC: kiln-stats graph_calls=2 compiled=2 guard_misses=0 {{.*}} backward_compiled=2
