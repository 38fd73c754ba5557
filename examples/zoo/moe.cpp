// A mixture-of-experts feed-forward layer, written as ported from PyTorch:
// a router's softmax over the experts, the experts in a std::vector run by
// index, each output weighted by its gate column, and a load-balancing
// auxiliary loss returned beside the output. Every token goes through every
// expert (dense routing: top-k would read the router's values, a
// data-dependent choice). One KILN_COMPILE() on MoE::forward. Then STEPS
// AdamW steps of the output towards a target, the auxiliary loss added.
//
//   moe [TOKENS] [STEPS]   (default 10 tokens, no training; width 16, 4
//                           experts of width 32)
#include <kiln/kiln.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Expert {
  Tensor w1, b1, w2, b2;
  Tensor operator()(const Tensor &x) const {
    return kiln::silu(x.matmul(w1) + b1).matmul(w2) + b2;
  }
};

struct MoEOutput {
  Tensor y;
  Tensor aux_loss;
};

struct MoE {
  Tensor router; // [width, experts]
  std::vector<Expert> experts;

  KILN_COMPILE() MoEOutput forward(const Tensor &x) const {
    Tensor gates = x.matmul(router).softmax(-1); // [tokens, experts]
    Tensor y = kiln::zeros({x.size(0), x.size(1)});
    for (size_t e = 0; e < experts.size(); ++e) {
      Tensor gate = gates.slice(1, e, e + 1); // [tokens, 1]
      y = y + gate * experts[e](x);
    }
    // Switch-style balance: experts * sum(mean gate^2) over experts.
    Tensor importance = gates.mean({0});
    Tensor aux = (importance * importance).sum() * static_cast<float>(gates.size(1));
    return {y, aux};
  }
};

int main(int argc, char **argv) {
  const int64_t tokens = argc > 1 ? std::atoll(argv[1]) : 10;
  const int64_t width = 16, hidden = 32, n_experts = 4;
  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; };
  MoE moe{normal({width, n_experts}, 0.5), {}};
  for (int64_t e = 0; e < n_experts; ++e)
    moe.experts.push_back(Expert{normal({width, hidden}, 0.2), normal({hidden}, 0.1),
                                 normal({hidden, width}, 0.2), normal({width}, 0.1)});
  Tensor x = normal({tokens, width}, 1.0);
  MoEOutput out = moe.forward(x);
  Tensor w = kiln::arange(width).to(kiln::kFloat32) / static_cast<float>(width);
  std::printf("MoE (%lld experts): %lld tokens\n", static_cast<long long>(n_experts),
              static_cast<long long>(tokens));
  std::printf("y sum %.6f squares %.6f weighted %.6f\n", kiln::sum(out.y).item<float>(),
              kiln::sum(out.y * out.y).item<float>(), kiln::sum(out.y * w).item<float>());
  std::printf("aux loss %.6f\n", out.aux_loss.item<float>());

  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 0;
  std::vector<Tensor> params = {moe.router};
  for (const Expert &e : moe.experts)
    params.insert(params.end(), {e.w1, e.b1, e.w2, e.b2});
  for (Tensor &p : params)
    p.requires_grad_();
  kiln::optim::AdamW opt(params, kiln::optim::AdamWOptions(1e-2).weight_decay(0.01));
  Tensor target = normal({tokens, width}, 1.0);
  for (int64_t step = 0; step < steps; ++step) {
    opt.zero_grad();
    MoEOutput o = moe.forward(x);
    Tensor diff = o.y - target;
    Tensor loss = (diff * diff).mean() + 0.01 * o.aux_loss;
    loss.backward();
    opt.step();
    std::printf("step %lld loss %.6f\n", static_cast<long long>(step), loss.item<float>());
  }
  return 0;
}
