// A two-layer perceptron written against Kiln's tensor library: the model of
// DESIGN section 1. Built with any compiler it runs eagerly; `kiln compile`
// turns forward() into compiled graphs around the disabled log_stats().
// It runs the batch both ways (eagerly through a KILN_DISABLE() function,
// below which nothing is compiled) and prints the results and timings side
// by side.
//
//   mlp [BATCH]      runs one batch (default 64)
#include <kiln/kiln.h>

#include "../common/side_by_side.h"

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_DISABLE() Tensor log_stats(const Tensor &x) { // never compiled
  static int calls = 0;
  if (calls++ == 0)
    std::printf("hidden mean=%.4f\n", kiln::mean(x).item<float>());
  return x;
}

struct Mlp { // models hold their weights
  Tensor w1, b1, w2, b2;

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = kiln::gelu(kiln::matmul(x, w1) + b1);
    h = log_stats(h); // graph break: disabled callee
    return kiln::matmul(h, w2) + b2;
  }
};

// The same forward pass, eagerly.
KILN_DISABLE() Tensor eager_forward(const Mlp &model, const Tensor &x) {
  return model.forward(x);
}

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 64;
  const int64_t in = 256, hidden = 1024, out = 10;
  Mlp model{kiln::randn({in, hidden}, 1) * 0.05, kiln::zeros({hidden}),
            kiln::randn({hidden, out}, 2) * 0.05, kiln::full({out}, 0.1)};
  Tensor x = kiln::randn({batch, in}, 3);

  std::printf("Kiln MLP example: batch %lld, %lld -> %lld -> %lld\n",
              static_cast<long long>(batch), static_cast<long long>(in),
              static_cast<long long>(hidden), static_cast<long long>(out));
  examples::sideBySide(
      "logits[:2]", [&] { return eager_forward(model, x); }, [&] { return model.forward(x); },
      [](const Tensor &t) { return t.slice(0, 0, 2); });
  return 0;
}
