// Tests loops and branches: a loop with a constant trip count is unrolled
// into the graph (its counter a constant in each copy), an if on host
// parameters becomes a choice inside the graph (both arms traced, the
// variables they assign selected), a condition known at compile time takes
// one arm, and a loop whose trip count is a parameter stays on the host with
// its body compiled as a graph of its own. Every combination of the host
// values runs compiled and prints what the uncompiled build prints.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpu.cpp --log=graph_code 2>&1 | FileCheck %s --check-prefix=KILN
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: %t.eager > %t.eager.txt
// RUN: env KILN_LOGS=guards,graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

constexpr bool kDoubleOutput = false;

// CHECK: Kiln produced 3 graphs, with 0 graph breaks and {{[0-9]+}} ops.
// CHECK-LABEL: repeat (
// CHECK-NOT: Graph breaks
// CHECK: Graph kiln_repeat_0 (
// CHECK-NEXT: inputs: x (f32 tensor of rank 2) w (f32 tensor of rank 2) residual (bool) scale (float)
// CHECK-COUNT-3: matmul
// KILN-LABEL: func.func @kiln_repeat_0(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: i1, %arg3: f32)
// KILN-COUNT-3: kiln.matmul
// KILN: arith.select %arg2
// KILN: arith.cmpf
// KILN: arith.select
// KILN: return
KILN_COMPILE() Tensor repeat(const Tensor &x, const Tensor &w, bool residual, float scale) {
  Tensor h = x;
  for (int i = 0; i < 3; ++i) {
    Tensor y = kiln::tanh(kiln::matmul(h, w)) * (i + 1);
    if (residual)
      h = h + y;
    else
      h = y;
  }
  if (scale > 1.0f)
    h = h * scale;
  if (kDoubleOutput)
    h = h * 2;
  return h;
}

// CHECK-LABEL: host_loop (
// CHECK-NOT: Graph breaks
// CHECK: Loops left on the host, their trip count known only at run time (the graphs of their bodies run once per iteration):
// CHECK-NEXT: - at {{.*}}control-flow.cpp:[[@LINE+5]]:3
// CHECK: Graph kiln_host_loop_1 (2 ops):
// CHECK: Graph kiln_host_loop_2 (1 ops):
KILN_COMPILE() Tensor host_loop(const Tensor &x, int n) {
  Tensor h = x;
  for (int i = 0; i < n; ++i)
    h = kiln::relu(h) * 0.5;
  return h + 1;
}

// CALLS-NOT: guard of graph
// CALLS-COUNT-4: kiln: graph kiln_repeat_0: ran compiled
// CALLS: kiln: graph kiln_host_loop_1: ran compiled
// CALLS: kiln: graph kiln_host_loop_1: ran compiled
// CALLS: kiln: graph kiln_host_loop_2: ran compiled
int main() {
  Tensor x = kiln::randn({4, 6}, 1), w = kiln::randn({6, 6}, 2) * 0.3;
  for (bool residual : {false, true})
    for (float scale : {0.5f, 3.0f})
      std::cout << repeat(x, w, residual, scale) << "\n";
  std::cout << host_loop(x, 2) << "\n";
  return 0;
}
