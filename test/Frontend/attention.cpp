// Tests scaled_dot_product_attention, tril and triu as model code uses
// them: a Llama-style block (RMSNorm, rotary embeddings from sin and cos,
// grouped key/value heads repeated with expand, SwiGLU) compiles as one
// graph with the fused attention, and so does the same block with the
// attention written out (matmul, masked_fill of a tril mask, softmax,
// matmul); the two agree, and each matches eager at sizes the source
// never names. The variants cover bool, float and absent masks, is_causal,
// an explicit scale, rank-3 operands, batch broadcasting and a query that
// attends to no key, in float32 and in bfloat16.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 2 5
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 1 37
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 3 140
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

using kiln::Tensor;

struct RMSNorm {
  Tensor weight;
  double eps = 1e-6;
  Tensor operator()(const Tensor &x) const {
    return kiln::rms_norm(x, weight, eps);
  }
};

Tensor rotate_half(const Tensor &x) {
  int64_t half = x.size(-1) / 2;
  Tensor x1 = x.slice(-1, 0, half);
  Tensor x2 = x.slice(-1, half, x.size(-1));
  return kiln::cat({-x2, x1}, -1);
}

struct LlamaBlock {
  static constexpr int64_t kHeads = 4, kKvHeads = 2, kHeadDim = 8;
  RMSNorm attnNorm, mlpNorm;
  Tensor wq, wk, wv, wo, w1, w2, w3;
  bool fused = true;

  /// [B, kv heads, T, D] -> [B, heads, T, D], as Llama's repeat_kv.
  static Tensor repeat_kv(const Tensor &x) {
    int64_t B = x.size(0), T = x.size(2);
    int64_t rep = kHeads / kKvHeads;
    return x.unsqueeze(2)
        .expand({B, kKvHeads, rep, T, kHeadDim})
        .reshape({B, kHeads, T, kHeadDim});
  }

  // CHECK-LABEL: LlamaBlock::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: scaled_dot_product_attention(
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    // Rotary tables from the positions.
    Tensor inv_freq =
        kiln::exp(kiln::arange(0, kHeadDim, 2).to(kiln::kFloat32) *
                  static_cast<float>(-std::log(10000.0) / kHeadDim));
    Tensor freqs = kiln::arange(T).to(kiln::kFloat32).unsqueeze(1) *
                   inv_freq.unsqueeze(0);
    Tensor emb = kiln::cat({freqs, freqs}, -1);
    Tensor cos = kiln::cos(emb), sin = emb.sin();

    Tensor h = attnNorm(x);
    Tensor q = kiln::linear(h, wq).reshape({B, T, kHeads, kHeadDim});
    Tensor k = kiln::linear(h, wk).reshape({B, T, kKvHeads, kHeadDim});
    Tensor v = kiln::linear(h, wv).reshape({B, T, kKvHeads, kHeadDim});
    q = q.transpose(1, 2);
    k = k.transpose(1, 2);
    v = v.transpose(1, 2);
    q = q * cos + rotate_half(q) * sin;
    k = k * cos + rotate_half(k) * sin;
    k = repeat_kv(k);
    v = repeat_kv(v);
    Tensor y;
    if (fused) {
      y = kiln::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    } else {
      Tensor scores = kiln::matmul(q, k.transpose(-2, -1)) /
                      std::sqrt(static_cast<double>(kHeadDim));
      Tensor causal = kiln::ones({T, T}).tril() == 0;
      scores = scores.masked_fill(causal, -INFINITY);
      y = kiln::matmul(kiln::softmax(scores, -1), v);
    }
    y = y.transpose(1, 2).reshape({B, T, C});
    Tensor r = x + kiln::linear(y, wo);
    Tensor m = mlpNorm(r);
    return r + kiln::linear(kiln::silu(kiln::linear(m, w1)) *
                                kiln::linear(m, w3),
                            w2);
  }
};

