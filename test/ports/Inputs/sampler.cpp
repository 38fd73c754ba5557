// A DDPM/DDIM-style sampler ported from a PyTorch diffusion codebase: the
// noise schedule is computed once in float64 by a compiled function (a
// cosine schedule's cumulative alphas), held by the sampler in members given
// by aggregate initialization, and each step reads the coefficients at a
// run-time timestep, casts them to float32 and updates the sample; the
// denoiser is a small conditioned MLP with a sinusoidal time embedding.
//
//   sampler [BATCH] [STEPS]   (default 2 samples, 10 steps)
#include <kiln/kiln.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// alphas_bar(t) = cos((t / T + s) / (1 + s) * pi / 2)^2, normalized, for
// t = 0 .. T: float64 [T + 1].
KILN_COMPILE() Tensor cosine_alphas_bar(const Tensor &t, int64_t T, double s) {
  Tensor f = kiln::cos((t / double(T) + s) / (1.0 + s) * (M_PI / 2));
  Tensor ab = f * f;
  return ab / ab.slice(0, 0, 1);
}

struct Schedule {
  Tensor betas, alphas_bar; // float64 [T]
};

Schedule make_schedule(int64_t T) {
  Tensor ab = cosine_alphas_bar(kiln::arange(T + 1).to(kiln::kFloat64), T, 0.008);
  Tensor betas = kiln::clamp(1.0 - ab.slice(0, 1, T + 1) / ab.slice(0, 0, T), 0.0, 0.999);
  return Schedule{betas, kiln::cumprod(1.0 - betas, 0)};
}

struct Denoiser {
  Tensor w1, b1, w2, b2, wt; // [H, D], [H], [D, H], [D], [H, E]
  Tensor operator()(const Tensor &x, const Tensor &t_emb) const {
    Tensor h = kiln::silu(kiln::linear(x, w1, b1) + kiln::linear(t_emb, wt));
    return kiln::linear(h, w2, b2);
  }
};

struct Sampler {
  Denoiser model;
  Schedule schedule;
  int64_t emb_dim = 8;

  Tensor time_embedding(int64_t t) const {
    Tensor freqs = kiln::exp(kiln::arange(emb_dim / 2).to(kiln::kFloat32) *
                             (-std::log(10000.0) / (emb_dim / 2)));
    Tensor args = freqs * float(t);
    return kiln::cat({kiln::sin(args), kiln::cos(args)}, 0).unsqueeze(0);
  }

  KILN_COMPILE() Tensor step(const Tensor &x, int64_t t, const Tensor &noise) const {
    Tensor beta = schedule.betas.slice(0, t, t + 1).to(kiln::kFloat32);
    Tensor ab = schedule.alphas_bar.slice(0, t, t + 1).to(kiln::kFloat32);
    Tensor eps = model(x, time_embedding(t));
    Tensor mean = (x - beta / kiln::sqrt(1.0 - ab) * eps) / kiln::sqrt(1.0 - beta);
    if (t == 0)
      return mean;
    return mean + kiln::sqrt(beta) * noise;
  }
};

int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t steps = argc > 2 ? std::atoll(argv[2]) : 10;
  const int64_t D = 6, H = 16, E = 8;
  Sampler sampler{Denoiser{kiln::randn({H, D}, 1) * 0.3, kiln::randn({H}, 2) * 0.1,
                           kiln::randn({D, H}, 3) * 0.3, kiln::randn({D}, 4) * 0.1,
                           kiln::randn({H, E}, 5) * 0.3},
                  make_schedule(steps), E};
  Tensor x = kiln::randn({batch, D}, 100);
  for (int64_t t = steps - 1; t >= 0; --t)
    x = sampler.step(x, t, kiln::randn({batch, D}, 200 + static_cast<uint64_t>(t)));
  for (int64_t i = 0; i < batch; ++i)
    std::printf("%.5f %.5f\n", x.select(0, i).select(0, 0).item<float>(),
                x.select(0, i).select(0, D - 1).item<float>());
  std::printf("sum %.5f\n", kiln::sum(x * x).item<float>());
}
