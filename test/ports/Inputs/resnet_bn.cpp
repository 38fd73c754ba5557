// A ResNet-18-style classifier ported the way torchvision's is written:
// convolutions without bias (bias=False) each followed by a BatchNorm2d
// module in eval mode, whose running statistics are reshaped per channel
// by a small lambda; basic blocks with an optional 1x1 projection (with its
// own BatchNorm) where a stage changes width or resolution; max pooling
// after the stem; global average pooling and a linear head.
//
//   resnet_bn [BATCH] [SIZE]   (default 2 images of 32x32)
#include <kiln/kiln.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Conv2d {
  Tensor weight, bias; // bias undefined: bias=False
  int64_t stride = 1, padding = 0;
  Tensor forward(const Tensor &x) const {
    return kiln::conv2d(x, weight, bias, stride, padding);
  }
};

struct BatchNorm2d {
  Tensor weight, bias, running_mean, running_var;
  double eps = 1e-5;
  Tensor forward(const Tensor &x) const {
    const int64_t C = running_mean.size(0);
    auto chan = [C](const Tensor &t) { return t.reshape({1, C, 1, 1}); };
    Tensor inv_std = kiln::rsqrt(chan(running_var) + eps);
    return (x - chan(running_mean)) * inv_std * chan(weight) + chan(bias);
  }
};

struct BasicBlock {
  Conv2d conv1;
  BatchNorm2d bn1;
  Conv2d conv2;
  BatchNorm2d bn2;
  bool has_downsample = false;
  Conv2d downsample_conv; // undefined when has_downsample is false
  BatchNorm2d downsample_bn;

  Tensor forward(const Tensor &x) const {
    Tensor out = kiln::relu(bn1.forward(conv1.forward(x)));
    out = bn2.forward(conv2.forward(out));
    Tensor identity = x;
    if (has_downsample)
      identity = downsample_bn.forward(downsample_conv.forward(x));
    return kiln::relu(out + identity);
  }
};

struct ResNet {
  Conv2d conv1;
  BatchNorm2d bn1;
  std::vector<BasicBlock> layers;
  Tensor fc_weight, fc_bias;

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = kiln::relu(bn1.forward(conv1.forward(x)));
    h = kiln::max_pool2d(h, 3, 2, 1);
    for (const auto &block : layers)
      h = block.forward(h);
    h = kiln::adaptive_avg_pool2d(h, {1, 1}).flatten(1);
    return kiln::linear(h, fc_weight, fc_bias);
  }
};

namespace {
uint64_t seed = 1;

Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride) {
  return Conv2d{kiln::randn({out, in, k, k}, seed++) * (1.0 / (k * k * in)),
                Tensor(), stride, k / 2};
}

BatchNorm2d batch_norm(int64_t c) {
  return BatchNorm2d{1.0 + kiln::randn({c}, seed++) * 0.1,
                     kiln::randn({c}, seed++) * 0.1,
                     kiln::randn({c}, seed++) * 0.1,
                     0.5 + kiln::rand({c}, seed++)};
}

BasicBlock block(int64_t in, int64_t out, int64_t stride) {
  BasicBlock b{conv(in, out, 3, stride), batch_norm(out), conv(out, out, 3, 1),
               batch_norm(out)};
  if (stride != 1 || in != out) {
    b.has_downsample = true;
    b.downsample_conv = conv(in, out, 1, stride);
    b.downsample_bn = batch_norm(out);
  }
  return b;
}
} // namespace

int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t size = argc > 2 ? std::atoll(argv[2]) : 32;
  ResNet net{conv(3, 16, 7, 2), batch_norm(16), {}, {}, {}};
  int64_t width = 16;
  for (int64_t stage = 0; stage < 3; ++stage) {
    int64_t out = 16 << stage;
    net.layers.push_back(block(width, out, stage == 0 ? 1 : 2));
    net.layers.push_back(block(out, out, 1));
    width = out;
  }
  net.fc_weight = kiln::randn({10, width}, seed++) * 0.1;
  net.fc_bias = kiln::randn({10}, seed++) * 0.1;
  Tensor images = kiln::randn({batch, 3, size, size}, 1000);
  Tensor logits = net.forward(images);
  std::printf("logits [%lld, %lld]\n", (long long)logits.size(0),
              (long long)logits.size(1));
  for (int64_t i = 0; i < logits.size(0); ++i)
    std::printf("%.5f %.5f\n", logits.select(0, i).select(0, 0).item<float>(),
                logits.select(0, i).select(0, 9).item<float>());
  std::printf("sum %.5f\n", kiln::sum(logits * logits).item<float>());
}
