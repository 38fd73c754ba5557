// A small CNN: conv2d + relu, a strided conv2d + relu, then a linear layer
// over the flattened features. It runs both ways (eagerly through a
// KILN_DISABLE() function, below which nothing is compiled) and prints the
// results and timings side by side.
//
//   cnn [BATCH]   (default 8 images of 3 x 32 x 32, 10 classes)
#include <kiln/kiln.h>

#include "../common/side_by_side.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct Cnn {
  Tensor w1, b1, w2, b2, w3, b3;

  KILN_COMPILE(fullgraph = true) Tensor forward(const Tensor &x) const {
    Tensor h = kiln::relu(kiln::conv2d(x, w1, b1, 1, 1));   // [N, 16, 32, 32]
    h = kiln::relu(kiln::conv2d(h, w2, b2, 2, 1));          // [N, 32, 16, 16]
    return kiln::linear(h.reshape({h.size(0), -1}), w3, b3); // [N, 10]
  }
};

// The same forward pass, eagerly.
KILN_DISABLE() Tensor eager_forward(const Cnn &net, const Tensor &x) { return net.forward(x); }

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 8;
  Cnn net{kiln::randn({16, 3, 3, 3}, 1) * 0.2,  kiln::randn({16}, 2) * 0.1,
          kiln::randn({32, 16, 3, 3}, 3) * 0.08, kiln::randn({32}, 4) * 0.1,
          kiln::randn({10, 32 * 16 * 16}, 5) * 0.01, kiln::randn({10}, 6) * 0.1};
  Tensor x = kiln::randn({batch, 3, 32, 32}, 7);

  std::printf("Kiln CNN example: batch %lld of 3x32x32 -> 10 classes\n",
              static_cast<long long>(batch));
  examples::sideBySide(
      "logits[:2]", [&] { return eager_forward(net, x); }, [&] { return net.forward(x); },
      [](const Tensor &t) { return t.slice(0, 0, 2); });
  return 0;
}
