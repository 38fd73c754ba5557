// Tests virtual calls whose overrider is known: through a final class, to
// a final method, and on a member object (its dynamic type is its declared
// one) are inlined as ordinary methods; through a reference to a base that
// is not final, the overrider is chosen at run time and the call breaks.
// The program prints what its eager build prints and every graph runs
// compiled.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct Layer {
  virtual ~Layer() = default;
  virtual Tensor forward(const Tensor &x) const = 0;
  virtual Tensor operator()(const Tensor &x) const { return forward(x); }
};
struct Relu final : Layer {
  Tensor forward(const Tensor &x) const override { return kiln::relu(x) * 2.0f; }
  Tensor operator()(const Tensor &x) const override { return forward(x) - 1.0f; }
};
struct Tanh : Layer {
  Tensor forward(const Tensor &x) const final { return kiln::tanh(x); }
};
struct Scale : Layer {
  float s = 3.0f;
  Tensor forward(const Tensor &x) const override { return x * s; }
};

// CHECK-LABEL: final_class (
// CHECK-NOT: Graph breaks
// CHECK: relu
// CHECK: relu
KILN_COMPILE() Tensor final_class(const Relu &r, const Tensor &x) {
  return r.forward(x) + r(x);
}

// CHECK-LABEL: final_method (
// CHECK-NOT: Graph breaks
// CHECK: tanh
KILN_COMPILE() Tensor final_method(const Tanh &t, const Tensor &x) { return t.forward(x) + 1.0f; }

struct Net {
  Scale scale;
  // CHECK-LABEL: Net::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: this->scale.s
  KILN_COMPILE() Tensor forward(const Tensor &x) const { return scale.forward(x) + 1.0f; }
};

// CHECK-LABEL: through_base (
// CHECK: 1. a virtual call
KILN_COMPILE() Tensor through_base(const Layer &l, const Tensor &x) { return l.forward(x) + 1.0f; }

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({n, 4}, 1);
  Relu r;
  Tanh t;
  Net net;
  net.scale.s = 0.5f;
  std::printf("%f\n", kiln::sum(final_class(r, x) * x).item<float>());
  std::printf("%f\n", kiln::sum(final_method(t, x) * x).item<float>());
  std::printf("%f\n", kiln::sum(net.forward(x) * x).item<float>());
  std::printf("%f\n", kiln::sum(through_base(t, x) * x).item<float>());
  return 0;
}
