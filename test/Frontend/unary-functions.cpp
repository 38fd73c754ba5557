// Tests that the elementwise functions of one tensor are traced as free
// functions and as ATen-style methods, into one graph with the rest of the
// model's math, and that the compiled program prints what the eager build
// prints at sizes the source never names: a RoPE-style table from sin and
// cos, activations, rounding of a float and of an int64 tensor.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 3
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 10
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// CHECK-LABEL: features (
// CHECK-NOT: Graph breaks
// CHECK-DAG: sin(
// CHECK-DAG: cos(
// CHECK-DAG: tan(
// CHECK-DAG: atan(
// CHECK-DAG: erf(
// CHECK-DAG: erfc(
// CHECK-DAG: log1p(
// CHECK-DAG: expm1(
// CHECK-DAG: log2(
// CHECK-DAG: log10(
// CHECK-DAG: exp2(
// CHECK-DAG: reciprocal(
// CHECK-DAG: softplus(
// CHECK-DAG: mish(
// CHECK-DAG: hardswish(
// CHECK-DAG: hardsigmoid(
// CHECK-DAG: floor(
// CHECK-DAG: ceil(
// CHECK-DAG: round(
// CHECK-DAG: trunc(
// CHECK-DAG: square(
KILN_COMPILE()
Tensor features(const Tensor &positions, const Tensor &x, const Tensor &ids) {
  Tensor angles = positions * 0.1f;
  Tensor rope = kiln::sin(angles) * x + angles.cos() * x.tan().atan();
  Tensor errors = kiln::erf(x) + x.erfc() + kiln::log1p(kiln::abs(x)) +
                  x.expm1() * 0.01f + kiln::log2(x.square() + 1.0f) +
                  kiln::log10(kiln::abs(x) + 0.5f) +
                  (x.square() + 2.0f).log10() +
                  (x * 0.5f).exp2() + (kiln::abs(x) + 1.0f).reciprocal();
  Tensor acts = kiln::softplus(x) + x.mish() + kiln::hardswish(x) +
                x.hardsigmoid();
  Tensor rounded = kiln::floor(x * 3.0f) + x.ceil() + kiln::round(x * 2.0f) +
                   x.trunc() + ids.floor().to(kiln::kFloat32) +
                   kiln::square(ids).to(kiln::kFloat32);
  return rope + errors + acts + rounded;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor positions = kiln::arange(n).to(kiln::kFloat32).unsqueeze(1);
  Tensor x = kiln::randn({n, 8}, 1);
  Tensor ids = kiln::arange(n * 8).reshape({n, 8}) - 5;
  Tensor y = features(positions, x, ids);
  std::printf("features %.4f %.4f\n", kiln::sum(y).item<float>(),
              kiln::sum(kiln::abs(y)).item<float>());
}
