// A GRU language model over time steps, written as ported from PyTorch's
// nn.GRU equations: the gates of each step from the step's input and the
// hidden state, a loop over the sequence whose length is known only at run
// time, the outputs collected and projected. One KILN_COMPILE() on
// GRU::forward; the program prints checksums of the last hidden state and
// the outputs, then trains TRAIN AdamW steps of the outputs towards a
// target (with `kiln compile --autograd`, the backward runs compiled too).
//
//   gru [BATCH] [STEPS] [TRAIN]   (default 2 x 10 x 0; input 12, hidden 24)
#include <kiln/kiln.h>

#include "train_to_target.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct GRUCell {
  Tensor weight_ih, weight_hh, bias_ih, bias_hh; // [3H, in], [3H, H], [3H]

  Tensor operator()(const Tensor &x, const Tensor &h) const {
    int64_t H = h.size(-1);
    Tensor gi = kiln::linear(x, weight_ih, bias_ih);
    Tensor gh = kiln::linear(h, weight_hh, bias_hh);
    Tensor r = kiln::sigmoid(gi.slice(-1, 0, H) + gh.slice(-1, 0, H));
    Tensor z = kiln::sigmoid(gi.slice(-1, H, 2 * H) + gh.slice(-1, H, 2 * H));
    Tensor n = kiln::tanh(gi.slice(-1, 2 * H, 3 * H) + r * gh.slice(-1, 2 * H, 3 * H));
    return (1.0f - z) * n + z * h;
  }
};

struct GRU {
  GRUCell cell;
  Tensor head; // [H, out]

  // xs: [B, T, in]; h: the initial hidden state [B, H], updated in place.
  KILN_COMPILE() Tensor forward(const Tensor &xs, Tensor &h) const {
    int64_t steps = xs.size(1);
    Tensor total = kiln::zeros({xs.size(0), head.size(1)});
    for (int64_t t = 0; t < steps; ++t) {
      Tensor x = xs.slice(1, t, t + 1).squeeze(1);
      h = cell(x, h);
      total = total + h.matmul(head);
    }
    return total / static_cast<float>(steps);
  }
};

int main(int argc, char **argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 2;
  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 10;
  const int64_t input = 12, hidden = 24, out = 5;
  uint64_t seed = 1;
  auto normal = [&](kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; };
  GRU gru{GRUCell{normal({3 * hidden, input}, 0.2), normal({3 * hidden, hidden}, 0.2),
                  normal({3 * hidden}, 0.1), normal({3 * hidden}, 0.1)},
          normal({hidden, out}, 0.3)};
  Tensor xs = normal({batch, steps, input}, 1.0);
  Tensor h = kiln::zeros({batch, hidden});
  Tensor y = gru.forward(xs, h);
  Tensor w = kiln::arange(hidden).to(kiln::kFloat32) / static_cast<float>(hidden);
  std::printf("GRU (hidden %lld): batch %lld x %lld steps\n", static_cast<long long>(hidden),
              static_cast<long long>(batch), static_cast<long long>(steps));
  std::printf("outputs [%lld, %lld] sum %.6f squares %.6f\n", static_cast<long long>(y.size(0)),
              static_cast<long long>(y.size(1)), kiln::sum(y).item<float>(),
              kiln::sum(y * y).item<float>());
  std::printf("hidden sum %.6f weighted %.6f\n", kiln::sum(h).item<float>(),
              kiln::sum(h * w).item<float>());

  const int64_t train_steps = argc > 3 ? std::atoll(argv[3]) : 0;
  Tensor target = kiln::randn({batch, out}, 500);
  train({gru.cell.weight_ih, gru.cell.weight_hh, gru.cell.bias_ih, gru.cell.bias_hh, gru.head},
        train_steps, target, [&] {
          Tensor state = kiln::zeros({batch, hidden});
          return gru.forward(xs, state);
        });
  return 0;
}
