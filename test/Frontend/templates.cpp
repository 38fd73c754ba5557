// Tests templated roots: a function template over an int and over a scalar
// type, and methods of class templates over an int and over the source's
// own classes. Each instantiation is traced to
// its own graphs; the one source text is rewritten once, its call choosing
// the instantiation's graph by the template arguments. A template whose
// instantiations trace differently (here a break in one of them) stays
// eager in each, with that reason. Every graph call runs compiled with the
// eager results, at sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// RUN: FileCheck %s --check-prefix=STITCHED < %t/cpu.cpp
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// CHECK-LABEL: power_norm<2> (
// CHECK-NOT: Graph breaks
// CHECK: mul(
// CHECK-LABEL: power_norm<3> (
// CHECK-NOT: Graph breaks
// CHECK: mul(
// CHECK: mul(
// The stitched source: a class template per rewritten segment, its primary
// (an instantiation kiln compile never saw) counted as a guard miss, one
// specialization per instantiation, and the call in the template's text.
// STITCHED: {{^}}template <int Power> struct kiln_template0_0 {
// STITCHED: kiln::abi::uncompiledCall
// STITCHED: {{^}}template <int Width> struct kiln_template{{[0-9]+}}_0 {
// STITCHED: {{^}}template <> struct kiln_template0_0<2> {
// STITCHED: {{^}}template <> struct kiln_template0_0<3> {
// STITCHED: {{^}}if (kiln::Tensor kiln_result_; ::kiln_stitched::kiln_template0_0<Power>::call(kiln_result_, x))
template <int Power> KILN_COMPILE() Tensor power_norm(const Tensor &x) {
  Tensor h = x;
  for (int i = 1; i < Power; ++i)
    h = h * x;
  return h / (kiln::abs(h).sum({-1}, true) + 1.0f);
}

// CHECK-LABEL: scaled<float> (
// CHECK-NOT: Graph breaks
// CHECK: inputs: x (f32 tensor of rank 2) s (float)
// CHECK-LABEL: scaled<double> (
// CHECK-NOT: Graph breaks
// CHECK: inputs: x (f32 tensor of rank 2) s (double)
template <typename Scalar> KILN_COMPILE() Tensor scaled(const Tensor &x, Scalar s) {
  Tensor y = kiln::relu(x) * s;
  return y + 1.0f;
}

// CHECK-LABEL: Block<4>::forward (
// CHECK-NOT: Graph breaks
// CHECK-LABEL: Block<8>::forward (
// CHECK-NOT: Graph breaks
template <int Width> struct Block {
  Tensor w;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = kiln::matmul(x, w);
    return kiln::tanh(h) * static_cast<float>(Width);
  }
};

// CHECK-LABEL: differ<true> (
// CHECK: a template whose instantiations trace differently (one source text serves them all)
// CHECK-LABEL: differ<false> (
// CHECK: a template whose instantiations trace differently (one source text serves them all)
template <bool Loud> KILN_COMPILE() Tensor differ(const Tensor &x) {
  Tensor y = kiln::relu(x) + 1.0f;
  if constexpr (Loud)
    std::printf("loud\n");
  return y * 2.0f;
}

// A class template over the source's own classes (an activation chosen by
// type, one in a namespace): the stitched code names these instantiations
// after the source's declarations, at the end of the file. (Classes whose
// members differ, so that the graphs read different members, trace
// differently: each instantiation breaks, as differ<> above.)
// CHECK-LABEL: Mlp<GeluAct>::forward (
// CHECK-NOT: Graph breaks
// CHECK: gelu(
// CHECK-LABEL: Mlp<nn::TanhAct>::forward (
// CHECK-NOT: Graph breaks
// CHECK: tanh(
// STITCHED: {{^}}#line 1 "kiln-stitched"
// STITCHED-NEXT: {{^}}namespace kiln_stitched {
// STITCHED-NEXT: {{^}}template <> struct kiln_template{{[0-9]+}}_0<GeluAct> {
// STITCHED: {{^}}template <> struct kiln_template{{[0-9]+}}_0<nn::TanhAct> {
struct GeluAct {
  Tensor operator()(const Tensor &x) const { return kiln::gelu(x); }
};
namespace nn {
struct TanhAct {
  Tensor operator()(const Tensor &x) const { return kiln::tanh(x); }
};
} // namespace nn
template <class Act> struct Mlp {
  Tensor w;
  Act act;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return x + act(kiln::matmul(x, w));
  }
};

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({n, 4}, 1), w = kiln::randn({4, 4}, 2);
  std::printf("power 2: %f\n", kiln::sum(power_norm<2>(x) * x).item<float>());
  std::printf("power 3: %f\n", kiln::sum(power_norm<3>(x) * x).item<float>());
  std::printf("scaled f: %f\n", kiln::sum(scaled(x, 0.5f) * x).item<float>());
  std::printf("scaled d: %f\n", kiln::sum(scaled(x, 2.5) * x).item<float>());
  Block<4> b4{w};
  Block<8> b8{w * 0.5f};
  std::printf("block 4: %f\n", kiln::sum(b4.forward(x) * x).item<float>());
  std::printf("block 8: %f\n", kiln::sum(b8.forward(x) * x).item<float>());
  std::printf("differ: %f %f\n", kiln::sum(differ<true>(x)).item<float>(),
              kiln::sum(differ<false>(x)).item<float>());
  Mlp<GeluAct> gelu_mlp{w, {}};
  Mlp<nn::TanhAct> tanh_mlp{w * 0.5f, {}};
  std::printf("mlp: %f %f\n", kiln::sum(gelu_mlp.forward(x) * x).item<float>(),
              kiln::sum(tanh_mlp.forward(x) * x).item<float>());
  return 0;
}
