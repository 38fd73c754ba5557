// A ResNet-style CNN, written as ported from PyTorch: conv modules that hold
// their stride and padding as members, basic blocks in a std::vector run by
// range-for, a projection shortcut where a block changes width or
// resolution, global average pooling and a linear head. Batch norm is folded
// into the convolutions' weights and biases, as inference deployments do.
// One KILN_COMPILE() on ResNet::forward. The program prints checksums of
// the logits, then trains STEPS AdamW steps of the logits towards a target
// (with `kiln compile --autograd` the forward's compiled backward runs the
// convolutions' gradients).
//
//   resnet [BATCH] [SIZE] [STEPS]   (default 2 images of 16x16, no
//                                    training; 3 stages of widths 8, 16, 32)
#include <kiln/kiln.h>

#include "train_to_target.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Conv2d {
  Tensor weight, bias; // [out, in, k, k], [out]
  int64_t stride = 1;
  int64_t padding = 0;

  Tensor operator()(const Tensor &x) const {
    return kiln::conv2d(x, weight, bias, stride, padding);
  }
};

struct BasicBlock {
  Conv2d conv1, conv2;
  bool has_projection = false;
  Conv2d projection; // 1x1, with conv1's stride, when has_projection

  Tensor operator()(const Tensor &x) const {
    Tensor h = kiln::relu(conv1(x));
    h = conv2(h);
    Tensor shortcut = has_projection ? projection(x) : x;
    return kiln::relu(h + shortcut);
  }
};

struct ResNet {
  Conv2d stem;
  std::vector<BasicBlock> blocks;
  Tensor fc_weight, fc_bias; // [classes, width], [classes]

  KILN_COMPILE() Tensor forward(const Tensor &images) const {
    Tensor x = kiln::relu(stem(images));
    for (const BasicBlock &block : blocks)
      x = block(x);
    Tensor pooled = x.mean({2, 3}); // global average pooling: [N, C]
    return kiln::linear(pooled, fc_weight, fc_bias);
  }
};

namespace {

uint64_t seed = 1;

// He initialisation; the bias stands for a folded batch norm's shift.
Conv2d make_conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  double std = std::sqrt(2.0 / static_cast<double>(in * kernel * kernel));
  return Conv2d{kiln::randn({out, in, kernel, kernel}, seed++) * std,
                kiln::randn({out}, seed++) * 0.1, stride, kernel / 2};
}

ResNet make_resnet(int64_t classes) {
  ResNet net;
  net.stem = make_conv(3, 8, 3, 1);
  int64_t width = 8;
  for (int64_t stage_width : {8, 16, 32}) {
    for (int b = 0; b < 2; ++b) {
      int64_t stride = (b == 0 && stage_width != width) ? 2 : 1;
      BasicBlock block;
      block.conv1 = make_conv(width, stage_width, 3, stride);
      block.conv2 = make_conv(stage_width, stage_width, 3, 1);
      if (stride != 1 || width != stage_width) {
        block.has_projection = true;
        block.projection = make_conv(width, stage_width, 1, stride);
      }
      net.blocks.push_back(block);
      width = stage_width;
    }
  }
  net.fc_weight = kiln::randn({classes, width}, seed++) * (1.0 / std::sqrt(double(width)));
  net.fc_bias = kiln::zeros({classes});
  return net;
}

} // namespace

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  const int64_t size = argc > 2 ? std::atoll(argv[2]) : 16;
  const int64_t classes = 10;
  ResNet net = make_resnet(classes);
  Tensor images = kiln::randn({batch, 3, size, size}, 1000);
  Tensor logits = net.forward(images);
  Tensor w = kiln::arange(classes).to(kiln::kFloat32) / static_cast<float>(classes);
  std::printf("ResNet (%zu blocks): %lld images of %lldx%lld -> logits [%lld, %lld]\n",
              net.blocks.size(), static_cast<long long>(batch), static_cast<long long>(size),
              static_cast<long long>(size), static_cast<long long>(logits.size(0)),
              static_cast<long long>(logits.size(1)));
  std::printf("logits sum %.5f squares %.5f weighted %.5f\n", kiln::sum(logits).item<float>(),
              kiln::sum(logits * logits).item<float>(), kiln::sum(logits * w).item<float>());

  const int64_t steps = argc > 3 ? std::atoll(argv[3]) : 0;
  std::vector<Tensor> params = {net.stem.weight, net.stem.bias, net.fc_weight, net.fc_bias};
  for (const BasicBlock &block : net.blocks)
    for (const Conv2d *conv : {&block.conv1, &block.conv2, &block.projection})
      if (conv->weight.defined())
        params.insert(params.end(), {conv->weight, conv->bias});
  train(params, steps, kiln::randn({batch, classes}, 2000),
        [&] { return net.forward(images); });
  return 0;
}
