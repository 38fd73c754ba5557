// Tests the break reasons of docs/frontend.md: graph_break(), a disabled
// callee, a callee disallowed by a redeclaration and by the command line, a
// callee without a visible body, and a break inside an inlined callee
// (counted once, where it is caused, with its inline chain); a callee that
// traces whole is inlined into the caller's graph.
//
// RUN: kiln explain %s --disallow-in-graph=cli_disallowed | FileCheck %s
// RUN: kiln explain %s --disallow-in-graph=cli_disallowed --function=inlined_break | FileCheck %s --check-prefix=ONE
// RUN: kiln explain %s --annotate 'plain=compile' --function=plain | FileCheck %s --check-prefix=CLI
// RUN: kiln explain %s --annotate 'Model::forward=compile(fullgraph=true)' --annotate 'Model::noise=disable' --function=Model::forward | FileCheck %s --check-prefix=MEMBER
// RUN: not kiln compile %s -o %t.cpp --annotate 'Model::forward=compile(fullgraph=true)' 2>&1 | FileCheck %s --check-prefix=MEMBER-ERR
// The program, built uncompiled and with each backend, prints the same.
// RUN: kiln compile %s -o %t.cpu.cpp --disallow-in-graph=cli_disallowed
// RUN: kiln compile %s -o %t.eager.cpp --disallow-in-graph=cli_disallowed --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s %S/Inputs/opaque-def.cpp -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp %S/Inputs/opaque-def.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o %S/Inputs/opaque-def.cpp -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: %t.eager > %t.eager.txt
// RUN: %t.cpu > %t.cpu.txt
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt

#include <kiln/kiln.h>

#include <cstdio>
#include <iostream>

using kiln::Tensor;

KILN_DISABLE() Tensor disabled(const Tensor &x) { return x * 2; }
KILN_DISALLOW_IN_GRAPH() Tensor disallowed_op(const Tensor &x);
Tensor disallowed_op(const Tensor &x) { return x + 1; }
Tensor cli_disallowed(const Tensor &x) { return x - 1; }
Tensor opaque(const Tensor &x);
Tensor helper(const Tensor &x) { return kiln::relu(x) * 3; }
Tensor noisy(const Tensor &x) {
  std::printf("noisy\n");
  return x;
}

// CHECK: Kiln produced 5 graphs, with 6 graph breaks and 7 ops.

// CHECK-LABEL: explicit_break (
// CHECK: 1. kiln::graph_break()
// CHECK-NEXT: at {{.*}}annotations.cpp:51:3
// CHECK: Graph kiln_explicit_break_0 (1 ops):
// CHECK: Graph kiln_explicit_break_1 (1 ops):
KILN_COMPILE() Tensor explicit_break(const Tensor &x) {
  Tensor y = kiln::exp(x);
  kiln::graph_break();
  return y + 1;
}

// CHECK-LABEL: calls (
// CHECK: 1. call to 'disabled', which is marked KILN_DISABLE()
// CHECK-NEXT: at {{.*}}annotations.cpp:66:14
// CHECK: 2. call to 'disallowed_op', which is disallowed in graphs
// CHECK-NEXT: at {{.*}}annotations.cpp:67:14
// CHECK: 3. call to 'cli_disallowed', which is disallowed in graphs
// CHECK: 4. call to 'opaque', whose body is not visible
// CHECK: Graph kiln_calls_2 (2 ops):
// CHECK: relu
// CHECK: mul
KILN_COMPILE() Tensor calls(const Tensor &x) {
  Tensor a = disabled(x);
  Tensor b = disallowed_op(a);
  Tensor c = cli_disallowed(b);
  Tensor d = opaque(c);
  return helper(d);
}

// --function shows the root and the callee whose break keeps the call on
// the host, the break counted there.
// ONE: Kiln produced 2 graphs, with 1 graph break and 3 ops.
// ONE-LABEL: inlined_break (
// ONE: - noisy at {{.*}}annotations.cpp:[[#@LINE+8]]:14
// ONE-NEXT: (call to 'printf', {{.*}} at {{.*}}annotations.cpp:38:3)
// ONE-LABEL: noisy ({{.*}}compiled as a root of its own):
// ONE: 1. call to 'printf', whose body is not visible
// ONE-NEXT: at {{.*}}annotations.cpp:38:3
// ONE-NOT: inlined from
KILN_COMPILE() Tensor inlined_break(const Tensor &x) {
  Tensor y = x * 2;
  Tensor z = noisy(y);
  return kiln::tanh(z) + y;
}

// CLI: Kiln produced 1 graph, with 0 graph breaks and 2 ops.
// CLI: plain (
Tensor plain(const Tensor &x) { return kiln::sigmoid(x) * x; }

// Member functions of a class one cannot edit, annotated from the command
// line: a root, and a disabled callee under fullgraph (an error).
// MEMBER: Kiln produced 1 graph, with 1 graph break and 1 op.
// MEMBER: Model::forward ({{.*}}, backend cpu, fullgraph):
// MEMBER: 1. call to 'Model::noise', which is marked KILN_DISABLE() [an error: error-on-graph-break or fullgraph]
// MEMBER-ERR: annotations.cpp:[[# @LINE + 4]]:5: error: graph break: call to 'printf'
struct Model {
  Tensor w;
  Tensor noise(const Tensor &x) const {
    std::printf("noise\n");
    return x;
  }
  Tensor forward(const Tensor &x) const {
    Tensor y = noise(kiln::matmul(x, w));
    return kiln::relu(y);
  }
};

int main() {
  Tensor x = kiln::randn({3, 5}, 1);
  std::cout << explicit_break(x) << "\n" << calls(x) << "\n" << inlined_break(x)
            << "\n" << plain(x) << "\n";
  Model m{kiln::randn({5, 2}, 2)};
  std::cout << m.forward(x) << "\n";
  return 0;
}
