#include "encoder.h"

#include <cmath>

Tensor LayerNorm::operator()(const Tensor &x) const {
  return kiln::layer_norm(x, weight, bias, eps);
}

Tensor EncoderLayer::attention(const Tensor &x, const Tensor &bias) const {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  auto split_heads = [&](const Tensor &t) {
    return t.reshape({B, T, heads, C / heads}).transpose(1, 2);
  };
  auto parts = qkv(x).chunk(3, -1);
  Tensor q = split_heads(parts[0]), k = split_heads(parts[1]), v = split_heads(parts[2]);
  Tensor scores = kiln::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(C / heads));
  Tensor y = kiln::matmul(kiln::softmax(scores + bias, -1), v);
  return out(y.transpose(1, 2).reshape({B, T, C}));
}

Tensor EncoderLayer::operator()(const Tensor &x, const Tensor &bias) const {
  Tensor h = norm1(x + attention(x, bias));
  return norm2(h + ff2(kiln::gelu(ff1(h))));
}

Tensor Encoder::forward(const Tensor &ids, const Tensor &pad) const {
  const int64_t T = ids.size(1);
  Tensor positions = kiln::arange(T);
  Tensor h = kiln::embedding(ids, token_embedding) +
             kiln::embedding(positions, position_embedding);
  // [B, 1, 1, T]: -inf-like where the key is padding.
  Tensor bias = kiln::where(pad, -1e9, kiln::zeros({1})).unsqueeze(1).unsqueeze(1);
  for (const EncoderLayer &layer : layers)
    h = layer(h, bias);
  return final_norm(h);
}

Encoder make_encoder(int64_t vocab, int64_t max_len, int64_t dim,
                     int64_t layers, int64_t heads) {
  uint64_t seed = 1;
  auto linear = [&](int64_t in, int64_t out) {
    return Linear{kiln::randn({out, in}, seed++) * (1.0 / std::sqrt(double(in))),
                  kiln::randn({out}, seed++) * 0.02};
  };
  auto norm = [&]() {
    return LayerNorm{1.0 + kiln::randn({dim}, seed++) * 0.1,
                     kiln::randn({dim}, seed++) * 0.1};
  };
  Encoder e{kiln::randn({vocab, dim}, seed++) * 0.5,
            kiln::randn({max_len, dim}, seed++) * 0.1, {}, norm()};
  for (int64_t i = 0; i < layers; ++i)
    e.layers.push_back(EncoderLayer{heads, linear(dim, 3 * dim), linear(dim, dim),
                                    linear(dim, 4 * dim), linear(4 * dim, dim),
                                    norm(), norm()});
  return e;
}
