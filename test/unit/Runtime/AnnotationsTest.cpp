//===- AnnotationsTest.cpp - The annotations are no-ops at run time -------===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

namespace {
KILN_DISABLE() Tensor disabled(const Tensor &x) { return x + 1; }
KILN_DISABLE(recursive = false) Tensor shallow(const Tensor &x) {
  return x * 2;
}
KILN_ALLOW_IN_GRAPH() Tensor opaque(const Tensor &x) { return -x; }
KILN_DISALLOW_IN_GRAPH() Tensor hostOnly(const Tensor &x) { return x - 1; }
KILN_ERROR_ON_GRAPH_BREAK(true) Tensor strict(const Tensor &x) { return x; }

struct Model {
  Tensor w;
  KILN_COMPILE(fullgraph = true, backend = cpu)
  Tensor forward(const Tensor &x) const {
    error_on_graph_break guard(false);
    Tensor h = disabled(x) + shallow(x) + opaque(x) + hostOnly(x);
    graph_break();
    return strict(h) * w;
  }
};

KILN_COMPILE() Tensor root(const Tensor &x) {
  return Model{full({1}, 2.0)}.forward(x);
}
} // namespace

TEST_CASE("annotated code runs eagerly unchanged", "[annotations]") {
  // (x+1) + 2x + (-x) + (x-1) = 3x, times 2.
  checkTensor(root(F({1, 2}, {2})), {2}, kFloat32, {6, 12});
}
