// Tests that --backend=eager, which prints the graph's kiln function as
// runtime calls, keeps C++ numbers wrapped numbers: an int64 tensor times
// 0.5 is float32 (as uncompiled), not float64 as a 0-d float64 tensor would
// make it; comparisons with a C++ double compare in float32; a bool fill of
// 2 is true. Each program prints the dtypes and values; the three agree.
//
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: kiln compile %s -o %t.cpu.cpp
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=graph_calls %t.eager > %t.eager.txt 2> %t.eager.log
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: FileCheck %s < %t.ref.txt
// RUN: FileCheck %s < %t.eager.txt
// RUN: FileCheck %s < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=GUARDS < %t.eager.log
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log
// CALLS-COUNT-3: ran compiled
// GUARDS-COUNT-3: guard passed

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

KILN_COMPILE() Tensor halves(const Tensor &ids) { return ids * 0.5; }
KILN_COMPILE() Tensor below(const Tensor &ids) { return ids < 2.5; }
KILN_COMPILE() Tensor bools(const Tensor &x) {
  return kiln::full({x.size(0)}, 2, kiln::kBool);
}

// CHECK: halves float32
// CHECK-NEXT: 0.5 1 1.5 2
// CHECK-NEXT: below bool
// CHECK-NEXT: 1 1 0 0
// CHECK-NEXT: bools bool
// CHECK-NEXT: 1 1 1
int main() {
  Tensor ids = kiln::from_vector<int64_t>({1, 2, 3, 4}, {4});
  auto show = [](const char *what, const Tensor &t) {
    std::cout << what << " " << kiln::dtypeName(t.dtype()) << "\n";
    Tensor f = t.to(kiln::kFloat64);
    for (int64_t i = 0; i < t.numel(); ++i)
      std::cout << (i ? " " : "") << f.reshape({-1}).select(0, i).item<double>();
    std::cout << "\n";
  };
  show("halves", halves(ids));
  show("below", below(ids));
  show("bools", bools(kiln::zeros({3})));
  return 0;
}
