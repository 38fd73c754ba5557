// Tests that static sizes an op refuses (eager raises where the op runs)
// are a located error of the root, not an abort of kiln compile, for the
// ops whose result type depends on their attributes too: conv2d's
// channels, gather's index sizes, attention's head dims, a pooling kernel
// larger than its input. With --suppress-errors the roots stay host code
// and each call raises eager's error. A squeeze of a dim of static size 2
// is compiled as eager's squeeze is: the tensor itself, copied.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --implicit-check-not="LLVM ERROR"
// RUN: kiln compile %s -o %t.cpp --suppress-errors
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: %clangxx -std=c++17 %kiln_includes %s -o %t.ref %kiln_link
// RUN: env KILN_LOGS=graph_calls %t > %t.out 2> %t.log
// RUN: %t.ref > %t.ref.out
// RUN: %compare %t.ref.out %t.out
// RUN: FileCheck %s --check-prefix=CALLS < %t.out
// RUN: FileCheck %s --check-prefix=LOG < %t.log

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

// CHECK-DAG: error: kiln could not compile 'conv': kiln::conv2d at {{.*}}static-size-refusals.cpp:[[@LINE+2]]: the input has 3 channels but the weight expects 2
KILN_COMPILE() Tensor conv(const Tensor &x, const Tensor &w) {
  return kiln::conv2d(x.reshape({1, 3, 8, 8}), w.reshape({4, 2, 3, 3}));
}
// CHECK-DAG: error: kiln could not compile 'picked': kiln::gather at {{.*}}static-size-refusals.cpp:[[@LINE+2]]: the index's dim 0 is larger than the input's
KILN_COMPILE() Tensor picked(const Tensor &a, const Tensor &i) {
  return kiln::gather(a.reshape({2, 3}), 1, i.reshape({5, 3}));
}
// CHECK-DAG: error: kiln could not compile 'attended': kiln::scaled_dot_product_attention at {{.*}}static-size-refusals.cpp:[[@LINE+3]]: query, key and value do not fit
KILN_COMPILE() Tensor attended(const Tensor &q, const Tensor &k) {
  Tensor key = k.reshape({2, 4, 6});
  return kiln::scaled_dot_product_attention(q.reshape({2, 4, 8}), key, key);
}
// CHECK-DAG: error: kiln could not compile 'pooled': kiln::pool2d at {{.*}}static-size-refusals.cpp:[[@LINE+2]]: the padded input is smaller than the kernel
KILN_COMPILE() Tensor pooled(const Tensor &x) {
  return kiln::max_pool2d(x.reshape({1, 1, 2, 2}), {3, 3});
}
// LOG: kiln: graph kiln_squeezed_{{[0-9]+}}: ran compiled
KILN_COMPILE() Tensor squeezed(const Tensor &a) {
  return a.reshape({2, 3}).squeeze(0) * 2;
}

// The program runs; each refused call raises eager's error.
// CALLS: conv: error
// CALLS-NEXT: picked: error
// CALLS-NEXT: attended: error
// CALLS-NEXT: pooled: error
// CALLS-NEXT: squeezed: [2, 3]
int main() {
  auto attempt = [](const char *what, auto f) {
    try {
      f();
      std::cout << what << ": ran\n";
    } catch (const std::exception &) {
      std::cout << what << ": error\n";
    }
  };
  attempt("conv", [&] { conv(kiln::ones({192}), kiln::ones({72})); });
  attempt("picked", [&] {
    picked(kiln::ones({6}), kiln::zeros({15}, kiln::kInt64));
  });
  attempt("attended",
          [&] { attended(kiln::ones({64}), kiln::ones({48})); });
  attempt("pooled", [&] { pooled(kiln::ones({4})); });
  Tensor s = squeezed(kiln::arange(6).to(kiln::kFloat32));
  std::cout << "squeezed: [" << s.size(0) << ", " << s.size(1) << "]\n";
  std::cout << s << "\n";
  return 0;
}
