// Tests that sizes the source states statically and that cannot fit
// (eager raises where the op runs) are a located error of the root, as
// eager's other refusals are, not a crash of kiln compile: broadcasting, a
// product's contracting sizes, where; and bool subtraction, which the
// dialect's inference refuses with eager's message. With --suppress-errors
// the roots stay host code and each call raises eager's error.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s
// RUN: kiln compile %s -o %t.cpp --suppress-errors
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: %t | FileCheck %s --check-prefix=CALLS

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

// CHECK-DAG: error: kiln could not compile 'added': kiln::add at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: shapes [2, 3] and [4] cannot be broadcast: dim -1 has sizes 3 and 4
KILN_COMPILE() Tensor added(const Tensor &a, const Tensor &b) {
  return a.reshape({2, 3}) + b.reshape({4});
}
// CHECK-DAG: error: kiln could not compile 'product': kiln::matmul at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: shapes [2, 3] and [4, 5] cannot be multiplied: contracting sizes 3 and 4 differ
KILN_COMPILE() Tensor product(const Tensor &a, const Tensor &b) {
  return kiln::matmul(a.reshape({2, 3}), b.reshape({4, 5}));
}
// CHECK-DAG: error: kiln could not compile 'chosen': kiln::where at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: shapes
KILN_COMPILE() Tensor chosen(const Tensor &m, const Tensor &a) {
  return kiln::where(m.reshape({3}) > 0, a.reshape({2}), 0.0);
}
// CHECK-DAG: error: kiln could not compile 'difference': kiln::sub at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: subtracting bool tensors is not supported; use logical operations or convert with to(kiln::kInt64)
KILN_COMPILE() Tensor difference(const Tensor &a, const Tensor &b) {
  return (a > 0) - (b > 0);
}

// The program runs; each call raises eager's error.
// CALLS: added: error
// CALLS-NEXT: product: error
// CALLS-NEXT: chosen: error
// CALLS-NEXT: difference: error
int main() {
  auto attempt = [](const char *what, auto f) {
    try {
      f();
      std::cout << what << ": ran\n";
    } catch (const std::exception &) {
      std::cout << what << ": error\n";
    }
  };
  Tensor six = kiln::ones({6}), four = kiln::ones({4}), twenty = kiln::ones({20});
  attempt("added", [&] { added(six, four); });
  attempt("product", [&] { product(six, twenty); });
  attempt("chosen", [&] { chosen(kiln::ones({3}), kiln::ones({2})); });
  attempt("difference", [&] { difference(four, four); });
  return 0;
}
