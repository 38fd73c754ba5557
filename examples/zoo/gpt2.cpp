// GPT-2, written as a C++ programmer porting nanoGPT's model.py would
// write it: modules as structs with operator(), the blocks in a
// std::vector<Block> run by range-for, a struct return of logits and loss.
// One KILN_COMPILE() on GPT::forward; the program prints the loss and a
// checksum of the logits, then trains STEPS AdamW steps on that batch
// (with `kiln compile --autograd`, the backward runs compiled too):
//   gpt2 [BATCH] [TOKENS] [STEPS]   (default 2 x 16 x 0; vocab 96, width 64,
//                                    4 heads, 3 layers)
#include <kiln/kiln.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct LayerNorm {
  Tensor weight, bias;
  Tensor operator()(const Tensor &x) const { return kiln::layer_norm(x, weight, bias, 1e-5); }
};

struct Linear {
  Tensor weight, bias; // weight is [in, out], as GPT-2's Conv1D
  Tensor operator()(const Tensor &x) const { return x.matmul(weight) + bias; }
};

struct MLP {
  Linear c_fc, c_proj;
  Tensor operator()(const Tensor &x) const { return c_proj(kiln::gelu(c_fc(x), "tanh")); }
};

struct CausalSelfAttention {
  Linear c_attn, c_proj;
  int64_t n_head;

  Tensor operator()(const Tensor &x) const {
    int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    int64_t hs = C / n_head;
    Tensor qkv = c_attn(x);
    Tensor q = qkv.slice(2, 0, C).view({B, T, n_head, hs}).transpose(1, 2);
    Tensor k = qkv.slice(2, C, 2 * C).view({B, T, n_head, hs}).transpose(1, 2);
    Tensor v = qkv.slice(2, 2 * C, 3 * C).view({B, T, n_head, hs}).transpose(1, 2);
    Tensor att = q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(hs)));
    Tensor causal = kiln::arange(T).unsqueeze(1) >= kiln::arange(T).unsqueeze(0);
    att = kiln::where(causal, att, -INFINITY).softmax(-1);
    Tensor y = att.matmul(v).transpose(1, 2).reshape({B, T, C});
    return c_proj(y);
  }
};

struct Block {
  LayerNorm ln_1;
  CausalSelfAttention attn;
  LayerNorm ln_2;
  MLP mlp;

  Tensor forward(const Tensor &x) const {
    Tensor h = x + attn(ln_1(x));
    return h + mlp(ln_2(h));
  }
};

struct GPTOutput {
  Tensor logits;
  Tensor loss;
};

struct GPT {
  Tensor wte, wpe;
  std::vector<Block> h;
  LayerNorm ln_f;

  KILN_COMPILE() GPTOutput forward(const Tensor &idx, const Tensor &targets) const {
    int64_t T = idx.size(1);
    Tensor pos = kiln::arange(T);
    Tensor x = kiln::embedding(idx, wte) + kiln::embedding(pos, wpe);
    for (const Block &block : h)
      x = block.forward(x);
    x = ln_f(x);
    Tensor logits = x.matmul(wte.transpose(0, 1));
    Tensor loss = kiln::cross_entropy(logits.view({-1, logits.size(-1)}), targets.view({-1}));
    return {logits, loss};
  }
};

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  const int64_t tokens = argc > 2 ? std::atoll(argv[2]) : 16;
  const int64_t vocab = 96, n_embd = 64, n_head = 4, n_layer = 3, block_size = 64;

  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; };
  auto linear = [&](int64_t in, int64_t out) {
    return Linear{normal({in, out}, 0.02), kiln::zeros({out})};
  };
  auto layer_norm = [&](int64_t n) { return LayerNorm{kiln::ones({n}), kiln::zeros({n})}; };

  GPT model{normal({vocab, n_embd}, 0.02), normal({block_size, n_embd}, 0.01), {}, layer_norm(n_embd)};
  for (int64_t l = 0; l < n_layer; ++l)
    model.h.push_back(Block{layer_norm(n_embd),
                            CausalSelfAttention{linear(n_embd, 3 * n_embd), linear(n_embd, n_embd), n_head},
                            layer_norm(n_embd), MLP{linear(n_embd, 4 * n_embd), linear(4 * n_embd, n_embd)}});

  std::vector<int64_t> ids, next;
  for (int64_t i = 0; i < batch * tokens; ++i) {
    ids.push_back((i * 7 + 3) % vocab);
    next.push_back((i * 7 + 10) % vocab);
  }
  Tensor idx = kiln::from_vector<int64_t>(ids, {batch, tokens});
  Tensor targets = kiln::from_vector<int64_t>(next, {batch, tokens});

  GPTOutput out = model.forward(idx, targets);
  std::printf("GPT-2 (%lld layers, width %lld): batch %lld x %lld tokens\n",
              static_cast<long long>(n_layer), static_cast<long long>(n_embd),
              static_cast<long long>(batch), static_cast<long long>(tokens));
  std::printf("logits [%lld, %lld, %lld] sum %.6f\n", static_cast<long long>(out.logits.size(0)),
              static_cast<long long>(out.logits.size(1)), static_cast<long long>(out.logits.size(2)),
              kiln::sum(out.logits).item<float>());
  std::printf("loss %.6f\n", out.loss.item<float>());

  const int64_t steps = argc > 3 ? std::atoll(argv[3]) : 0;
  if (steps <= 0)
    return 0;
  std::vector<Tensor> params{model.wte, model.wpe, model.ln_f.weight, model.ln_f.bias};
  for (const Block &b : model.h)
    for (const Tensor &p : {b.ln_1.weight, b.ln_1.bias, b.attn.c_attn.weight, b.attn.c_attn.bias,
                            b.attn.c_proj.weight, b.attn.c_proj.bias, b.ln_2.weight, b.ln_2.bias,
                            b.mlp.c_fc.weight, b.mlp.c_fc.bias, b.mlp.c_proj.weight, b.mlp.c_proj.bias})
      params.push_back(p);
  for (const Tensor &p : params)
    p.requires_grad_();
  kiln::optim::AdamW opt(params, kiln::optim::AdamWOptions(1e-3).weight_decay(0.01));
  for (int64_t step = 0; step < steps; ++step) {
    opt.zero_grad();
    Tensor loss = model.forward(idx, targets).loss;
    loss.backward();
    opt.step();
    std::printf("step %lld loss %.6f\n", static_cast<long long>(step), loss.item<float>());
  }
  return 0;
}
