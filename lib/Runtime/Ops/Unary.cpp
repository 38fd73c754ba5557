//===- Unary.cpp - Elementwise functions of one tensor --------------------===//
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

} // namespace

Tensor neg(const Tensor &x) {
  detail::CountedOp counted;
  if (x.defined() && x.dtype() == DType::Bool)
    throw Error("neg: negating a bool tensor is not supported; use "
                "logical_not or convert with to(kiln::kInt64)");
  return unaryKernel<Domain::Any>("neg", x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral<T>::value) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U(0) - static_cast<U>(v)); // wraps like torch
    } else {
      return -v;
    }
  });
}

Tensor operator-(const Tensor &x) {
  detail::CountedOp counted;
  return neg(x);
}

Tensor abs(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Any>("abs", x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral<T>::value) {
      using U = std::make_unsigned_t<T>;
      return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
    } else {
      return std::fabs(v);
    }
  });
}

Tensor relu(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Any>("relu", x, [](auto v) {
    using T = decltype(v);
    return v > T(0) || v != v ? v : T(0); // NaN propagates
  });
}

Tensor exp(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("exp", x,
                                       [](auto v) { return vexp(v); });
}

Tensor sigmoid(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("sigmoid", x,
                                       [](auto v) { return sigmoidOf(v); });
}

Tensor silu(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::FloatOnly>(
      "silu", x, [](auto v) { return v * sigmoidOf(v); });
}

Tensor gelu(const Tensor &x, const std::string &approximate) {
  detail::CountedOp counted;
  if (approximate == "tanh")
    return unaryKernel<Domain::FloatOnly>("gelu", x, [](auto v) {
      // 0.5 v (1 + tanh(u)) = v sigmoid(2u), u = sqrt(2/pi) (v + 0.044715
      // v^3): the same function without 1 + tanh's cancellation (at v = -4,
      // tanh's last bit is a thousandth of the result).
      using T = decltype(v);
      const T k = T(2 * 0.7978845608028654); // 2 sqrt(2 / pi)
      return v * sigmoidOf(k * (v + T(0.044715) * v * v * v));
    });
  if (approximate != "none")
    throw Error("gelu: approximate must be \"none\" or \"tanh\", got \"" +
                approximate + "\"");
  return unaryKernel<Domain::FloatOnly>("gelu", x, [](auto v) {
    using T = decltype(v);
    return T(0.5) * v * (T(1) + verf(v * T(0.7071067811865476)));
  });
}

Tensor log(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("log", x,
                                       [](auto v) { return std::log(v); });
}

Tensor sqrt(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("sqrt", x,
                                       [](auto v) { return std::sqrt(v); });
}

Tensor rsqrt(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("rsqrt", x, [](auto v) {
    using T = decltype(v);
    return T(1) / std::sqrt(v);
  });
}

Tensor tanh(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel<Domain::Floating>("tanh", x,
                                       [](auto v) { return std::tanh(v); });
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
#define KILN_FLOAT_FUNCTION(NAME, DOMAIN, EXPR)                                \
  Tensor NAME(const Tensor &x) {                                               \
    detail::CountedOp counted;                                                 \
    return unaryKernel<Domain::DOMAIN>(#NAME, x, [](auto v) {                  \
      using T = decltype(v);                                                   \
      (void)sizeof(T);                                                         \
      return EXPR;                                                             \
    });                                                                        \
  }
KILN_FLOAT_FUNCTION(sin, Floating, std::sin(v))
KILN_FLOAT_FUNCTION(cos, Floating, std::cos(v))
KILN_FLOAT_FUNCTION(tan, Floating, std::tan(v))
KILN_FLOAT_FUNCTION(atan, Floating, std::atan(v))
KILN_FLOAT_FUNCTION(erf, Floating, std::erf(v))
KILN_FLOAT_FUNCTION(erfc, Floating, std::erfc(v))
KILN_FLOAT_FUNCTION(log1p, Floating, std::log1p(v))
KILN_FLOAT_FUNCTION(expm1, Floating, std::expm1(v))
KILN_FLOAT_FUNCTION(log2, Floating, std::log2(v))
KILN_FLOAT_FUNCTION(exp2, Floating, std::exp2(v))
KILN_FLOAT_FUNCTION(reciprocal, Floating, T(1) / v)
KILN_FLOAT_FUNCTION(softplus, FloatOnly, softplusOf(v))
KILN_FLOAT_FUNCTION(mish, FloatOnly, v *std::tanh(softplusOf(v)))
KILN_FLOAT_FUNCTION(hardswish, FloatOnly, v *relu6(v + T(3)) / T(6))
KILN_FLOAT_FUNCTION(hardsigmoid, FloatOnly, relu6(v + T(3)) / T(6))
#undef KILN_FLOAT_FUNCTION

// Rounding and squaring keep the dtype; integers round to themselves.
#define KILN_SAME_TYPE_FUNCTION(NAME, FLOAT_EXPR, INT_EXPR)                    \
  Tensor NAME(const Tensor &x) {                                               \
    detail::CountedOp counted;                                                 \
    return unaryKernel<Domain::Any>(#NAME, x, [](auto v) {                     \
      using T = decltype(v);                                                   \
      if constexpr (std::is_integral<T>::value)                                \
        return static_cast<T>(INT_EXPR);                                       \
      else                                                                     \
        return static_cast<T>(FLOAT_EXPR);                                     \
    });                                                                        \
  }
KILN_SAME_TYPE_FUNCTION(floor, std::floor(v), v)
KILN_SAME_TYPE_FUNCTION(ceil, std::ceil(v), v)
KILN_SAME_TYPE_FUNCTION(round, std::nearbyint(v), v)
KILN_SAME_TYPE_FUNCTION(trunc, std::trunc(v), v)
// (Integers wrap like torch's.)
KILN_SAME_TYPE_FUNCTION(square, v *v,
                        static_cast<std::make_unsigned_t<T>>(v) *
                            static_cast<std::make_unsigned_t<T>>(v))
#undef KILN_SAME_TYPE_FUNCTION

} // namespace kiln
