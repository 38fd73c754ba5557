//===- Optimizers.cpp - SGD, Adam, AdamW and clip_grad_norm_ --------------===//
//
// torch.optim's single-tensor formulas, each parameter updated with its
// state in one pass over its elements (torch's "foreach"/"fused" idea:
// no temporaries per term). Float32 and float64 parameters are updated in
// their own type; others (bf16, f16) through a float32 copy written back.
//
//===----------------------------------------------------------------------===//
#include "kiln/Optim.h"

#include "Core/Parallel.h"
#include "Core/Stats.h"
#include "kiln/Autograd.h"
#include "kiln/Ops.h"

#include <cmath>
#include <limits>

namespace kiln {
namespace optim {

namespace {
void checkParameter(const Tensor &p, size_t index, const char *optimizer) {
  if (!p.defined())
    throw Error(std::string(optimizer) + ": parameter " +
                std::to_string(index) + " is undefined");
  if (!isFloating(p.dtype()))
    throw Error(std::string(optimizer) + ": parameter " +
                std::to_string(index) + " is " + dtypeName(p.dtype()) +
                "; only floating tensors can be optimized");
  if (p.device().type != DeviceType::CPU)
    throw Error(std::string(optimizer) + ": parameter " +
                std::to_string(index) + " is on " + p.device().str() +
                "; optimizers update on the cpu");
}

/// Runs update(begin, end, p, g, states) over the threads' ranges of
/// contiguous buffers of one compute type (float or double), then writes p
/// back where it was a copy. States are made (zeros, p's shape, compute
/// type) on first use. The update loops itself, its constants in the
/// compute type, so that the loop vectorizes.
template <typename Update>
void elementwiseUpdate(const Tensor &p, std::vector<Tensor *> states,
                       const Update &update) {
  DType ct = p.dtype() == DType::F64 ? DType::F64 : DType::F32;
  for (Tensor *s : states)
    if (!s->defined())
      *s = zeros(p.shape(), ct);
  Tensor g = p.grad().to(ct).contiguous();
  bool inPlace = p.dtype() == ct && p.is_contiguous();
  Tensor work = inPlace ? p : p.to(ct).contiguous();
  int64_t n = p.numel();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    T *pw = work.data<T>();
    const T *pg = g.data<T>();
    std::vector<T *> ps;
    for (Tensor *s : states)
      ps.push_back(s->data<T>());
    detail::parallelFor(n, n * 8, [&](int64_t begin, int64_t end) {
      update(begin, end, pw, pg, ps.data());
    });
  };
  if (ct == DType::F64)
    run(0.0);
  else
    run(0.0f);
  if (!inPlace)
    p.copy_(work);
  else
    p.storage()->bumpVersion();
}

/// One Adam(W) step over elements [begin, end): torch's single-tensor
/// formulas in the compute type T, with the options' branches taken
/// outside the element loop (one loop per combination) so that it
/// vectorizes.
struct AdamStep {
  double lrDecay;
  bool decoupled;
  double decay, beta1, beta2, eps;
  bool amsgrad;
  double stepSize, correction2;

  template <typename T>
  void run(int64_t begin, int64_t end, T *w, const T *g, T *const *s) const {
    bool l2 = !decoupled && decay != 0;
    if (l2)
      amsgrad ? loop<T, true, true>(begin, end, w, g, s)
              : loop<T, true, false>(begin, end, w, g, s);
    else
      amsgrad ? loop<T, false, true>(begin, end, w, g, s)
              : loop<T, false, false>(begin, end, w, g, s);
  }

  template <typename T, bool L2, bool Amsgrad>
  void loop(int64_t begin, int64_t end, T *__restrict w,
            const T *__restrict g, T *const *s) const {
    // AdamW's decoupled decay multiplies by 1 - lr * decay, exactly 1 (a
    // no-op, NaN and inf kept) for Adam and for a decay of 0.
    const T keep = static_cast<T>(decoupled ? 1 - lrDecay : 1.0),
            l2 = static_cast<T>(decay), b1 = static_cast<T>(1 - beta1),
            b2 = static_cast<T>(beta2), c2 = static_cast<T>(1 - beta2),
            corr = static_cast<T>(correction2), e = static_cast<T>(eps),
            step = static_cast<T>(stepSize);
    T *__restrict m = s[0];
    T *__restrict v = s[1];
    T *__restrict vmax = Amsgrad ? s[2] : nullptr;
    for (int64_t i = begin; i < end; ++i) {
      T wi = w[i] * keep;
      T gi = g[i];
      if constexpr (L2)
        gi += l2 * wi;
      T mi = m[i] + (gi - m[i]) * b1; // torch's lerp_
      T vi = v[i] * b2 + c2 * gi * gi;
      m[i] = mi;
      v[i] = vi;
      T second = vi;
      if constexpr (Amsgrad) {
        T top = vi > vmax[i] || vi != vi ? vi : vmax[i]; // NaN propagates
        vmax[i] = top;
        second = top;
      }
      T denom = std::sqrt(second) / corr + e;
      w[i] = wi - step * mi / denom;
    }
  }
};
} // namespace

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {}
Optimizer::~Optimizer() = default;

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard noGrad;
  for (const Tensor &p : params_) {
    if (!p.defined() || !p.grad().defined())
      continue;
    if (set_to_none)
      p.mutable_grad() = Tensor();
    else
      p.mutable_grad().zero_();
  }
}

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params)), options_(options) {
  for (size_t i = 0; i < params_.size(); ++i)
    checkParameter(params_[i], i, "SGD");
  if (options_.nesterov() &&
      (options_.momentum() <= 0 || options_.dampening() != 0))
    throw Error("SGD: nesterov momentum requires a momentum and zero "
                "dampening");
  momentum_.resize(params_.size());
}

