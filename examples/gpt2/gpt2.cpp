// A GPT-2-style transformer block: a struct holding its weights; layer_norm,
// matmul, a causal softmax over heads split with reshape/transpose from
// x.size(...), gelu and residuals. Under KILN_COMPILE(fullgraph=true) it is
// one graph. It runs both ways (eagerly through a KILN_DISABLE() function,
// below which nothing is compiled) and prints the results and timings side
// by side.
//
//   gpt2 [BATCH] [TOKENS]   (default 4 x 64; width 256, 8 heads)
#include <kiln/kiln.h>

#include "../common/side_by_side.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct Block {
  Tensor ln1_w, ln1_b, w_qkv, b_qkv, w_proj, b_proj;
  Tensor ln2_w, ln2_b, w_fc, b_fc, w_out, b_out;
  int64_t n_head;

  Tensor attention(const Tensor &h) const {
    int64_t B = h.size(0), T = h.size(1), C = h.size(2);
    int64_t hd = C / n_head;
    Tensor qkv = kiln::matmul(h, w_qkv) + b_qkv;
    Tensor q = qkv.slice(2, 0, C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor k = qkv.slice(2, C, 2 * C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor v = qkv.slice(2, 2 * C, 3 * C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor att = kiln::matmul(q, k.transpose(-2, -1)) * (1.0f / std::sqrt(float(hd)));
    Tensor causal = kiln::arange(T).unsqueeze(1) >= kiln::arange(T).unsqueeze(0);
    att = kiln::softmax(kiln::where(causal, att, -INFINITY), -1);
    Tensor y = kiln::matmul(att, v).transpose(1, 2).reshape({B, T, C});
    return kiln::matmul(y, w_proj) + b_proj;
  }

  KILN_COMPILE(fullgraph = true) Tensor forward(const Tensor &x) const {
    Tensor x1 = x + attention(kiln::layer_norm(x, ln1_w, ln1_b, 1e-5));
    Tensor h = kiln::gelu(kiln::matmul(kiln::layer_norm(x1, ln2_w, ln2_b, 1e-5), w_fc) + b_fc);
    return x1 + kiln::matmul(h, w_out) + b_out;
  }
};

// The same forward pass, eagerly.
KILN_DISABLE() Tensor eager_forward(const Block &block, const Tensor &x) {
  return block.forward(x);
}

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 4;
  const int64_t tokens = argc > 2 ? std::atoll(argv[2]) : 64;
  const int64_t C = 256, heads = 8;
  uint64_t seed = 1;
  auto w = [&](kiln::Shape shape, double scale) { return kiln::randn(shape, seed++) * scale; };
  Block block{kiln::ones({C}),  kiln::zeros({C}), w({C, 3 * C}, 0.05), w({3 * C}, 0.02),
              w({C, C}, 0.05),  w({C}, 0.02),     kiln::ones({C}),      kiln::zeros({C}),
              w({C, 4 * C}, 0.05), w({4 * C}, 0.02), w({4 * C, C}, 0.03), w({C}, 0.02),
              heads};
  Tensor x = kiln::randn({batch, tokens, C}, 100);

  std::printf("Kiln GPT-2 block example: batch %lld, %lld tokens, width %lld, %lld heads\n",
              static_cast<long long>(batch), static_cast<long long>(tokens),
              static_cast<long long>(C), static_cast<long long>(heads));
  examples::sideBySide(
      "y[0, :2, :6]", [&] { return eager_forward(block, x); }, [&] { return block.forward(x); },
      [](const Tensor &t) { return t.slice(0, 0, 1).slice(1, 0, 2).slice(2, 0, 6); });
  return 0;
}
