// Repro 18 (shared/repros): kiln::full with a literal value no longer
// breaks the graph, so t keeps its rank 3 and transpose(-3, -1) types;
// compiled equals eager.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: Kiln produced 1 graph, with 0 graph breaks
// RUN: %matches_eager %s %t 6
//
// Compile failure on a valid program: kiln::full with a literal value is a
// graph break ("a value that is not a constant"); the graph after the break
// takes t (rank 3, as the graph before it knows) as rank 2 and then rejects
// transpose(-3, -1): "dim out of range".
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &a) {
  Tensor t = kiln::relu(a);
  Tensor w = kiln::full({2}, 0.5f);
  Tensor u = t * float(t.size(-2));
  return u.transpose(-3, -1);
}
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor r = f(kiln::randn({n, 1, 16}, 1));
  std::printf("%lld %lld %f\n", (long long)r.size(0), (long long)r.size(2), kiln::sum(r).item<float>());
}