// CHECK-LABEL: variants (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor variants(const Tensor &q, const Tensor &k, const Tensor &v,
                const Tensor &padding, const Tensor &bias, double scale) {
  // A bool mask that broadcasts over heads and queries ([B, 1, 1, S]).
  Tensor a = kiln::scaled_dot_product_attention(q, k, v, padding);
  // A float mask ([L, S]) and an explicit scale.
  Tensor b = kiln::scaled_dot_product_attention(q, k, v, bias, 0.0, false,
                                                scale);
  // Rank 3, causal, keys broadcast over the batch.
  Tensor q3 = q.slice(0, 0, 1).squeeze(0);
  Tensor k3 = k.slice(0, 0, 1).squeeze(0).slice(0, 0, 1);
  Tensor v3 = v.slice(0, 0, 1).squeeze(0).slice(0, 0, 1);
  Tensor c = kiln::scaled_dot_product_attention(q3, k3, v3, {}, 0.0, true, 0.5f);
  // The causal mask written with triu, as a bool mask.
  Tensor d = kiln::scaled_dot_product_attention(
      q, k, v, kiln::triu(kiln::ones({q.size(-2), k.size(-2)}), 1) == 0);
  return a + b + c.unsqueeze(0) + d + kiln::tril(a, -1) + a.triu(2);
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t T = argc > 2 ? std::atoll(argv[2]) : 5;
  const int64_t C = LlamaBlock::kHeads * LlamaBlock::kHeadDim;
  const int64_t kv = LlamaBlock::kKvHeads * LlamaBlock::kHeadDim;
  auto weight = [](int64_t out, int64_t in, uint64_t seed) {
    return kiln::randn({out, in}, seed) * static_cast<float>(0.5 / std::sqrt(in));
  };
  LlamaBlock block{{kiln::ones({C}) * 1.1f}, {kiln::ones({C}) * 0.9f},
                   weight(C, C, 1), weight(kv, C, 2), weight(kv, C, 3),
                   weight(C, C, 4), weight(64, C, 5), weight(C, 64, 6),
                   weight(64, C, 7)};
  Tensor x = kiln::randn({B, T, C}, 8);
  Tensor fused = block.forward(x);
  block.fused = false;
  Tensor written = block.forward(x);
  std::printf("fused %.5f\n", kiln::sum(fused).item<float>());
  std::printf("written %.5f\n", kiln::sum(written).item<float>());
  std::printf("agree %d\n", kiln::allclose(fused, written, 1e-4, 1e-5));

  const int64_t H = 3, S = T + 3, D = 4;
  Tensor q = kiln::randn({B, H, T, D}, 9), k = kiln::randn({B, H, S, D}, 10),
         v = kiln::randn({B, H, S, D}, 11);
  // Batch b attends to keys 0..b+1; the last batch (when there are two or
  // more) to none, so its queries give zeros.
  std::vector<int64_t> keep;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      keep.push_back(B > 1 && b == B - 1 ? 0 : s <= b + 1);
  Tensor padding = kiln::from_vector(keep, {B, 1, 1, S}) != 0;
  Tensor bias = kiln::randn({T, S}, 12);
  Tensor y = variants(q, k, v, padding, bias, 0.25);
  std::printf("variants %.5f\n", kiln::sum(y).item<float>());
  std::printf("abs %.5f\n", kiln::sum(kiln::abs(y)).item<float>());
  // The same in bfloat16, the graph's version for it: where the CPU has
  // AVX512-BF16 the kernel reads the 16-bit q, k and v as they are (odd
  // key counts at the larger sizes), in both builds alike.
  const kiln::DType bf16 = kiln::kBFloat16;
  Tensor yb = variants(q.to(bf16), k.to(bf16), v.to(bf16), padding,
                       bias.to(bf16), 0.25);
  std::printf("bfloat16 %s %.5f\n", kiln::dtypeName(yb.dtype()),
              kiln::sum(yb.to(kiln::kFloat32)).item<float>());
  std::printf("bfloat16 abs %.5f\n",
              kiln::sum(kiln::abs(yb.to(kiln::kFloat32))).item<float>());
}
