// float32 products of GPT-2's and the sweep's shapes through the eager
// runtime, in GFLOP/s (best of several calls): kiln::linear (B stored
// [N, K], as nn.Linear holds its weight) and kiln::matmul (B stored
// [K, N]). benchmarks/products.sh runs it once per KILN_FLOAT_PRODUCTS
// choice, alternating, beside torch's products.
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

using kiln::Tensor;

template <typename F> static double bestSeconds(F f, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - t0)
                              .count());
  }
  return best;
}

int main() {
  // M x K x N: GPT-2 124M at B*T = 256 rows (qkv, MLP up and down, the lm
  // head, two weight gradients), and larger square-ish products.
  const int64_t shapes[][3] = {
      {256, 768, 2304},  {256, 768, 3072},   {256, 3072, 768},
      {256, 768, 50304}, {768, 256, 3072},   {3072, 256, 768},
      {1024, 768, 768},  {2048, 1024, 1024}, {64, 1024, 4096}};
  for (const auto &s : shapes) {
    int64_t m = s[0], k = s[1], n = s[2];
    Tensor a = kiln::randn({m, k}, 1), w = kiln::randn({n, k}, 2),
           b = kiln::randn({k, n}, 3);
    double flop = 2.0 * m * n * k;
    int reps = flop > 2e10 ? 5 : 20;
    double linear = bestSeconds([&] { Tensor c = kiln::linear(a, w); }, reps);
    double matmul = bestSeconds([&] { Tensor c = kiln::matmul(a, b); }, reps);
    std::printf("%lldx%lldx%lld %.0f %.0f\n", static_cast<long long>(m),
                static_cast<long long>(k), static_cast<long long>(n),
                flop / linear / 1e9, flop / matmul / 1e9);
  }
}
