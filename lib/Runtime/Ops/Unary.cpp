//===- Unary.cpp - Elementwise functions of one tensor --------------------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/VecMath.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace kiln {
using namespace detail;

namespace {

enum class Domain {
  Any,      // every dtype, result keeps it (neg, abs, relu; bool rejected)
  Floating, // integers and bools are promoted to float32 (exp, log, ...)
  FloatOnly // integers and bools are rejected (gelu, silu)
};

/// The dtype a unary op computes in and returns, or a kiln::Error.
DType unaryResultType(const Tensor &x, Domain domain, const char *op) {
  checkCpu(x, op);
  DType dt = x.dtype();
  if (isFloating(dt))
    return dt;
  if (domain == Domain::Floating)
    return DType::F32;
  if (domain == Domain::FloatOnly || dt == DType::Bool)
    throw unsupportedDType(op, dt);
  return dt;
}

/// out = f(x) elementwise; f is generic over the compute type. A floating
/// domain computes in float32 or float64 only, so f is never instantiated
/// for integers: besides being dead code, std::exp2 of a vector of int32
/// becomes a vector llvm.ldexp that clang-22 cannot select on AVX-512
/// targets tuned for 256-bit vectors (Skylake-SP to Sapphire Rapids).
template <Domain D, typename F>
Tensor unaryKernel(const char *op, const Tensor &x, const F &f) {
  DType result = unaryResultType(x, D, op);
  DType ct = computeType(result);
  Tensor in = x.to(ct);
  Tensor out(in.shape(), ct);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr bool computes = D == Domain::Any
                                  ? !std::is_same<T, bool>::value
                                  : std::is_floating_point<T>::value;
    if constexpr (computes)
      unaryLoop<T, T>(out, in, [&](T v) -> T { return f(v); });
  });
  return ct == result ? out : out.to(result);
}

/// 1 / (1 + e^-v), written through e^-|v| so that large negative inputs
/// give their tiny true value rather than 1 / inf.
template <typename T> T sigmoidOf(T v) {
  T e = static_cast<T>(vexp(-std::fabs(v)));
  T s = T(1) / (T(1) + e);
  return v >= T(0) || v != v ? s : e * s;
}

using autograd::Grads;
using autograd::Needs;
using autograd::SavedTensor;

/// Records out = f(x) with derivative df(x, out) (saved tensors, unpacked
/// when the formula needs them): x's gradient is g * df.
template <typename DF>
Tensor recordUnary(autograd::Recorder &grad, const Tensor &x, const Tensor &out,
                   DF df) {
  if (grad)
    grad.record(out, [sx = grad.save(x), so = grad.save(out, true),
                      df](const Grads &g, const Needs &) {
      return Grads{df(g[0], sx, so)};
    });
  return out;
}

constexpr double kPi = 3.14159265358979323846;

// Derivatives torch writes as their own kernels (FunctionsManual.cpp).
Tensor siluBackward(const Tensor &g, const Tensor &x) {
  Tensor s = sigmoid(x);
  return g * s * (1 + x * (1 - s));
}
Tensor mishBackward(const Tensor &g, const Tensor &x) {
  Tensor t = tanh(softplus(x));
  return g * (t + x * sigmoid(x) * (1 - t * t));
}
Tensor geluBackward(const Tensor &g, const Tensor &x, bool tanhForm) {
  if (tanhForm) {
    const double k = std::sqrt(2 / kPi), c = 0.044715;
    Tensor t = tanh(k * (x + c * x * x * x));
    return g *
           (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
  }
  return g * (0.5 * (1 + erf(x * (1 / std::sqrt(2.0)))) +
              x * exp(-0.5 * x * x) * (1 / std::sqrt(2 * kPi)));
}

} // namespace

Tensor neg(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("NegBackward0", x);
  if (x.defined() && x.dtype() == DType::Bool)
    throw Error("neg: negating a bool tensor is not supported; use "
                "logical_not or convert with to(kiln::kInt64)");
  Tensor out = unaryKernel<Domain::Any>("neg", x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral<T>::value) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U(0) - static_cast<U>(v)); // wraps like torch
    } else {
      return -v;
    }
  });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return -g;
      });
}

Tensor operator-(const Tensor &x) {
  detail::CountedOp counted;
  return neg(x);
}

Tensor abs(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("AbsBackward0", x);
  Tensor out = unaryKernel<Domain::Any>("abs", x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral<T>::value) {
      using U = std::make_unsigned_t<T>;
      return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
    } else {
      return std::fabs(v);
    }
  });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g * sign(x.get());
      });
}

Tensor relu(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("ReluBackward0", x);
  Tensor out = unaryKernel<Domain::Any>("relu", x, [](auto v) {
    using T = decltype(v);
    return v > T(0) || v != v ? v : T(0); // NaN propagates
  });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        // threshold_backward: 0 where the result is at most 0 (a NaN
        // gradient too), the gradient elsewhere (a NaN result too).
        return where(o.get() <= 0, zeros({}, g.dtype()), g);
      });
}

