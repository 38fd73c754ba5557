// Tests lambdas called directly: inlined into the graph, their captures
// (by reference, members through [&] in a member function, a host scalar)
// being the enclosing variables; the stitched code declares each lambda
// before the graph call, a copy of a value the graph computes made a
// reference to the variable the call sets. A lambda that copies a variable
// the function changes (its copy may then differ) is a break.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpu.cpp
// RUN: FileCheck %s --check-prefix=CPU < %t.cpu.cpp
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: %t.eager > %t.eager.txt
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

// CHECK: Kiln produced {{[0-9]+}} graphs, with 2 graph breaks and {{[0-9]+}} ops.
// CHECK-LABEL: Net::forward ({{.*}}, fullgraph):
// CHECK-NOT: Graph breaks
// CHECK: Graph kiln_Net__forward_0 (
// CHECK-COUNT-2: matmul
struct Net {
  Tensor w;
  KILN_COMPILE(fullgraph = true) Tensor forward(const Tensor &x) const {
    float scale = 0.5f;
    auto layer = [&](const Tensor &h) { return kiln::relu(kiln::matmul(h, w)) * scale; };
    Tensor a = layer(x);
    Tensor b = layer(a);
    auto twice = [](const Tensor &t) { return t * 2; };
    return twice(a + b);
  }
};

// CHECK-LABEL: copies (
// CHECK-NOT: Graph breaks
// CHECK: Graph kiln_copies_1 (
// CPU: auto add_y = [&y, &n](const Tensor &t)
// CPU: auto scaled = [=, &y, &n](const Tensor &t)
// CPU: auto shifted = [&](const Tensor &t)
KILN_COMPILE() Tensor copies(const Tensor &x) {
  Tensor y = kiln::exp(x);
  const int64_t n = x.size(-1);
  auto add_y = [y, n](const Tensor &t) { return t + y * n; };
  auto scaled = [=](const Tensor &t) { return t * kiln::sum(y) / n; };
  auto shifted = [&, n](const Tensor &t) { return (t - 1) * n; };
  return add_y(x) + scaled(x) + shifted(y);
}

// A copy the function changes afterwards keeps the old value: the lambda
// is host code, and so is its call.
// CHECK-LABEL: changed (
// CHECK: 1. a lambda capturing by copy 'y', a variable that changes (the copy may differ from it)
// CHECK: 2. a call of a lambda made outside the graph that copies 'y', a variable that changes (the copy may differ from it)
KILN_COMPILE() Tensor changed(const Tensor &x) {
  Tensor y = kiln::exp(x);
  auto add_y = [y](const Tensor &t) { return t + y; };
  y = y * 2;
  return add_y(x) + y;
}

// CALLS: kiln: graph kiln_Net__forward_0: ran compiled
// CALLS: kiln: graph kiln_copies_1: ran compiled
int main() {
  Net net{kiln::randn({6, 6}, 1) * 0.4};
  std::cout << net.forward(kiln::randn({3, 6}, 2)) << "\n";
  std::cout << copies(kiln::randn({2, 3}, 3)) << "\n";
  std::cout << copies(kiln::randn({4, 5}, 4)) << "\n";
  std::cout << changed(kiln::randn({2, 3}, 5)) << "\n";
  return 0;
}
