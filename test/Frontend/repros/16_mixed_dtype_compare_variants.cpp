// Repro 16 (shared/repros): comparisons with an i64 operand on either side.
//
// RUN: %matches_eager %s %t
// RUN: FileCheck %s < %t/cpu.txt
// CHECK: set0 dtype=bool shape=[4,]
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK: set1 dtype=bool shape=[4,]
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK: set2 dtype=bool shape=[4,]
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK: set3 dtype=bool shape=[4,]
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
//
// The comparison operators convert the left operand to the right operand's
// dtype: float32 < int64 compares truncated floats; int64 < float32 is right.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

static void dump(const char *tag, const Tensor &t) {
  Tensor c = t.to(kiln::kFloat64).contiguous();
  std::printf("%s dtype=%s shape=[", tag, kiln::dtypeName(t.dtype()));
  for (int64_t s : t.shape()) std::printf("%lld,", (long long)s);
  std::printf("]\n");
  const double *p = c.data<double>();
  for (int64_t i = 0; i < c.numel(); ++i) std::printf("%.9g\n", p[i]);
}

KILN_COMPILE() Tensor lt(const Tensor &x) { return x < kiln::arange(x.size(-1)); }
KILN_COMPILE() Tensor gt_rev(const Tensor &x) { return kiln::arange(x.size(-1)) > x; }
KILN_COMPILE() Tensor eq(const Tensor &x) { return x == kiln::arange(x.size(-1)); }
KILN_COMPILE() Tensor vs_sum(const Tensor &x) { return x >= kiln::sum(x > 0.0f, -1, true); }

int main() {
  Tensor x = kiln::from_vector<float>({-0.5f, 0.5f, 1.5f, 2.5f}, {4});
  Tensor y = kiln::from_vector<float>({-0.5f, -0.25f, -1.5f, -2.0f}, {4});
  dump("set0", lt(x));      // eager: 1 1 1 1
  dump("set1", gt_rev(x));  // eager: 1 1 1 1 (int64 on the left)
  dump("set2", eq(x));      // eager: 0 0 0 0
  dump("set3", vs_sum(y));  // sum(y > 0) = 0: eager 0 0 0 0
}
