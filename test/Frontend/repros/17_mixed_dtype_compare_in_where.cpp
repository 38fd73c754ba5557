// Repro 17 (shared/repros): where() on a comparison with an i64 tensor.
//
// RUN: %matches_eager %s %t
// RUN: FileCheck %s < %t/cpu.txt
// CHECK: set0 dtype=float32 shape=[2,3,]
// CHECK-NEXT: {{^}}0.5{{$}}
// CHECK-NEXT: {{^}}1.5{{$}}
// CHECK-NEXT: {{^}}2.5{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}3.75{{$}}
//
// Miscompile through where(): the comparison with an int64 tensor picks the
// wrong branch in compiled code.
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

KILN_COMPILE() Tensor f(const Tensor &x) {
  return kiln::where(x > kiln::arange(x.size(-1)), x, 0.0f);
}

int main() {
  Tensor x = kiln::from_vector<float>({0.5f, 1.5f, 2.5f, -0.5f, 0.25f, 3.75f}, {2, 3});
  dump("set0", f(x));
}
