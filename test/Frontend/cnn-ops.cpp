// Tests the CNN ops as ported model code calls them: a MobileNet-style
// block (a depthwise conv2d with groups = channels, a dilated conv2d, a
// grouped 1x1 conv2d), pooling modules that hold their kernel, stride and
// padding as members (max_pool2d with padding and dilation, and with
// ceil_mode;
// avg_pool2d with and without the padding counted, a divisor override),
// adaptive_avg_pool2d to 1x1 and to sizes that do not divide the input, and
// a grouped, dilated conv1d, interpolate (nearest and bilinear, by a
// factor or to a size) and conv_transpose2d. Each graph compiles and matches eager at sizes
// the source never names; an input smaller than a pooling window fails the
// graph's shape check and reruns eagerly, raising eager's error (the ERR
// runs: compiled and eager print the same).
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 2 9
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 14
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 1 7
// RUN: %t/ref 1 2 | FileCheck %s --check-prefix=ERR
// RUN: %t/cpu 1 2 | FileCheck %s --check-prefix=ERR
// ERR: error: max_pool2d: the input [2, 4] padded by [1, 1] is smaller than the kernel [3, 3] (dilated)
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct Conv2d {
  Tensor weight, bias;
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
  Tensor operator()(const Tensor &x) const {
    return kiln::conv2d(x, weight, bias, stride, padding, dilation, groups);
  }
};

struct MaxPool2d {
  int64_t kernel = 3, stride = 2, padding = 1, dilation = 2;
  bool ceil_mode = false;
  Tensor operator()(const Tensor &x) const {
    return kiln::max_pool2d(x, kernel, stride, padding, dilation, ceil_mode);
  }
};

struct MobileBlock {
  Conv2d depthwise, dilated, pointwise;
  MaxPool2d pool;
  // CHECK-LABEL: MobileBlock::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = kiln::relu(depthwise(x));
    h = h + dilated(h);
    h = kiln::silu(pointwise(h));
    return pool(h);
  }
};

// Literal windows, the {h, w} spellings, and the averaging variants.
// CHECK-LABEL: pools (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor pools(const Tensor &x) {
  Tensor a = kiln::avg_pool2d(x, 2);
  Tensor b = kiln::avg_pool2d(x, {3, 2}, {2, 1}, {1, 1}, true, false);
  Tensor c = kiln::avg_pool2d(x, 3, 1, 1, false, true, 4);
  Tensor m = kiln::max_pool2d(x, {2, 3}, {}, {1, 0});
  Tensor e = kiln::max_pool2d(x, 3, 2, 1, 2, true);
  Tensor g = kiln::adaptive_avg_pool2d(x, 1).flatten(1);
  Tensor s = kiln::adaptive_avg_pool2d(x, {3, 2});
  return kiln::sum(a) + kiln::sum(b * b) + kiln::sum(c) + kiln::sum(m) + kiln::sum(e) +
         kiln::sum(g * g) + kiln::sum(s * 3.0f);
}

// conv1d with dilation and groups.
// CHECK-LABEL: sequence (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor sequence(const Tensor &x, const Tensor &w, const Tensor &b) {
  return kiln::conv1d(x, w, b, 1, 2, 2, 2);
}

// A decoder's upsampling: nearest by a factor, bilinear to a size (with and
// without align_corners), and a size held in a member.
struct Upsample {
  int64_t height = 5, width = 7;
  // CHECK-LABEL: Upsample::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor a = kiln::interpolate(x, 2.0);
    Tensor b = kiln::interpolate(x, {x.size(2) + 3, 4}, "bilinear");
    Tensor c = kiln::interpolate(x, {height, width}, "bilinear", true);
    Tensor d = kiln::interpolate(x, {height, width});
    return kiln::sum(a) + kiln::sum(b * b) + kiln::sum(c) +
           kiln::sum(d * 0.5f);
  }
};

// A decoder's learned upsampling: a module holding its stride, padding and
// output_padding, and a grouped, dilated call with literals.
struct ConvTranspose2d {
  Tensor weight, bias;
  int64_t stride = 2, padding = 1, output_padding = 1;
  // CHECK-LABEL: ConvTranspose2d::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor up = kiln::conv_transpose2d(x, weight, bias, stride, padding,
                                       output_padding);
    Tensor wide = kiln::conv_transpose2d(x, weight.narrow(1, 0, 1), Tensor(),
                                         {1, 2}, {2, 0}, {0, 1}, 2, {2, 1});
    return kiln::sum(up * up) + kiln::sum(wide);
  }
};

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t S = argc > 2 ? std::atoll(argv[2]) : 9;
  const int64_t C = 4;
  MobileBlock block{
      {kiln::randn({C, 1, 3, 3}, 1) * 0.5f, kiln::randn({C}, 2), 1, 1, 1, C},
      {kiln::randn({C, 2, 3, 3}, 3) * 0.3f, Tensor(), 1, 2, 2, 2},
      {kiln::randn({2 * C, 2, 1, 1}, 4), kiln::randn({2 * C}, 5), 1, 0, 1,
       2},
      {}};
  try {
    Tensor x = kiln::randn({B, C, S, S + 2}, 6);
    std::cout << block.forward(x) << "\n";
    std::printf("pools %.4f\n", pools(x).item<float>());
    Upsample up{S - 1, S + 4};
    std::printf("upsample %.4f\n", up.forward(x).item<float>());
    ConvTranspose2d deconv{kiln::randn({C, 3, 3, 3}, 10) * 0.3f,
                           kiln::randn({3}, 11)};
    std::printf("deconv %.4f\n", deconv.forward(x).item<float>());
    Tensor seq = kiln::randn({B, C, 3 * S}, 7);
    Tensor w = kiln::randn({6, 2, 3}, 8), b = kiln::randn({6}, 9);
    std::cout << sequence(seq, w, b) << "\n";
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
