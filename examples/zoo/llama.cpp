// A Llama block, written as ported from Meta's model.py: RMSNorm, rotary
// embeddings applied from precomputed cos/sin tables, grouped-query
// attention whose key/value heads are repeated with expand (repeat_kv),
// and a SwiGLU feed-forward. One KILN_COMPILE() on Block::forward; the
// program prints checksums of the block's output, then trains STEPS AdamW
// steps of the output towards a target (with `kiln compile --autograd`,
// the backward runs compiled too).
//
//   llama [BATCH] [TOKENS] [STEPS]   (default 2 x 12 x 0; width 64, 8 heads,
//                                     2 key/value heads, feed-forward 160)
#include <kiln/kiln.h>

#include "train_to_target.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct RMSNorm {
  Tensor weight;
  static constexpr double eps = 1e-5;
  Tensor operator()(const Tensor &x) const { return kiln::rms_norm(x, weight, eps); }
};

struct Linear {
  Tensor weight; // [out, in], no bias
  Tensor operator()(const Tensor &x) const { return kiln::linear(x, weight); }
};

// x: [B, H, T, hd]; cos, sin: [T, hd / 2].
Tensor apply_rotary(const Tensor &x, const Tensor &cos, const Tensor &sin) {
  int64_t half = x.size(-1) / 2;
  Tensor x1 = x.slice(-1, 0, half), x2 = x.slice(-1, half, 2 * half);
  return kiln::cat({x1 * cos - x2 * sin, x1 * sin + x2 * cos}, -1);
}

// [B, n_kv, T, hd] -> [B, n_kv * n_rep, T, hd]
Tensor repeat_kv(const Tensor &x, int64_t n_rep) {
  int64_t B = x.size(0), n_kv = x.size(1), T = x.size(2), hd = x.size(3);
  return x.unsqueeze(2).expand({B, n_kv, n_rep, T, hd}).reshape({B, n_kv * n_rep, T, hd});
}

struct Attention {
  Linear wq, wk, wv, wo;
  int64_t n_heads, n_kv_heads;

  Tensor operator()(const Tensor &x, const Tensor &cos, const Tensor &sin) const {
    int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    int64_t hd = C / n_heads;
    Tensor q = wq(x).view({B, T, n_heads, hd}).transpose(1, 2);
    Tensor k = wk(x).view({B, T, n_kv_heads, hd}).transpose(1, 2);
    Tensor v = wv(x).view({B, T, n_kv_heads, hd}).transpose(1, 2);
    q = apply_rotary(q, cos, sin);
    k = apply_rotary(k, cos, sin);
    k = repeat_kv(k, n_heads / n_kv_heads);
    v = repeat_kv(v, n_heads / n_kv_heads);
    Tensor scores = q.matmul(k.transpose(2, 3)) / std::sqrt(static_cast<double>(hd));
    Tensor causal = kiln::arange(T).unsqueeze(1) >= kiln::arange(T).unsqueeze(0);
    scores = kiln::where(causal, scores, -INFINITY).softmax(-1);
    Tensor out = scores.matmul(v).transpose(1, 2).reshape({B, T, C});
    return wo(out);
  }
};

struct FeedForward {
  Linear w1, w2, w3;
  Tensor operator()(const Tensor &x) const { return w2(kiln::silu(w1(x)) * w3(x)); }
};

struct Block {
  RMSNorm attention_norm, ffn_norm;
  Attention attention;
  FeedForward feed_forward;
  Tensor freqs_cos, freqs_sin; // [max_seq, hd / 2]

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    int64_t T = x.size(1);
    Tensor cos = freqs_cos.slice(0, 0, T), sin = freqs_sin.slice(0, 0, T);
    Tensor h = x + attention(attention_norm(x), cos, sin);
    return h + feed_forward(ffn_norm(h));
  }
};

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  const int64_t tokens = argc > 2 ? std::atoll(argv[2]) : 12;
  const int64_t dim = 64, n_heads = 8, n_kv_heads = 2, hidden = 160, max_seq = 64;
  const int64_t hd = dim / n_heads;

  uint64_t seed = 1;
  auto linear = [&](int64_t in, int64_t out) { return Linear{kiln::randn({out, in}, seed++) * 0.05}; };
  // The rotary tables, as precompute_freqs_cis computes them.
  std::vector<float> cos_table, sin_table;
  for (int64_t t = 0; t < max_seq; ++t)
    for (int64_t i = 0; i < hd / 2; ++i) {
      double freq = 1.0 / std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(hd));
      cos_table.push_back(static_cast<float>(std::cos(static_cast<double>(t) * freq)));
      sin_table.push_back(static_cast<float>(std::sin(static_cast<double>(t) * freq)));
    }
  Block block{RMSNorm{kiln::ones({dim})},
              RMSNorm{kiln::ones({dim})},
              Attention{linear(dim, dim), linear(dim, n_kv_heads * hd), linear(dim, n_kv_heads * hd),
                        linear(dim, dim), n_heads, n_kv_heads},
              FeedForward{linear(dim, hidden), linear(hidden, dim), linear(dim, hidden)},
              kiln::from_vector<float>(cos_table, {max_seq, hd / 2}),
              kiln::from_vector<float>(sin_table, {max_seq, hd / 2})};

  Tensor x = kiln::randn({batch, tokens, dim}, 100);
  Tensor y = block.forward(x);
  Tensor w = kiln::arange(dim).to(kiln::kFloat32) / static_cast<float>(dim);
  std::printf("Llama block (width %lld, %lld heads, %lld kv heads): batch %lld x %lld tokens\n",
              static_cast<long long>(dim), static_cast<long long>(n_heads),
              static_cast<long long>(n_kv_heads), static_cast<long long>(batch),
              static_cast<long long>(tokens));
  std::printf("y sum %.6f squares %.6f weighted %.6f\n", kiln::sum(y).item<float>(),
              kiln::sum(y * y).item<float>(), kiln::sum(y * w).item<float>());

  const int64_t steps = argc > 3 ? std::atoll(argv[3]) : 0;
  const Attention &a = block.attention;
  const FeedForward &f = block.feed_forward;
  Tensor target = kiln::randn({batch, tokens, dim}, 500);
  train({block.attention_norm.weight, block.ffn_norm.weight, a.wq.weight, a.wk.weight,
         a.wv.weight, a.wo.weight, f.w1.weight, f.w2.weight, f.w3.weight},
        steps, target, [&] { return block.forward(x); });
  return 0;
}
