// A BERT-style encoder, written as ported from PyTorch: token and position
// embeddings, a bool padding mask applied with where before the softmax,
// post-norm layers in a std::vector, a masked mean pool. One
// KILN_COMPILE() on Encoder::forward; the program prints a checksum of the
// pooled output for a batch whose rows have different lengths, then
// trains STEPS AdamW steps of the pooled output towards a target (with
// `kiln compile --autograd`, the backward runs compiled too).
//
//   encoder [BATCH] [TOKENS] [STEPS]   (default 3 x 12 x 0; vocab 80,
//                                       width 48, 4 heads, 2 layers)
#include <kiln/kiln.h>

#include "train_to_target.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct LayerNorm {
  Tensor weight, bias;
  Tensor operator()(const Tensor &x) const { return kiln::layer_norm(x, weight, bias, 1e-12); }
};

struct Linear {
  Tensor weight, bias; // torch layout: [out, in]
  Tensor operator()(const Tensor &x) const { return kiln::linear(x, weight, bias); }
};

struct SelfAttention {
  Linear query, key, value, output;
  int64_t num_heads;

  // mask: [B, T] bool, true where a token is real.
  Tensor operator()(const Tensor &x, const Tensor &mask) const {
    int64_t B = x.size(0), T = x.size(1), H = x.size(2);
    int64_t d = H / num_heads;
    auto heads = [&](const Tensor &t) { return t.view({B, T, num_heads, d}).permute({0, 2, 1, 3}); };
    Tensor q = heads(query(x)), k = heads(key(x)), v = heads(value(x));
    Tensor scores = q.matmul(k.transpose(-1, -2)) / std::sqrt(static_cast<float>(d));
    Tensor keep = mask.unsqueeze(1).unsqueeze(2); // [B, 1, 1, T]
    scores = kiln::where(keep, scores, -1e9f);
    Tensor probs = scores.softmax(-1);
    Tensor context = probs.matmul(v).permute({0, 2, 1, 3}).reshape({B, T, H});
    return output(context);
  }
};

struct EncoderLayer {
  SelfAttention attention;
  LayerNorm attention_norm;
  Linear intermediate, out;
  LayerNorm output_norm;

  Tensor forward(const Tensor &x, const Tensor &mask) const {
    Tensor h = attention_norm(x + attention(x, mask));
    return output_norm(h + out(kiln::gelu(intermediate(h))));
  }
};

struct Encoder {
  Tensor word_embeddings, position_embeddings;
  LayerNorm embedding_norm;
  std::vector<EncoderLayer> layers;

  KILN_COMPILE() Tensor forward(const Tensor &input_ids, const Tensor &mask) const {
    int64_t T = input_ids.size(1);
    Tensor x = kiln::embedding(input_ids, word_embeddings) +
               kiln::embedding(kiln::arange(T), position_embeddings);
    x = embedding_norm(x);
    for (const EncoderLayer &layer : layers)
      x = layer.forward(x, mask);
    // Mean over the real tokens only.
    Tensor weights = mask.to(kiln::kFloat32).unsqueeze(-1); // [B, T, 1]
    return (x * weights).sum({1}) / weights.sum({1});
  }
};

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 3;
  const int64_t tokens = argc > 2 ? std::atoll(argv[2]) : 12;
  const int64_t vocab = 80, hidden = 48, heads = 4, layers = 2, max_positions = 64;

  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape) { return kiln::randn(shape, seed++) * 0.05; };
  auto linear = [&](int64_t in, int64_t out) { return Linear{normal({out, in}), normal({out})}; };
  auto norm = [&]() { return LayerNorm{kiln::ones({hidden}), kiln::zeros({hidden})}; };

  Encoder encoder{normal({vocab, hidden}), normal({max_positions, hidden}), norm(), {}};
  for (int64_t l = 0; l < layers; ++l)
    encoder.layers.push_back(EncoderLayer{
        SelfAttention{linear(hidden, hidden), linear(hidden, hidden), linear(hidden, hidden),
                      linear(hidden, hidden), heads},
        norm(), linear(hidden, 4 * hidden), linear(4 * hidden, hidden), norm()});

  // Row b has tokens - b real tokens (at least 1), the rest padding.
  std::vector<int64_t> ids;
  std::vector<bool> real;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < tokens; ++t) {
      bool is_real = t < std::max<int64_t>(1, tokens - b);
      real.push_back(is_real);
      ids.push_back(is_real ? (b * 13 + t * 7 + 1) % vocab : 0);
    }
  Tensor input_ids = kiln::from_vector<int64_t>(ids, {batch, tokens});
  Tensor mask = kiln::from_vector(real, {batch, tokens});

  Tensor pooled = encoder.forward(input_ids, mask);
  std::printf("encoder (%lld layers, width %lld): batch %lld x %lld tokens\n",
              static_cast<long long>(layers), static_cast<long long>(hidden),
              static_cast<long long>(batch), static_cast<long long>(tokens));
  // (Each pooled row has mean ~0 after the layer norms: sums of squares
  // and a position-weighted sum tell rows apart.)
  Tensor weights = kiln::arange(pooled.size(1)).to(kiln::kFloat32) / static_cast<float>(hidden);
  std::printf("pooled [%lld, %lld] sum of squares %.6f weighted %.6f\n",
              static_cast<long long>(pooled.size(0)), static_cast<long long>(pooled.size(1)),
              kiln::sum(pooled * pooled).item<float>(), kiln::sum(pooled * weights).item<float>());
  for (int64_t b = 0; b < batch; ++b)
    std::printf("row %lld weighted %.6f\n", static_cast<long long>(b),
                kiln::sum(pooled.slice(0, b, b + 1) * weights).item<float>());

  const int64_t steps = argc > 3 ? std::atoll(argv[3]) : 0;
  std::vector<Tensor> params{encoder.word_embeddings, encoder.position_embeddings,
                             encoder.embedding_norm.weight, encoder.embedding_norm.bias};
  for (const EncoderLayer &l : encoder.layers)
    for (const Linear *lin : {&l.attention.query, &l.attention.key, &l.attention.value,
                              &l.attention.output, &l.intermediate, &l.out})
      params.insert(params.end(), {lin->weight, lin->bias});
  for (const EncoderLayer &l : encoder.layers)
    for (const LayerNorm *n : {&l.attention_norm, &l.output_norm})
      params.insert(params.end(), {n->weight, n->bias});
  Tensor target = kiln::randn({batch, hidden}, 500);
  train(params, steps, target, [&] { return encoder.forward(input_ids, mask); });
  return 0;
}
