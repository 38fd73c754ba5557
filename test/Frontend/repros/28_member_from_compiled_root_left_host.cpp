// Repro 28 (shared/repros): a member whose value is another compile root's
// result (float64 [T]), given by aggregate initialization, is typed from
// that root's return: step compiles and runs compiled for every t (both
// arms of the ternary) where it used to be left as host code.
//
// RUN: kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --allow-empty --check-prefix=COMPILE
// RUN: %matches_eager %s %t
// COMPILE-NOT: could not compile
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;
KILN_COMPILE() Tensor cumulative(const Tensor &betas) { return kiln::exp(kiln::log(1.0 - betas)); }
Tensor schedule(int64_t T) { return cumulative(kiln::arange(T).to(kiln::kFloat64) * 0.01); }
struct Sampler {
  Tensor weight, alphas_bar; // alphas_bar: float64 [T]
  KILN_COMPILE() Tensor step(const Tensor &x, int64_t t) const {
    Tensor a = alphas_bar.slice(0, t, t + 1).to(kiln::kFloat32);
    Tensor prev = t > 0 ? alphas_bar.slice(0, t - 1, t).to(kiln::kFloat32) : kiln::ones({1});
    return x * weight * a / prev;
  }
};
int main() {
  Sampler s{kiln::randn({4}, 1), schedule(10)};
  Tensor x = kiln::randn({2, 4}, 2);
  for (int64_t t = 9; t >= 0; --t) x = s.step(x, t);
  std::printf("%.5f\n", kiln::sum(x).item<float>());
  // Another schedule length and batch than the source's.
  Sampler s2{kiln::randn({3}, 3), schedule(17)};
  Tensor z = kiln::randn({5, 3}, 4);
  for (int64_t t = 16; t >= 0; --t) z = s2.step(z, t);
  std::printf("%.5f\n", kiln::sum(z * z).item<float>());
}
