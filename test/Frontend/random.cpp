// Tests kiln::randn, kiln::rand and kiln::randint inside compiled code, as
// samplers and augmentations call them: a diffusion step that adds noise
// drawn from a seed the caller passes, a dropout-style keep mask from
// rand, random indices from randint (with and without a low bound), and
// float64 draws. The compiled graphs draw the same numbers as eager
// (kiln.random hashes each element's index with the seed as the runtime
// does) at sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 2 5 7
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 9 123456789
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

struct Sampler {
  double sigma = 0.5;
  // CHECK-LABEL: Sampler::step (
  // CHECK-NOT: Graph breaks
  // CHECK: random(
  KILN_COMPILE() Tensor step(const Tensor &x, uint64_t seed) const {
    Tensor noise = kiln::randn({x.size(0), x.size(1)}, seed);
    Tensor keep = kiln::rand({x.size(0), x.size(1)}, seed + 1) < 0.8f;
    Tensor h = x + noise * sigma;
    return kiln::where(keep, h / 0.8f, 0.0f);
  }
};

// CHECK-LABEL: draws (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor draws(const Tensor &x, uint64_t seed) {
  int64_t n = x.size(0);
  Tensor ids = kiln::randint(-3, 4, {n, 3}, seed);
  Tensor picks = kiln::randint(10, {n}, seed + 2, kiln::kInt32);
  Tensor wide = kiln::rand({n, 2}, seed, kiln::kFloat64);
  Tensor gauss = kiln::randn({2 * n + 1}, seed * 3, kiln::kFloat64);
  return kiln::sum(ids.to(kiln::kFloat32)) * 0.25f +
         kiln::sum(picks.to(kiln::kFloat32)) +
         kiln::sum(wide * gauss.narrow(0, 0, 2)).to(kiln::kFloat32) +
         kiln::sum(x);
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t C = argc > 2 ? std::atoll(argv[2]) : 5;
  uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 7;
  Tensor x = kiln::randn({B, C}, 1);
  Sampler sampler;
  std::cout << sampler.step(x, seed) << "\n";
  std::printf("draws %.6f\n", draws(x, seed).item<float>());
}
