// Tests op arguments held in modules: a LayerNorm's and an RMSNorm's eps as
// members (a float and a double) and as a parameter, and a conv's stride
// and padding as members. Each is an operand of the graph read at run time
// (`kiln.layer_norm ... eps_value`), not a break. The compiled program, and
// the one built with --backend=eager, print what the eager build prints for
// eps values and sizes the source never names, every graph running
// compiled.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpu.cpp --log=graph_code 2>&1 | FileCheck %s --check-prefix=KILN
// RUN: env KILN_MIN_COMPILED_PERCENT=100 %matches_eager %s %t 3 0.25
// RUN: env KILN_MIN_COMPILED_PERCENT=100 %matches_eager %s %t 7 1e-6
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %t/ref 5 2 > %t.ref.txt
// RUN: %t.eager 5 2 > %t.eager.txt
// RUN: %compare %t.ref.txt %t.eager.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct LayerNorm {
  Tensor weight, bias;
  float eps = 1e-5f;
  Tensor operator()(const Tensor &x) const {
    return kiln::layer_norm(x, weight, bias, eps);
  }
};

struct RMSNorm {
  Tensor weight;
  double eps;
  Tensor operator()(const Tensor &x) const {
    return kiln::rms_norm(x, weight, eps);
  }
};

struct Conv {
  Tensor w;
  int64_t stride = 1, padding = 0;
  Tensor operator()(const Tensor &x) const {
    return kiln::conv2d(x, w, Tensor(), stride, padding);
  }
};

// CHECK-LABEL: norms (
// CHECK-NOT: Graph breaks
// CHECK: inputs: x (f32 tensor of rank 2) ln.weight (f32 tensor of rank 1) ln.bias (f32 tensor of rank 1) ln.eps (float) rms.weight (f32 tensor of rank 1) rms.eps (double) eps (double)
// CHECK: %[[W:t[0-9]+]] = cast_like(%1, %0)
// CHECK: %[[B:t[0-9]+]] = cast_like(%2, %0)
// CHECK: layer_norm(%0, %[[W]], %[[B]], %{{[0-9]+}}) {eps = 0.000000e+00}
// CHECK: rms_norm(%{{[0-9]+}}, %t{{[0-9]+}}, %{{[0-9]+}}) {eps = 0.000000e+00}
// CHECK: %[[W2:t[0-9]+]] = cast_like(%1,
// CHECK: layer_norm(%{{[0-9]+}}, %[[W2]], _, %{{[0-9]+}}) {eps = 0.000000e+00}
// CHECK-LABEL: conv (
// CHECK-NOT: Graph breaks
// CHECK: conv2d(%0, %1, _, %2, %2, %3, %3) {dilation = [1, 1], groups = 1, padding = [?, ?], strides = [?, ?]}
// KILN: kiln.layer_norm %{{.*}}, %{{.*}}, %{{.*}} eps_value %{{.*}} {eps = 0.000000e+00 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, f64) -> tensor<?x?xf32>
// KILN: kiln.rms_norm %{{.*}}, %{{.*}} eps_value %{{.*}} {eps = 0.000000e+00 : f64} : (tensor<?x?xf32>, tensor<?xf32>, f64) -> tensor<?x?xf32>
KILN_COMPILE()
Tensor norms(const LayerNorm &ln, const RMSNorm &rms, const Tensor &x,
             double eps) {
  Tensor h = rms(ln(x));
  return kiln::layer_norm(h * 2.0f, ln.weight, Tensor(), eps);
}

KILN_COMPILE() Tensor conv(const Conv &c, const Tensor &x) { return c(x); }

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  double eps = argc > 2 ? std::atof(argv[2]) : 1e-5;
  LayerNorm ln{kiln::randn({6}, 1), kiln::randn({6}, 2),
               static_cast<float>(eps)};
  RMSNorm rms{kiln::randn({6}, 3), eps * 4};
  // Large eps values change the result visibly.
  Tensor x = kiln::randn({n, 6}, 4) * 0.1f;
  std::printf("norms %.5f\n", kiln::sum(kiln::abs(norms(ln, rms, x, eps)))
                                  .item<float>());
  Conv c{kiln::randn({2, 3, 3, 3}, 5), n % 3 + 1, n % 2};
  std::printf("conv %.5f\n",
              kiln::sum(kiln::abs(conv(c, kiln::randn({2, 3, n + 4, 9}, 6))))
                  .item<float>());
}
