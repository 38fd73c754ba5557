// A GRU cell with torch.nn.GRUCell's equations and weight layout, as a
// functor module: examples/gru runs it over time steps, and
// benchmarks/sweep times one step of it.
#ifndef KILN_EXAMPLES_GRU_CELL_H
#define KILN_EXAMPLES_GRU_CELL_H

#include <kiln/kiln.h>

namespace examples {

struct GRUCell {
  kiln::Tensor weight_ih, weight_hh, bias_ih, bias_hh; // [3H, in], [3H, H], [3H]

  kiln::Tensor operator()(const kiln::Tensor &x, const kiln::Tensor &h) const {
    using kiln::Tensor;
    int64_t H = h.size(-1);
    Tensor gi = kiln::linear(x, weight_ih, bias_ih);
    Tensor gh = kiln::linear(h, weight_hh, bias_hh);
    Tensor r = kiln::sigmoid(gi.slice(-1, 0, H) + gh.slice(-1, 0, H));
    Tensor z = kiln::sigmoid(gi.slice(-1, H, 2 * H) + gh.slice(-1, H, 2 * H));
    Tensor n = kiln::tanh(gi.slice(-1, 2 * H, 3 * H) + r * gh.slice(-1, 2 * H, 3 * H));
    return (1.0f - z) * n + z * h;
  }
};

} // namespace examples

#endif
