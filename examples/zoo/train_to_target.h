// The zoo's training runs (the encoder's, the GRU's and the Llama block's
// STEPS argument): AdamW on a model's parameters towards a target.
#ifndef KILN_EXAMPLES_ZOO_TRAIN_TO_TARGET_H
#define KILN_EXAMPLES_ZOO_TRAIN_TO_TARGET_H

#include <kiln/kiln.h>

#include <cstdint>
#include <cstdio>
#include <vector>

// Trains the parameters by AdamW for `steps` steps towards `target`
// (mean squared error of what `run` returns), printing each loss: with
// `kiln compile --autograd` the compiled forward records its compiled
// backward.
template <typename Run>
void train(std::vector<kiln::Tensor> params, int64_t steps, const kiln::Tensor &target, Run run) {
  for (const kiln::Tensor &p : params)
    p.requires_grad_();
  kiln::optim::AdamW opt(params, kiln::optim::AdamWOptions(1e-2).weight_decay(0.01));
  for (int64_t step = 0; step < steps; ++step) {
    opt.zero_grad();
    kiln::Tensor diff = run() - target;
    kiln::Tensor loss = (diff * diff).mean();
    loss.backward();
    opt.step();
    std::printf("step %lld loss %.6f\n", static_cast<long long>(step), loss.item<float>());
  }
}

#endif
