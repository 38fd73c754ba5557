// Tests a model built with g++: a struct's KILN_COMPILE() member function
// with a disabled callee between two graphs, an inlined free function, a
// size read into a host scalar that later code uses, and a reshape with -1.
// The stitched source builds under g++ -Wall -Wextra -Werror and the program
// prints what the uncompiled g++ build prints, the graphs compiled.
//
// REQUIRES: gxx
// RUN: kiln compile %s -o %t.cpp
// RUN: %gxx -std=c++17 -O1 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %gxx -std=c++17 -O1 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s < %t.cpu.log

#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <iostream>

using kiln::Tensor;

KILN_DISABLE() Tensor log_stats(const Tensor &x) {
  std::printf("mean=%.4f\n", kiln::mean(x).item<float>());
  return x;
}

Tensor dense(const Tensor &x, const Tensor &w, const Tensor &b) {
  return kiln::gelu(kiln::matmul(x, w) + b);
}

// CHECK: kiln: graph kiln_Mlp__forward_0: ran compiled
// CHECK: kiln: graph kiln_Mlp__forward_1: ran compiled
// CHECK: kiln: graph kiln_Mlp__forward_0: ran compiled
// CHECK: kiln: graph kiln_Mlp__forward_1: ran compiled
struct Mlp {
  Tensor w1, b1, w2, b2;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = dense(x, w1, b1);
    h = log_stats(h);
    int64_t rows = x.size(0);
    Tensor y = kiln::matmul(h, w2) + b2;
    Tensor out = kiln::softmax(y.reshape({rows, -1}) * (1.0f / std::sqrt(float(y.size(1)))), -1);
    std::printf("rows=%lld\n", static_cast<long long>(rows));
    return out;
  }
};

int main() {
  Mlp m{kiln::randn({13, 32}, 1), kiln::randn({32}, 2), kiln::randn({32, 7}, 3),
        kiln::randn({7}, 4)};
  std::cout << m.forward(kiln::randn({5, 13}, 5)) << "\n";
  std::cout << m.forward(kiln::randn({2, 13}, 6)) << "\n";
  return 0;
}
