// Repro 06 (shared/repros): a string literal passed to a visible helper
// that never reads it is bound to the parameter, not traced: no break, and
// the graph runs compiled with the eager result.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: Kiln produced 1 graph, with 0 graph breaks
// RUN: %matches_eager %s %t
//
// Passing a string literal to a visible helper is a graph break ("an
// expression the tracer does not model (StringLiteral)"), although the
// helper only does tensor math; e.g. a name/tag argument for logging.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

Tensor scaled(const char *name, const Tensor &t) { return t * 2.0f; }

KILN_COMPILE() Tensor f(const Tensor &x) {
  Tensor y = scaled("y", x);
  return y + 1.0f;
}

int main() {
  Tensor x = kiln::randn({4, 3}, 1);
  std::printf("%f\n", kiln::sum(f(x)).item<float>());
}
