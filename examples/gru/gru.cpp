// A character-level GRU language model, written as a C++ programmer porting
// from PyTorch writes it: an embedding, a GRU cell (torch.nn.GRUCell's
// equations, a functor module holding its weights: ../common/gru_cell.h)
// run over a sequence whose length is known only at run time, and a linear
// head. `kiln compile` leaves the loop over time steps on the host and
// runs each step's gates as one compiled graph: a dozen small ops per step
// that eager runs one by one. The program runs the same sequences both ways
// (eagerly through a KILN_DISABLE() function, below which nothing is
// compiled) and prints the results and timings side by side.
//
//   gru [BATCH] [STEPS]      (default 8 sequences of 32 characters;
//                             embedding 64, hidden 128, 96 characters)
#include <kiln/kiln.h>

#include "../common/gru_cell.h"
#include "../common/side_by_side.h"

#include <cstdio>
#include <cstdlib>

using examples::GRUCell;
using kiln::Tensor;

struct CharModel {
  Tensor embed;         // [vocab, E]
  GRUCell cell;         // E -> H
  Tensor head, head_b;  // [vocab, H], [vocab]

  // ids: [B, T] character codes; returns the next character's logits
  // after the last step, [B, vocab].
  KILN_COMPILE() Tensor forward(const Tensor &ids) const {
    Tensor xs = kiln::embedding(ids, embed); // [B, T, E]
    Tensor h = kiln::zeros({ids.size(0), cell.weight_hh.size(1)});
    for (int64_t t = 0; t < ids.size(1); ++t)
      h = cell(xs.select(1, t), h);
    return kiln::linear(h, head, head_b);
  }
};

// The same forward pass, eagerly.
KILN_DISABLE() Tensor eager_forward(const CharModel &model, const Tensor &ids) {
  return model.forward(ids);
}

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 8;
  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 32;
  const int64_t vocab = 96, E = 64, H = 128;
  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; };
  CharModel model{normal({vocab, E}, 1.0),
                  GRUCell{normal({3 * H, E}, 0.1), normal({3 * H, H}, 0.1),
                          normal({3 * H}, 0.1), normal({3 * H}, 0.1)},
                  normal({vocab, H}, 0.1), normal({vocab}, 0.1)};
  Tensor ids = kiln::randint(0, vocab, {batch, steps}, 7);

  std::printf("Kiln GRU example: %lld sequences of %lld characters, embedding %lld, hidden %lld\n",
              static_cast<long long>(batch), static_cast<long long>(steps),
              static_cast<long long>(E), static_cast<long long>(H));
  examples::sideBySide(
      "logits[:2, :6]", [&] { return eager_forward(model, ids); },
      [&] { return model.forward(ids); },
      [](const Tensor &t) { return t.slice(0, 0, 2).slice(1, 0, 6); });
  return 0;
}
