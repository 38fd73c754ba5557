// Tests that a guess never fails a compile: an entry point whose callers
// the source cannot see into (its tensors come out of a std::vector) is
// typed on a guess, float32 targets, that cross_entropy rejects. kiln
// compile then types it in versions: the targets int64 (the first element
// type that types), at the guessed rank and at the others. The call that
// arrives, f32[4,7] logits and i64[4] targets, runs one of them compiled,
// with the eager result. Stated, the same root compiles once; with
// --require-known-types the open types are an error.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: types: logits open targets open
// CHECK-NEXT: variant kiln_loss_0_t0 for logits f32[?,?], targets i64[?,?] (2 ops), inputs: logits targets
// CHECK-NEXT: variant kiln_loss_0_t1 for logits f32[?,?], targets i64[?] (2 ops)
// CHECK-NEXT: variant kiln_loss_0_t2 for logits f32[?,?], targets i64[?,?,?] (2 ops)
// CHECK-NEXT: variant kiln_loss_0_t3 for logits f32[?,?], targets i64[?,?,?,?] (2 ops)
// CHECK-NOT: variant
// RUN: %matches_eager %s %t
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// OUT: loss 1.9
// RUN: not kiln compile %s -o %t.strict.cpp --require-known-types 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: open-types.cpp:[[@LINE+15]]:23: error: kiln could not compile 'loss': no rank or dtype is stated or shown for logits, targets (--require-known-types; state them with --signature)
// RUN: kiln explain %s --signature 'loss(f32[?,?], i64[?])' | FileCheck %s --check-prefix=STATED
// STATED: types: logits stated targets stated
// STATED-NOT: variant
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
