// Tests that sizes the source states statically and that cannot fit
// (eager raises where the op runs) are a located error of the root, as
// eager's other refusals are, not a crash of kiln compile: broadcasting, a
// product's contracting sizes, where; the ops whose result type depends on
// their attributes too: conv2d's channels, gather's index sizes,
// attention's head dims, a pooling kernel larger than its input; and bool
// subtraction, which the dialect's inference refuses with eager's message.
// With --suppress-errors the roots stay host code and each call raises
// eager's error.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --implicit-check-not="LLVM ERROR"
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

// CHECK-DAG: error: kiln could not compile 'conv': kiln::conv2d at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: the input has 3 channels but the weight expects 2
KILN_COMPILE() Tensor conv(const Tensor &x, const Tensor &w) {
  return kiln::conv2d(x.reshape({1, 3, 8, 8}), w.reshape({4, 2, 3, 3}));
}
// CHECK-DAG: error: kiln could not compile 'picked': kiln::gather at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: the index's dim 0 is larger than the input's
KILN_COMPILE() Tensor picked(const Tensor &a, const Tensor &i) {
  return kiln::gather(a.reshape({2, 3}), 1, i.reshape({5, 3}));
}
// CHECK-DAG: error: kiln could not compile 'attended': kiln::scaled_dot_product_attention at {{.*}}static-shape-conflicts.cpp:[[@LINE+3]]: query, key and value do not fit
KILN_COMPILE() Tensor attended(const Tensor &q, const Tensor &k) {
  Tensor key = k.reshape({2, 4, 6});
  return kiln::scaled_dot_product_attention(q.reshape({2, 4, 8}), key, key);
}
// CHECK-DAG: error: kiln could not compile 'pooled': kiln::pool2d at {{.*}}static-shape-conflicts.cpp:[[@LINE+2]]: the padded input is smaller than the kernel
KILN_COMPILE() Tensor pooled(const Tensor &x) {
  return kiln::max_pool2d(x.reshape({1, 1, 2, 2}), {3, 3});
}

// The program runs; each call raises eager's error.
// CALLS: added: error
// CALLS-NEXT: product: error
// CALLS-NEXT: chosen: error
// CALLS-NEXT: difference: error
// CALLS-NEXT: conv: error
// CALLS-NEXT: picked: error
// CALLS-NEXT: attended: error
// CALLS-NEXT: pooled: error
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
  attempt("conv", [&] { conv(kiln::ones({192}), kiln::ones({72})); });
  attempt("picked",
          [&] { picked(kiln::ones({6}), kiln::zeros({15}, kiln::kInt64)); });
  attempt("attended", [&] { attended(kiln::ones({64}), kiln::ones({48})); });
  attempt("pooled", [&] { pooled(kiln::ones({4})); });
  return 0;
}
