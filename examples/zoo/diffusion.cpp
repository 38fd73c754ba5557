// A diffusion model's sampling step (DDPM's ancestral sampler), written as
// ported from PyTorch: the noise schedule computed and held in float64, as
// the reference implementations keep it, a small denoiser conditioned on a
// learned time embedding, and the update
//   x[t-1] = (x[t] - beta[t] / sqrt(1 - abar[t]) * eps) / sqrt(1 - beta[t])
//            + sqrt(beta[t]) * z            (no noise at t = 0)
// whose float64 coefficients are cast to the samples' float32. The loop over
// the steps stays in main; KILN_COMPILE() on Sampler::step. Then TRAIN steps
// of DDPM's training (KILN_COMPILE() on Sampler::loss: the data noised to
// step t in closed form, the denoiser's error in predicting the noise),
// AdamW on the denoiser's parameters.
//
//   diffusion [SAMPLES] [STEPS] [TRAIN]   (default 4 samples of 16 features,
//                                          10 steps, no training)
#include <kiln/kiln.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct NoiseSchedule {
  Tensor betas;          // [T] f64
  Tensor alphas_cumprod; // [T] f64
};

// Linear betas from 1e-4 to 0.02, as DDPM; abar[t] = prod(1 - beta[0..t]).
NoiseSchedule linear_schedule(int64_t steps) {
  std::vector<double> betas, cumprod;
  double product = 1.0;
  for (int64_t t = 0; t < steps; ++t) {
    double beta = 1e-4 + (0.02 - 1e-4) * static_cast<double>(t) / static_cast<double>(steps - 1);
    product *= 1.0 - beta;
    betas.push_back(beta);
    cumprod.push_back(product);
  }
  return {kiln::from_vector(betas, {steps}), kiln::from_vector(cumprod, {steps})};
}

struct Denoiser {
  Tensor w1, b1, w2, b2;  // features -> hidden -> features
  Tensor time_embedding; // [T, hidden], learned

  // The noise it predicts in x at step t.
  Tensor operator()(const Tensor &x, int64_t t) const {
    Tensor temb = time_embedding.slice(0, t, t + 1); // [1, hidden]
    Tensor h = kiln::silu(kiln::linear(x, w1, b1) + temb);
    return kiln::linear(h, w2, b2);
  }
};

struct Sampler {
  Denoiser model;
  NoiseSchedule schedule;

  // x[t-1] from x[t]; noise is z ~ N(0, 1), unused at t = 0.
  KILN_COMPILE() Tensor step(const Tensor &x, int64_t t, const Tensor &noise) const {
    Tensor beta = schedule.betas.slice(0, t, t + 1); // f64 [1]
    Tensor alpha_bar = schedule.alphas_cumprod.slice(0, t, t + 1);
    Tensor eps = model(x, t);
    Tensor eps_scale = (beta / kiln::sqrt(1.0 - alpha_bar)).to(kiln::kFloat32);
    Tensor inv_sqrt_alpha = kiln::rsqrt(1.0 - beta).to(kiln::kFloat32);
    Tensor mean = (x - eps_scale * eps) * inv_sqrt_alpha;
    if (t == 0)
      return mean;
    Tensor sigma = kiln::sqrt(beta).to(kiln::kFloat32);
    return mean + sigma * noise;
  }

  // DDPM's simple loss at step t: x0 noised to step t,
  // x_t = sqrt(abar[t]) x0 + sqrt(1 - abar[t]) noise, and the mean squared
  // error of the noise the model predicts in it.
  KILN_COMPILE() Tensor loss(const Tensor &x0, int64_t t, const Tensor &noise) const {
    Tensor alpha_bar = schedule.alphas_cumprod.slice(0, t, t + 1).to(kiln::kFloat32);
    Tensor xt = kiln::sqrt(alpha_bar) * x0 + kiln::sqrt(1.0 - alpha_bar) * noise;
    Tensor err = model(xt, t) - noise;
    return (err * err).mean();
  }
};

int main(int argc, char **argv) {
  const int64_t samples = argc > 1 ? std::atoll(argv[1]) : 4;
  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 10;
  const int64_t features = 16, hidden = 32;
  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; };
  Sampler sampler{Denoiser{normal({hidden, features}, 0.25), normal({hidden}, 0.1),
                           normal({features, hidden}, 0.18), normal({features}, 0.1),
                           normal({steps, hidden}, 0.5)},
                  linear_schedule(steps)};
  Tensor x = kiln::randn({samples, features}, 1000);
  for (int64_t t = steps - 1; t >= 0; --t)
    x = sampler.step(x, t, kiln::randn({samples, features}, 2000 + static_cast<uint64_t>(t)));
  Tensor w = kiln::arange(features).to(kiln::kFloat32) / static_cast<float>(features);
  std::printf("DDPM: %lld samples of %lld features, %lld steps\n",
              static_cast<long long>(samples), static_cast<long long>(features),
              static_cast<long long>(steps));
  std::printf("x sum %.5f squares %.5f weighted %.5f\n", kiln::sum(x).item<float>(),
              kiln::sum(x * x).item<float>(), kiln::sum(x * w).item<float>());

  const int64_t train_steps = argc > 3 ? std::atoll(argv[3]) : 0;
  Denoiser &m = sampler.model;
  std::vector<Tensor> params = {m.w1, m.b1, m.w2, m.b2, m.time_embedding};
  for (Tensor &p : params)
    p.requires_grad_();
  kiln::optim::AdamW opt(params, kiln::optim::AdamWOptions(1e-2).weight_decay(0.01));
  Tensor data = kiln::randn({samples, features}, 3000) * 0.5 + 1.0;
  for (int64_t i = 0; i < train_steps; ++i) {
    opt.zero_grad();
    int64_t t = (i * 5 + 3) % steps;
    Tensor noise = kiln::randn({samples, features}, 4000 + static_cast<uint64_t>(i));
    Tensor loss = sampler.loss(data, t, noise);
    loss.backward();
    opt.step();
    std::printf("step %lld t %lld loss %.6f\n", static_cast<long long>(i),
                static_cast<long long>(t), loss.item<float>());
  }
  return 0;
}
