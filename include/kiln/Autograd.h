//===- kiln/Autograd.h - Grad mode and gradient checking --------*- C++ -*-===//
//
// Eager autograd, as LibTorch's: ops on tensors that require grad record a
// graph of backward nodes while grad mode is on (the default, per thread),
// and Tensor::backward() runs it (docs/training.md). The gradient formulas
// sit beside each op's definition in lib/Runtime/Ops.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOGRAD_H
#define KILN_AUTOGRAD_H

#include "kiln/Tensor.h"

#include <functional>
#include <vector>

namespace kiln {

/// Whether ops record for autograd on this thread (torch.is_grad_enabled).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Grad mode off for a scope (torch.no_grad): optimizer updates and
/// inference.
class AutoGradMode {
public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode &) = delete;
  AutoGradMode &operator=(const AutoGradMode &) = delete;

private:
  bool previous_;
};

class NoGradGuard : public AutoGradMode {
public:
  NoGradGuard() : AutoGradMode(false) {}
};

namespace autograd {

/// The gradients of the sum of outputs[i] * grad_outputs[i] with respect to
/// each of inputs (torch.autograd.grad), without touching their grad();
/// an input the outputs do not depend on gets an undefined tensor.
std::vector<Tensor> grad(const std::vector<Tensor> &outputs,
                         const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &grad_outputs = {},
                         bool retain_graph = false);

/// torch.autograd.gradcheck: compares the analytic gradient of each output
/// element of fn(inputs) with central finite differences (step eps) for
/// every input that requires grad (float64 inputs, as torch asks). Returns
/// an empty string when all agree within atol + rtol * |numerical|, else
/// the first disagreement: which input, output and element, both values.
std::string gradcheck(
    const std::function<std::vector<Tensor>(const std::vector<Tensor> &)> &fn,
    const std::vector<Tensor> &inputs, double eps = 1e-6, double atol = 1e-5,
    double rtol = 1e-3);

} // namespace autograd
} // namespace kiln

#endif // KILN_AUTOGRAD_H
