// Tests that a squeeze of a dim whose size the source states statically
// and that is not 1 compiles as eager's squeeze is (the tensor itself, a
// copy in the graph) rather than being refused or aborting kiln compile,
// and that the compiled graph runs and gives eager's result.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: env KILN_LOGS=graph_calls %t > %t.out 2> %t.log
// RUN: %t.ref > %t.ref.out
// RUN: %compare %t.ref.out %t.out
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=LOG < %t.log

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

// LOG: kiln: graph kiln_squeezed_{{[0-9]+}}: ran compiled
KILN_COMPILE() Tensor squeezed(const Tensor &a) {
  return a.reshape({2, 3}).squeeze(0) * 2;
}

// CHECK: squeezed: [2, 3]
int main() {
  Tensor s = squeezed(kiln::arange(6).to(kiln::kFloat32));
  std::cout << "squeezed: [" << s.size(0) << ", " << s.size(1) << "]\n";
  std::cout << s << "\n";
  return 0;
}
