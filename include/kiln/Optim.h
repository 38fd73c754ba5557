//===- kiln/Optim.h - Optimizers and gradient clipping ----------*- C++ -*-===//
//
// LibTorch's torch::optim, for the parameters' grad() that backward()
// fills: SGD, Adam and AdamW with torch's update formulas (L2 penalty for
// SGD and Adam, decoupled decay for AdamW, bias correction, amsgrad), and
// nn::utils::clip_grad_norm_. Each step updates a parameter in place, with
// its state, in one pass over its elements (lib/Runtime/Optim).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPTIM_H
#define KILN_OPTIM_H

#include "kiln/Tensor.h"

#include <cstdint>
#include <tuple>
#include <vector>

namespace kiln {
namespace optim {

/// Options as LibTorch spells them: `SGDOptions(0.1).momentum(0.9)`; each
/// name with no argument reads the value.
#define KILN_OPTION(TYPE, NAME)                                                \
public:                                                                        \
  auto &NAME(const TYPE &value) {                                              \
    NAME##_ = value;                                                           \
    return *this;                                                              \
  }                                                                            \
  const TYPE &NAME() const { return NAME##_; }                                 \
                                                                               \
private:                                                                       \
  TYPE NAME##_

using Betas = std::tuple<double, double>;

struct SGDOptions {
  SGDOptions(double lr) : lr_(lr) {}
  KILN_OPTION(double, lr);
  KILN_OPTION(double, momentum) = 0;
  KILN_OPTION(double, dampening) = 0;
  KILN_OPTION(double, weight_decay) = 0;
  KILN_OPTION(bool, nesterov) = false;
};

struct AdamOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  KILN_OPTION(double, lr);
  KILN_OPTION(Betas, betas) = {0.9, 0.999};
  KILN_OPTION(double, eps) = 1e-8;
  KILN_OPTION(double, weight_decay) = 0;
  KILN_OPTION(bool, amsgrad) = false;
};

struct AdamWOptions {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  KILN_OPTION(double, lr);
  KILN_OPTION(Betas, betas) = {0.9, 0.999};
  KILN_OPTION(double, eps) = 1e-8;
  KILN_OPTION(double, weight_decay) = 1e-2;
  KILN_OPTION(bool, amsgrad) = false;
};

/// Holds the parameters (handles: the module's tensors themselves).
class Optimizer {
public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer();
  Optimizer(const Optimizer &) = delete;
  Optimizer &operator=(const Optimizer &) = delete;

  /// Updates every parameter that has a grad(), without recording.
  virtual void step() = 0;
  /// Resets the gradients: undefined (set_to_none, torch's default) or
  /// zeroed in place.
  void zero_grad(bool set_to_none = true);
  const std::vector<Tensor> &parameters() const { return params_; }

protected:
  std::vector<Tensor> params_;
};

/// p -= lr * d, d the gradient with the L2 penalty and momentum (torch's
/// buffer: b = momentum * b + (1 - dampening) * g, the first step b = g;
/// nesterov d = g + momentum * b).
class SGD : public Optimizer {
public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;
  SGDOptions &options() { return options_; }

private:
  SGDOptions options_;
  std::vector<Tensor> momentum_;
};

/// torch's Adam and AdamW (one implementation: AdamW decays the parameter
/// by lr * weight_decay before the update, Adam adds weight_decay * p to
/// the gradient).
class Adam : public Optimizer {
public:
  Adam(std::vector<Tensor> params, AdamOptions options);
  void step() override;
  AdamOptions &options() { return options_; }

protected:
  Adam(std::vector<Tensor> params, AdamOptions options, bool decoupled);

private:
  AdamOptions options_;
  bool decoupled_;
  std::vector<Tensor> expAvg_, expAvgSq_, maxExpAvgSq_;
  std::vector<int64_t> steps_;
};

class AdamW : public Adam {
public:
  AdamW(std::vector<Tensor> params, AdamWOptions options);
};

#undef KILN_OPTION

} // namespace optim

namespace nn::utils {
/// Scales the parameters' gradients so that their joint norm (over all of
/// them; norm_type 2, 1 or infinity) is at most max_norm, as torch does:
/// each grad multiplied by min(1, max_norm / (norm + 1e-6)). Returns the
/// norm before clipping.
double clip_grad_norm_(const std::vector<Tensor> &parameters, double max_norm,
                       double norm_type = 2.0);
} // namespace nn::utils

} // namespace kiln

#endif // KILN_OPTIM_H
