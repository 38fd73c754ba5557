// Repro 05 (shared/repros): the printf under `if (verbose)` is one break,
// counted once, in log_mean (the function that causes it); f lists the
// call that stays on the host.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: Kiln produced 2 graphs, with 1 graph break and 2 ops.
// CHECK-LABEL: f (
// CHECK-NOT: Graph breaks:
// CHECK: - log_mean at {{.*}}05_break_in_if_arm_counted_twice.cpp:[[#@LINE+17]]:5
// CHECK-LABEL: log_mean ({{.*}}compiled as a root of its own):
// CHECK: 1. call to 'printf'
// CHECK-NOT: 2.
//
// A break inside an if arm (on a host bool) is reported twice: explain says
// "2 graph breaks", both "call to printf ... at sl2.cpp:5:34 inlined from
// log_mean". The contract: a break is counted once, where it is caused.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

void log_mean(const Tensor &t) { std::printf("mean=%f\n", kiln::mean(t).item<float>()); }

KILN_COMPILE() Tensor f(const Tensor &x, bool verbose) {
  Tensor y = x * 2.0f;
  if (verbose)
    log_mean(y);
  return y + 1.0f;
}

int main() {
  Tensor x = kiln::randn({4, 3}, 1);
  std::printf("%f\n", kiln::sum(f(x, true)).item<float>());
}
