// Tests that a guess never fails a compile: an entry point whose targets no
// caller shows is typed on a guess (f32) that cross_entropy rejects; kiln
// compile succeeds with a warning saying how to state the types, the root
// stays host code and the program prints the eager result. Stated, the
// same root compiles and runs compiled; with --require-known-types the
// guess is an error.
//
// RUN: kiln compile %s -o %t.cpp 2>&1 | FileCheck %s
// CHECK: open-types.cpp:[[@LINE+17]]:23: warning: kiln could not compile 'loss': kiln::cross_entropy at {{.*}}: {{.*}}integer targets{{.*}}; the types of logits, targets are open: state them with --signature or --signatures (left as host code: a guess)
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: %t | FileCheck %s --check-prefix=OUT
// OUT: loss 1.9
// RUN: not kiln compile %s -o %t.strict.cpp --require-known-types 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: error: kiln could not compile 'loss'
// RUN: kiln compile %s -o %t.stated.cpp --signature 'loss(f32[?,?], i64[?])'
// RUN: %clangxx -std=c++17 %kiln_includes %t.stated.cpp %t.stated.o -o %t.stated %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t.stated > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// STATS: kiln-stats graph_calls=1 compiled=1 guard_misses=0
#include <kiln/kiln.h>
#include <cstdio>
#include <vector>
using kiln::Tensor;

KILN_COMPILE() Tensor loss(const Tensor &logits, const Tensor &targets) {
  return kiln::cross_entropy(logits, targets.reshape({-1}));
}

int main() {
  std::vector<Tensor> batch = {kiln::randn({4, 7}, 1),
                               kiln::from_vector<int64_t>({0, 3, 6, 2}, {4})};
  std::printf("loss %.1f\n", loss(batch[0], batch[1]).item<float>());
}