Tensor exp(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("ExpBackward0", x);
  Tensor out =
      unaryKernel<Domain::Floating>("exp", x, [](auto v) { return vexp(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g * o.get();
      });
}

Tensor sigmoid(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("SigmoidBackward0", x);
  Tensor out = unaryKernel<Domain::Floating>(
      "sigmoid", x, [](auto v) { return sigmoidOf(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g * o.get() * (1 - o.get());
      });
}

Tensor silu(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("SiluBackward0", x);
  Tensor out = unaryKernel<Domain::FloatOnly>(
      "silu", x, [](auto v) { return v * sigmoidOf(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return siluBackward(g, x.get());
      });
}

Tensor gelu(const Tensor &x, const std::string &approximate) {
  detail::CountedOp counted;
  autograd::Recorder grad("GeluBackward0", x);
  bool tanhForm = approximate == "tanh";
  auto derivative = [tanhForm](const Tensor &g, const SavedTensor &x,
                               const SavedTensor &) {
    return geluBackward(g, x.get(), tanhForm);
  };
  if (tanhForm)
    return recordUnary(
        grad, x,
        unaryKernel<Domain::FloatOnly>(
            "gelu", x,
            [](auto v) {
              // 0.5 v (1 + tanh(u)) = v sigmoid(2u), u = sqrt(2/pi) (v +
              // 0.044715 v^3): the same function without 1 + tanh's
              // cancellation (at v = -4, tanh's last bit is a thousandth of the
              // result).
              using T = decltype(v);
              const T k = T(2 * 0.7978845608028654); // 2 sqrt(2 / pi)
              return v * sigmoidOf(k * (v + T(0.044715) * v * v * v));
            }),
        derivative);
  if (approximate != "none")
    throw Error("gelu: approximate must be \"none\" or \"tanh\", got \"" +
                approximate + "\"");
  return recordUnary(grad, x,
                     unaryKernel<Domain::FloatOnly>(
                         "gelu", x,
                         [](auto v) {
                           using T = decltype(v);
                           return T(0.5) * v *
                                  (T(1) + verf(v * T(0.7071067811865476)));
                         }),
                     derivative);
}

Tensor log(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("LogBackward0", x);
  Tensor out = unaryKernel<Domain::Floating>(
      "log", x, [](auto v) { return std::log(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g / x.get();
      });
}

Tensor sqrt(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("SqrtBackward0", x);
  Tensor out = unaryKernel<Domain::Floating>(
      "sqrt", x, [](auto v) { return std::sqrt(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g / (2 * o.get());
      });
}

Tensor rsqrt(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("RsqrtBackward0", x);
  Tensor out = unaryKernel<Domain::Floating>("rsqrt", x, [](auto v) {
    using T = decltype(v);
    return T(1) / std::sqrt(v);
  });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return -0.5 * g * o.get() * o.get() * o.get();
      });
}

Tensor tanh(const Tensor &x) {
  detail::CountedOp counted;
  autograd::Recorder grad("TanhBackward0", x);
  Tensor out = unaryKernel<Domain::Floating>(
      "tanh", x, [](auto v) { return std::tanh(v); });
  return recordUnary(
      grad, x, out,
      [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {
        (void)x;
        (void)o;
        return g * (1 - o.get() * o.get());
      });
}

namespace {
/// min(max(v, 0), 6), NaN propagating.
template <typename T> T relu6(T v) {
  return v != v ? v : std::min(std::max(v, T(0)), T(6));
}
template <typename T> T softplusOf(T v) {
  return v > T(20) ? v : std::log1p(std::exp(v));
}
} // namespace

// Functions of one argument computed in floating point: DOMAIN Floating
// promotes integers and bools to float32, FloatOnly (the activations torch
// defines on floating tensors only) rejects them.
// NODE and GRAD are the backward node and x's gradient, from g and the
// saved x and output o.
#define KILN_FLOAT_FUNCTION(NAME, DOMAIN, EXPR, NODE, GRAD)                    \
  Tensor NAME(const Tensor &x) {                                               \
    detail::CountedOp counted;                                                 \
    autograd::Recorder grad(NODE, x);                                          \
    Tensor out = unaryKernel<Domain::DOMAIN>(#NAME, x, [](auto v) {            \
      using T = decltype(v);                                                   \
      (void)sizeof(T);                                                         \
      return EXPR;                                                             \
    });                                                                        \
    return recordUnary(                                                        \
        grad, x, out,                                                          \
        [](const Tensor &g, const SavedTensor &x, const SavedTensor &o) {      \
          (void)x;                                                             \
          (void)o;                                                             \
          return GRAD;                                                         \
        });                                                                    \
  }
KILN_FLOAT_FUNCTION(sin, Floating, std::sin(v), "SinBackward0", g *cos(x.get()))
KILN_FLOAT_FUNCTION(cos, Floating, std::cos(v), "CosBackward0",
                    -g *sin(x.get()))
KILN_FLOAT_FUNCTION(tan, Floating, std::tan(v), "TanBackward0",
                    g *(1 + o.get() * o.get()))
KILN_FLOAT_FUNCTION(atan, Floating, std::atan(v), "AtanBackward0",
                    g / (1 + x.get() * x.get()))
KILN_FLOAT_FUNCTION(erf, Floating, std::erf(v), "ErfBackward0",
                    g *(2 / std::sqrt(kPi)) * exp(-x.get() * x.get()))
KILN_FLOAT_FUNCTION(erfc, Floating, std::erfc(v), "ErfcBackward0",
                    g *(-2 / std::sqrt(kPi)) * exp(-x.get() * x.get()))
KILN_FLOAT_FUNCTION(log1p, Floating, std::log1p(v), "Log1PBackward0",
                    g / (1 + x.get()))
KILN_FLOAT_FUNCTION(expm1, Floating, std::expm1(v), "Expm1Backward0",
                    g *(o.get() + 1))
KILN_FLOAT_FUNCTION(log2, Floating, std::log2(v), "Log2Backward0",
                    g / (x.get() * std::log(2.0)))
KILN_FLOAT_FUNCTION(log10, Floating, std::log10(v), "Log10Backward0",
                    g / (x.get() * std::log(10.0)))
KILN_FLOAT_FUNCTION(exp2, Floating, std::exp2(v), "Exp2Backward0",
                    g *o.get() * std::log(2.0))
KILN_FLOAT_FUNCTION(reciprocal, Floating, T(1) / v, "ReciprocalBackward0",
                    -g *o.get() * o.get())
KILN_FLOAT_FUNCTION(softplus, FloatOnly, softplusOf(v), "SoftplusBackward0",
                    where(x.get() > 20, g, g *sigmoid(x.get())))
KILN_FLOAT_FUNCTION(mish, FloatOnly, v *std::tanh(softplusOf(v)),
                    "MishBackward0", mishBackward(g, x.get()))
KILN_FLOAT_FUNCTION(hardswish, FloatOnly, v *relu6(v + T(3)) / T(6),
                    "HardswishBackward0",
                    where(x.get() < -3, zeros_like(g),
                          where(x.get() <= 3, g *(x.get() / 3 + 0.5), g)))
KILN_FLOAT_FUNCTION(hardsigmoid, FloatOnly, relu6(v + T(3)) / T(6),
                    "HardsigmoidBackward0",
                    where(logical_and(x.get() > -3, x.get() < 3), g / 6,
                          zeros_like(g)))
#undef KILN_FLOAT_FUNCTION

// Rounding and squaring keep the dtype; integers round to themselves.
#define KILN_SAME_TYPE_FUNCTION(NAME, FLOAT_EXPR, INT_EXPR, NODE, GRAD)        \
  Tensor NAME(const Tensor &x) {                                               \
    detail::CountedOp counted;                                                 \
    autograd::Recorder grad(NODE, x);                                          \
    Tensor out = unaryKernel<Domain::Any>(#NAME, x, [](auto v) {               \
      using T = decltype(v);                                                   \
      if constexpr (std::is_integral<T>::value)                                \
        return static_cast<T>(INT_EXPR);                                       \
      else                                                                     \
        return static_cast<T>(FLOAT_EXPR);                                     \
    });                                                                        \
    return recordUnary(                                                        \
        grad, x, out,                                                          \
        [](const Tensor &g, const SavedTensor &x, const SavedTensor &) {       \
          (void)x;                                                             \
          return GRAD;                                                         \
        });                                                                    \
  }
KILN_SAME_TYPE_FUNCTION(floor, std::floor(v), v, "FloorBackward0",
                        zeros_like(g))
KILN_SAME_TYPE_FUNCTION(ceil, std::ceil(v), v, "CeilBackward0", zeros_like(g))
KILN_SAME_TYPE_FUNCTION(round, std::nearbyint(v), v, "RoundBackward0",
                        zeros_like(g))
KILN_SAME_TYPE_FUNCTION(trunc, std::trunc(v), v, "TruncBackward0",
                        zeros_like(g))
// (Integers wrap like torch's.)
KILN_SAME_TYPE_FUNCTION(square, v *v,
                        static_cast<std::make_unsigned_t<T>>(v) *
                            static_cast<std::make_unsigned_t<T>>(v),
                        "PowBackward0", 2 * g * x.get())
#undef KILN_SAME_TYPE_FUNCTION

} // namespace kiln
