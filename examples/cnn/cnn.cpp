// A small CNN: conv2d + relu, a strided conv2d + relu, then a linear layer
// over the flattened features. It runs both ways (eagerly through a
// KILN_DISABLE() function, below which nothing is compiled) and prints the
// results and timings side by side.
//
//   cnn [BATCH]   (default 8 images of 3 x 32 x 32, 10 classes)
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

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

/// The median of 10 runs of fn after a warm-up, in ms, and its result.
template <typename Fn> double medianMs(Fn fn, Tensor &result) {
  result = fn();
  std::vector<double> times;
  for (int i = 0; i < 10; ++i) {
    auto start = std::chrono::steady_clock::now();
    result = fn();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 8;
  Cnn net{kiln::randn({16, 3, 3, 3}, 1) * 0.2,  kiln::randn({16}, 2) * 0.1,
          kiln::randn({32, 16, 3, 3}, 3) * 0.08, kiln::randn({32}, 4) * 0.1,
          kiln::randn({10, 32 * 16 * 16}, 5) * 0.01, kiln::randn({10}, 6) * 0.1};
  Tensor x = kiln::randn({batch, 3, 32, 32}, 7);

  std::printf("Kiln CNN example: batch %lld of 3x32x32 -> 10 classes\n",
              static_cast<long long>(batch));
  Tensor eager, compiled;
  double eagerMs = medianMs([&] { return eager_forward(net, x); }, eager);
  double compiledMs = medianMs([&] { return net.forward(x); }, compiled);
  std::cout << "eager    logits[:2] = " << eager.slice(0, 0, 2) << "\n";
  std::cout << "compiled logits[:2] = " << compiled.slice(0, 0, 2) << "\n";
  std::printf("max |compiled - eager| = %.3g\n",
              kiln::amax(kiln::abs(compiled - eager)).item<float>());
#if defined(KILN_STITCHED)
  const char *build = "compiled by kiln_compile";
#else
  const char *build = "not compiled: both columns eager";
#endif
  std::printf("time: forward eager %.3f ms, compiled %.3f ms: %.2fx (%s)\n", eagerMs,
              compiledMs, eagerMs / compiledMs, build);
  return 0;
}