void SGD::step() {
  detail::CountedOp counted;
  NoGradGuard noGrad;
  const double lr = options_.lr(), momentum = options_.momentum(),
               dampening = options_.dampening(),
               decay = options_.weight_decay();
  const bool nesterov = options_.nesterov();
  for (size_t k = 0; k < params_.size(); ++k) {
    const Tensor &p = params_[k];
    if (!p.grad().defined())
      continue;
    bool first = !momentum_[k].defined();
    std::vector<Tensor *> states;
    if (momentum != 0)
      states.push_back(&momentum_[k]);
    elementwiseUpdate(p, states, [&](int64_t begin, int64_t end, auto *w,
                                     const auto *g, auto *const *s) {
      using T = std::remove_pointer_t<decltype(w)>;
      for (int64_t i = begin; i < end; ++i) {
        T d = g[i];
        if (decay != 0)
          d += static_cast<T>(decay) * w[i];
        if (momentum != 0) {
          T &b = s[0][i];
          b = first ? d
                    : static_cast<T>(momentum) * b +
                          static_cast<T>(1 - dampening) * d;
          d = nesterov ? d + static_cast<T>(momentum) * b : b;
        }
        w[i] -= static_cast<T>(lr) * d;
      }
    });
  }
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Adam(std::move(params), options, false) {}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, bool decoupled)
    : Optimizer(std::move(params)), options_(options), decoupled_(decoupled) {
  const char *name = decoupled ? "AdamW" : "Adam";
  for (size_t i = 0; i < params_.size(); ++i)
    checkParameter(params_[i], i, name);
  auto [beta1, beta2] = options_.betas();
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
    throw Error(std::string(name) + ": betas must lie in [0, 1), got (" +
                std::to_string(beta1) + ", " + std::to_string(beta2) + ")");
  if (!(options_.eps() >= 0) || !(options_.lr() >= 0))
    throw Error(std::string(name) + ": lr and eps must not be negative");
  expAvg_.resize(params_.size());
  expAvgSq_.resize(params_.size());
  maxExpAvgSq_.resize(params_.size());
  steps_.assign(params_.size(), 0);
}

void Adam::step() {
  detail::CountedOp counted;
  NoGradGuard noGrad;
  const double lr = options_.lr(), eps = options_.eps(),
               decay = options_.weight_decay();
  const auto [beta1, beta2] = options_.betas();
  const bool amsgrad = options_.amsgrad(), decoupled = decoupled_;
  for (size_t k = 0; k < params_.size(); ++k) {
    const Tensor &p = params_[k];
    if (!p.grad().defined())
      continue;
    int64_t step = ++steps_[k];
    // torch: step_size = lr / (1 - beta1^t), denominators divided by
    // sqrt(1 - beta2^t).
    const double stepSize = lr / (1 - std::pow(beta1, step));
    const double correction2 = std::sqrt(1 - std::pow(beta2, step));
    std::vector<Tensor *> states{&expAvg_[k], &expAvgSq_[k]};
    if (amsgrad)
      states.push_back(&maxExpAvgSq_[k]);
    AdamStep constants{lr * decay, decoupled, decay,  beta1,    beta2,
                       eps,        amsgrad,   stepSize, correction2};
    elementwiseUpdate(p, states, [&](int64_t begin, int64_t end, auto *w,
                                     const auto *g, auto *const *s) {
      constants.run(begin, end, w, g, s);
    });
  }
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options)
    : Adam(std::move(params),
           AdamOptions(options.lr())
               .betas(options.betas())
               .eps(options.eps())
               .weight_decay(options.weight_decay())
               .amsgrad(options.amsgrad()),
           true) {}

} // namespace optim

namespace nn::utils {

double clip_grad_norm_(const std::vector<Tensor> &parameters, double max_norm,
                       double norm_type) {
  detail::CountedOp counted;
  NoGradGuard noGrad;
  std::vector<Tensor> grads;
  for (const Tensor &p : parameters)
    if (p.defined() && p.grad().defined())
      grads.push_back(p.grad());
  if (grads.empty())
    return 0.0;
  double total = 0;
  bool inf = std::isinf(norm_type);
  for (const Tensor &g : grads) {
    double n = norm(g.to(DType::F64), norm_type).item<double>();
    total = inf ? std::max(total, n) : total + std::pow(n, norm_type);
  }
  if (!inf)
    total = std::pow(total, 1.0 / norm_type);
  double coef = std::min(1.0, max_norm / (total + 1e-6));
  for (Tensor &g : grads)
    g.mul_(coef);
  return total;
}

} // namespace nn::utils
} // namespace kiln
