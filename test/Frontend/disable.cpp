// Tests KILN_DISABLE() against KILN_DISABLE(recursive=false), each around a
// callee that itself breaks: a recursive disable keeps everything it calls
// eager; a non-recursive one keeps only its own body eager, the functions it
// calls being compiled as roots of their own (graphs on each side of their
// break). A callee that breaks when inlined is compiled the same way, its
// break counted once, in the callee that causes it (the caller lists the
// call that stays on the host, a consequence). Such graphs run only when
// reached from compiled code: not below KILN_DISABLE(), not from main(); and
// below a KILN_DISABLE() function even a compile root runs eagerly.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpu.cpp
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %t.eager > %t.eager.txt
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log

#include <kiln/kiln.h>

#include <cstdio>
#include <iostream>

using kiln::Tensor;

Tensor inner_a(const Tensor &x) {
  Tensor y = kiln::exp(x) * 2;
  std::printf("inner_a\n");
  return y + 1;
}
Tensor inner_b(const Tensor &x) {
  Tensor y = kiln::exp(x) * 2;
  std::printf("inner_b\n");
  return y + 1;
}
Tensor inner_c(const Tensor &x) {
  Tensor y = kiln::tanh(x);
  std::printf("inner_c\n");
  return y * y;
}

KILN_DISABLE() Tensor outer_recursive(const Tensor &x) { return inner_a(x) * 3 + inner_c(x); }
KILN_DISABLE(recursive = false) Tensor outer_shallow(const Tensor &x) { return inner_b(x) * 3; }

// CHECK: Kiln produced 5 graphs, with 4 graph breaks and {{[0-9]+}} ops.
// CHECK-LABEL: root (
// CHECK: 1. call to 'outer_recursive', which is marked KILN_DISABLE()
// CHECK: 2. call to 'outer_shallow', which is marked KILN_DISABLE(recursive=false)
// CHECK-NOT: 3.
// CHECK: Calls left on the host because the callee breaks (counted there):
// CHECK-NEXT: - inner_c at {{.*}}disable.cpp:[[#@LINE+15]]:14
// CHECK-NEXT: (call to 'printf', {{.*}} at {{.*}}disable.cpp:43:3)
// CHECK-NOT: inner_a (
// CHECK-LABEL: inner_b ({{.*}}, compiled as a root of its own):
// CHECK: call to 'printf'
// CHECK: Graph kiln_inner_b_{{[0-9]+}} (2 ops):
// CHECK: Graph kiln_inner_b_{{[0-9]+}} (1 ops):
// CHECK-LABEL: inner_c ({{.*}}, compiled as a root of its own):
// CHECK: 1. call to 'printf'
// CHECK-NEXT: at {{.*}}disable.cpp:43:3
// CHECK: Graph kiln_inner_c_{{[0-9]+}} (1 ops):
// CHECK: Graph kiln_inner_c_{{[0-9]+}} (1 ops):
KILN_COMPILE() Tensor root(const Tensor &x) {
  Tensor a = outer_recursive(x);
  Tensor b = outer_shallow(x);
  Tensor c = inner_c(x);
  return a + b + c;
}

// CALLS-NOT: kiln_inner_a
// CALLS-NOT: kiln_inner_c
// CALLS: kiln: graph kiln_inner_b_{{[0-9]+}}: ran compiled
// CALLS: kiln: graph kiln_inner_b_{{[0-9]+}}: ran compiled
// CALLS: kiln: graph kiln_inner_c_{{[0-9]+}}: ran compiled
// CALLS: kiln: graph kiln_inner_c_{{[0-9]+}}: ran compiled
// A compile root called below a KILN_DISABLE() function runs eagerly too.
KILN_DISABLE() Tensor eager_root(const Tensor &x) { return root(x); }

// CALLS: kiln: graph kiln_root_{{[0-9]+}}: ran compiled
// CALLS-NOT: ran compiled
int main() {
  std::cout << root(kiln::randn({3, 4}, 1)) << "\n";
  std::cout << inner_c(kiln::randn({2, 2}, 2)) << "\n";
  std::cout << eager_root(kiln::randn({3, 4}, 3)) << "\n";
  return 0;
}
