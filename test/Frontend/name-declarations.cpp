// Tests that declarations which only name things, in a traced body (a
// using-declaration, a using-directive, a typedef, an alias, a namespace
// alias, static_assert), are no graph break: a module's method written in
// a header as `using kiln::Tensor;` first traces whole. Every graph runs
// compiled with the eager results, at sizes the source never names.
//
// The names stay in scope across a graph break (the stitched code keeps
// the declarations before the graphs' calls): `split` is two graphs around
// a disabled call, both using what its first lines declare.
//
// RUN: kiln explain %s | FileCheck %s
// CHECK: Kiln produced 4 graphs, with 1 graph break
// CHECK: sigmoid
// CHECK: tanh
// CHECK: call to 'host_log', which is marked KILN_DISABLE()
// RUN: %matches_eager %s %t 5 6
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace layers {
struct Gate {
  kiln::Tensor w, b;

  kiln::Tensor operator()(const kiln::Tensor &x) const {
    using kiln::Tensor;
    typedef float Scale;
    using Index = int64_t;
    static_assert(std::is_same<Index, int64_t>::value, "int64 sizes");
    Index n = x.size(-1);
    Tensor h = kiln::linear(x, w, b);
    return kiln::sigmoid(h) * static_cast<Scale>(0.5) + x.slice(-1, 0, n);
  }
};
} // namespace layers

KILN_COMPILE() kiln::Tensor gated(const layers::Gate &gate, const kiln::Tensor &x) {
  using namespace kiln;
  namespace k = kiln;
  Tensor y = gate(x);
  return k::tanh(y) + y;
}

KILN_COMPILE() kiln::Tensor plain(const kiln::Tensor &x) {
  using kiln::sigmoid;
  return sigmoid(x) * 2.0f;
}

KILN_DISABLE() kiln::Tensor host_log(const kiln::Tensor &x) { return x; }

KILN_COMPILE() kiln::Tensor split(const kiln::Tensor &x) {
  using kiln::Tensor;
  typedef float Scale;
  Tensor a = kiln::exp(x) * static_cast<Scale>(0.5);
  a = host_log(a);
  Tensor b = kiln::sigmoid(a) * static_cast<Scale>(2);
  return b + a;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3, d = argc > 2 ? std::atoll(argv[2]) : 4;
  layers::Gate gate{kiln::randn({d, d}, 1), kiln::randn({d}, 2)};
  kiln::Tensor x = kiln::randn({n, d}, 3);
  std::printf("gated %f\n", kiln::sum(gated(gate, x)).item<float>());
  std::printf("plain %f\n", kiln::sum(plain(x)).item<float>());
  std::printf("split %f\n", kiln::sum(split(x)).item<float>());
}
