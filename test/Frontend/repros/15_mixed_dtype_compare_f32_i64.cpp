// Repro 15 (shared/repros): f32 < arange's i64 compares in f32, as eager.
//
// RUN: %matches_eager %s %t
// RUN: FileCheck %s < %t/cpu.txt
// CHECK: set0 dtype=bool shape=[4,]
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
//
// Miscompile: comparing a float32 tensor with an int64 tensor (kiln::arange).
// Eager promotes both to float32 (torch's rule); compiled code disagrees.
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

KILN_COMPILE() Tensor f(const Tensor &x) { return x < kiln::arange(x.size(-1)); }

int main() {
  Tensor x = kiln::from_vector<float>({-0.5f, 0.5f, 1.5f, 2.5f}, {4});
  dump("set0", f(x));
}
