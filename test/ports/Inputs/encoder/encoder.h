// A BERT-style encoder laid out as C++ projects are: the modules declared
// in a header, their code in encoder.cpp (the compile root among it),
// the model built and called from main.cpp. kiln compile of encoder.cpp
// sees no call of the root; kiln_compile gives it main.cpp's.
#pragma once
#include <kiln/kiln.h>

#include <cstdint>
#include <vector>

using kiln::Tensor;

struct Linear {
  Tensor weight, bias;
  Tensor operator()(const Tensor &x) const { return kiln::linear(x, weight, bias); }
};

struct LayerNorm {
  Tensor weight, bias;
  double eps = 1e-12;
  Tensor operator()(const Tensor &x) const;
};

struct EncoderLayer {
  int64_t heads = 2;
  Linear qkv, out, ff1, ff2;
  LayerNorm norm1, norm2;
  Tensor attention(const Tensor &x, const Tensor &bias) const;
  Tensor operator()(const Tensor &x, const Tensor &bias) const;
};

struct Encoder {
  Tensor token_embedding, position_embedding;
  std::vector<EncoderLayer> layers;
  LayerNorm final_norm;
  // ids: int64 [B, T]; pad: bool [B, T], true where a token is padding.
  KILN_COMPILE() Tensor forward(const Tensor &ids, const Tensor &pad) const;
};

Encoder make_encoder(int64_t vocab, int64_t max_len, int64_t dim,
                     int64_t layers, int64_t heads);
