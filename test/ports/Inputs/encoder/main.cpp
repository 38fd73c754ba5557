#include "encoder.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

//   encoder [BATCH] [LENGTH]   (default 2 sequences of 7 tokens)
int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t T = argc > 2 ? std::atoll(argv[2]) : 7;
  Encoder encoder = make_encoder(50, 64, 16, 2, 2);
  Tensor ids = kiln::randint(0, 50, {B, T}, 7);
  // The last tokens of every other sequence are padding.
  std::vector<bool> pad(B * T, false);
  for (int64_t b = 1; b < B; b += 2)
    for (int64_t t = T - 2; t < T; ++t)
      pad[b * T + t] = true;
  Tensor h = encoder.forward(ids, kiln::from_vector(pad, {B, T}));
  std::printf("hidden [%lld, %lld, %lld]\n", (long long)h.size(0),
              (long long)h.size(1), (long long)h.size(2));
  for (int64_t b = 0; b < B; ++b)
    std::printf("%.5f %.5f\n", h.select(0, b).select(0, 0).select(0, 0).item<float>(),
                kiln::sum(h.select(0, b)).item<float>());
  std::printf("sum %.5f\n", kiln::sum(h * h).item<float>());
}
