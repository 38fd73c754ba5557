// Tests windows of one from a run-time start, as a MoE takes its gate
// column (`gates.slice(1, e, e + 1)`): the slice is typed one wide
// (kiln-refine-types), so the gate broadcasts across the expert's columns
// in the fused loop (no run-time broadcast copy), and the width is checked
// at run time: a start past the end, or counted from it, makes the slice
// empty, and such a call runs eagerly (a failed shape check) with eager's
// result.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu > %t.cpu.txt 2> %t.cpu.err
// RUN: diff %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdint>
#include <cstdio>
#include <vector>

using kiln::Tensor;

struct Expert {
  Tensor w;
};

struct Gated {
  std::vector<Expert> experts;
  // CHECK-LABEL: Gated::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: slice(
  KILN_COMPILE() Tensor forward(const Tensor &gates, const Tensor &h) const {
    Tensor y = kiln::zeros({h.size(0), experts[0].w.size(1)});
    for (size_t e = 0; e < experts.size(); ++e)
      y = y + gates.slice(1, e, e + 1) * h.matmul(experts[e].w);
    return y;
  }
};

// The row at i: empty past the end or counted from it (-1: [4, 0)).
KILN_COMPILE() Tensor window(const Tensor &x, int64_t i) {
  return x.slice(0, i, i + 1) * 2 + 1;
}

// EXEC: kiln: warning: graph kiln_window_{{[0-9]+}} ({{.*}}) runs eagerly: a shape check failed
// Gated::forward: its graphs; window: 6 calls, 3 of them eager.
// EXEC: kiln-stats graph_calls=10 compiled=7 guard_misses=3
int main() {
  Tensor gates = kiln::softmax(kiln::randn({6, 3}, 1), -1);
  Tensor h = kiln::randn({6, 4}, 2);
  Gated gated{{{kiln::randn({4, 5}, 3)},
               {kiln::randn({4, 5}, 4)},
               {kiln::randn({4, 5}, 5)}}};
  std::printf("%s\n", kiln::toString(gated.forward(gates, h)).c_str());
  Tensor x = kiln::arange(15).to(kiln::kFloat32).reshape({5, 3});
  for (int64_t i : {0, 3, 4, 5, -1, 9})
    std::printf("%lld: %s\n", static_cast<long long>(i),
                kiln::toString(window(x, i)).c_str());
}
