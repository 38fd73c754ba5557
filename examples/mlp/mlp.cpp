// A two-layer perceptron written against Kiln's tensor library: the model of
// DESIGN section 1. Built with any compiler it runs eagerly; `kiln compile`
// turns forward() into compiled graphs around the disabled log_stats().
//
//   mlp [BATCH]      runs one batch (default 64) and prints the logits
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

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

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 64;
  const int64_t in = 256, hidden = 1024, out = 10;
  Mlp model{kiln::randn({in, hidden}, 1) * 0.05, kiln::zeros({hidden}),
            kiln::randn({hidden, out}, 2) * 0.05, kiln::full({out}, 0.1)};
  Tensor x = kiln::randn({batch, in}, 3);

  std::printf("Kiln MLP example: batch %lld, %lld -> %lld -> %lld\n",
              static_cast<long long>(batch), static_cast<long long>(in),
              static_cast<long long>(hidden), static_cast<long long>(out));
  // The median of 10 runs after a warm-up.
  Tensor logits = model.forward(x);
  std::vector<double> times;
  for (int i = 0; i < 10; ++i) {
    auto start = std::chrono::steady_clock::now();
    logits = model.forward(x);
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());

  std::cout << "logits[:2] = " << logits.slice(0, 0, 2) << "\n";
  std::printf("max logit of row 0: %.4f\n",
              kiln::amax(logits.slice(0, 0, 1)).item<float>());
  std::printf("forward: %.3f ms\n", times[times.size() / 2]);
  return 0;
}
