// A Llama-style block (RMSNorm, rotary embeddings, grouped key/value heads
// repeated with expand, causal attention, SwiGLU) written two ways: with
// scaled_dot_product_attention (one fused kernel) and with the attention
// spelled out (matmul, masked_fill of a tril mask, softmax, matmul, the
// [B, H, T, T] scores in memory). Times each eagerly (below a
// KILN_DISABLE() function) and compiled, in turns, median of REPS, at
// several sequence lengths. Built through kiln compile by
// benchmarks/attention.sh; not a test.
//
//   attention [REPS] [T...]   (default 9 reps; T = 128 512 1024; B = 1)
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Block {
  static constexpr int64_t kHeads = 8, kKvHeads = 4, kHeadDim = 64;
  Tensor attnNorm, mlpNorm, wq, wk, wv, wo, w1, w2, w3;
};

Tensor rotate_half(const Tensor &x) {
  int64_t half = x.size(-1) / 2;
  return kiln::cat({-x.slice(-1, half, x.size(-1)), x.slice(-1, 0, half)}, -1);
}

Tensor repeat_kv(const Tensor &x) {
  int64_t B = x.size(0), T = x.size(2);
  int64_t rep = Block::kHeads / Block::kKvHeads;
  return x.unsqueeze(2)
      .expand({B, Block::kKvHeads, rep, T, Block::kHeadDim})
      .reshape({B, Block::kHeads, T, Block::kHeadDim});
}

Tensor block(const Block &p, const Tensor &x, bool fused) {
  const int64_t H = Block::kHeads, KV = Block::kKvHeads, D = Block::kHeadDim;
  int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  Tensor inv_freq = kiln::exp(kiln::arange(0, D, 2).to(kiln::kFloat32) *
                              static_cast<float>(-std::log(10000.0) / D));
  Tensor freqs =
      kiln::arange(T).to(kiln::kFloat32).unsqueeze(1) * inv_freq.unsqueeze(0);
  Tensor emb = kiln::cat({freqs, freqs}, -1);
  Tensor cos = kiln::cos(emb), sin = kiln::sin(emb);
  Tensor h = kiln::rms_norm(x, p.attnNorm, 1e-6);
  Tensor q = kiln::linear(h, p.wq).reshape({B, T, H, D}).transpose(1, 2);
  Tensor k = kiln::linear(h, p.wk).reshape({B, T, KV, D}).transpose(1, 2);
  Tensor v = kiln::linear(h, p.wv).reshape({B, T, KV, D}).transpose(1, 2);
  q = q * cos + rotate_half(q) * sin;
  k = k * cos + rotate_half(k) * sin;
  k = repeat_kv(k);
  v = repeat_kv(v);
  Tensor y;
  if (fused) {
    y = kiln::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
  } else {
    Tensor scores = kiln::matmul(q, k.transpose(-2, -1)) /
                    std::sqrt(static_cast<double>(D));
    scores = scores.masked_fill(kiln::ones({T, T}).tril() == 0, -INFINITY);
    y = kiln::matmul(kiln::softmax(scores, -1), v);
  }
  Tensor r = x + kiln::linear(y.transpose(1, 2).reshape({B, T, C}), p.wo);
  Tensor m = kiln::rms_norm(r, p.mlpNorm, 1e-6);
  return r +
         kiln::linear(kiln::silu(kiln::linear(m, p.w1)) * kiln::linear(m, p.w3),
                      p.w2);
}

KILN_COMPILE() Tensor block_fused(const Block &p, const Tensor &x) {
  return block(p, x, true);
}
KILN_COMPILE() Tensor block_written(const Block &p, const Tensor &x) {
  return block(p, x, false);
}
KILN_DISABLE() Tensor eager_fused(const Block &p, const Tensor &x) {
  return block_fused(p, x);
}
KILN_DISABLE() Tensor eager_written(const Block &p, const Tensor &x) {
  return block_written(p, x);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 9;
  std::vector<int64_t> lengths;
  for (int i = 2; i < argc; ++i)
    lengths.push_back(std::atoll(argv[i]));
  if (lengths.empty())
    lengths = {128, 512, 1024};
  const int64_t C = Block::kHeads * Block::kHeadDim,
                kv = Block::kKvHeads * Block::kHeadDim, F = 1024;
  auto weight = [](int64_t out, int64_t in, uint64_t seed) {
    return kiln::randn({out, in}, seed) *
           static_cast<float>(1.0 / std::sqrt(static_cast<double>(in)));
  };
  Block p{kiln::ones({C}),  kiln::ones({C}),  weight(C, C, 1),
          weight(kv, C, 2), weight(kv, C, 3), weight(C, C, 4),
          weight(F, C, 5),  weight(C, F, 6),  weight(F, C, 7)};
  using Fn = Tensor (*)(const Block &, const Tensor &);
  const Fn fns[4] = {eager_written, eager_fused, block_written, block_fused};
  const char *names[4] = {"eager, written out", "eager, sdpa",
                          "compiled, written out", "compiled, sdpa"};
  std::printf("Llama-style block, B=1, C=%lld, %lld heads (%lld kv), "
              "head dim %lld, MLP %lld; median of %d, in turns\n",
              static_cast<long long>(C), static_cast<long long>(Block::kHeads),
              static_cast<long long>(Block::kKvHeads),
              static_cast<long long>(Block::kHeadDim),
              static_cast<long long>(F), reps);
  for (int64_t T : lengths) {
    Tensor x = kiln::randn({1, T, C}, 99);
    std::vector<double> ms[4];
    Tensor out[4];
    for (int i = 0; i < 4; ++i)
      out[i] = fns[i](p, x); // warm-up
    for (int rep = 0; rep < reps; ++rep)
      for (int i = 0; i < 4; ++i) {
        auto start = std::chrono::steady_clock::now();
        out[i] = fns[i](p, x);
        ms[i].push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      }
    double med[4];
    for (int i = 0; i < 4; ++i) {
      std::sort(ms[i].begin(), ms[i].end());
      med[i] = ms[i][ms[i].size() / 2];
    }
    bool agree = true;
    for (int i = 1; i < 4; ++i)
      agree = agree && kiln::allclose(out[i], out[0], 1e-3, 1e-3);
    std::printf("T=%lld (results agree: %s)\n", static_cast<long long>(T),
                agree ? "yes" : "NO");
    for (int i = 0; i < 4; ++i)
      std::printf("  %-22s %9.3f ms  %5.2fx of compiled, written out\n",
                  names[i], med[i], med[i] / med[2]);
  }
}
