//===- Unary.cpp - Elementwise functions of one tensor --------------------===//
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/VecMath.h"

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
    throw Error(std::string(op) + ": not supported for dtype " + dtypeName(dt) +
                "; convert with to(kiln::kFloat32) first");
  return dt;
}

/// out = f(x) elementwise; f is generic over the compute type.
template <typename F>
Tensor unaryKernel(const char *op, const Tensor &x, Domain domain, const F &f) {
  DType result = unaryResultType(x, domain, op);
  DType ct = computeType(result);
  Tensor in = x.to(ct);
  Tensor out(in.shape(), ct);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, bool>::value)
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
  return unaryKernel("neg", x, Domain::Any, [](auto v) {
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
  return unaryKernel("abs", x, Domain::Any, [](auto v) {
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
  return unaryKernel("relu", x, Domain::Any, [](auto v) {
    using T = decltype(v);
    return v > T(0) || v != v ? v : T(0); // NaN propagates
  });
}

Tensor exp(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("exp", x, Domain::Floating,
                     [](auto v) { return vexp(v); });
}

Tensor sigmoid(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("sigmoid", x, Domain::Floating,
                     [](auto v) { return sigmoidOf(v); });
}

Tensor silu(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("silu", x, Domain::FloatOnly,
                     [](auto v) { return v * sigmoidOf(v); });
}

Tensor gelu(const Tensor &x, const std::string &approximate) {
  detail::CountedOp counted;
  if (approximate == "tanh")
    return unaryKernel("gelu", x, Domain::FloatOnly, [](auto v) {
      using T = decltype(v);
      const T k = T(0.7978845608028654); // sqrt(2 / pi)
      return T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
    });
  if (approximate != "none")
    throw Error("gelu: approximate must be \"none\" or \"tanh\", got \"" +
                approximate + "\"");
  return unaryKernel("gelu", x, Domain::FloatOnly, [](auto v) {
    using T = decltype(v);
    return T(0.5) * v * (T(1) + verf(v * T(0.7071067811865476)));
  });
}

Tensor log(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("log", x, Domain::Floating,
                     [](auto v) { return std::log(v); });
}

Tensor sqrt(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("sqrt", x, Domain::Floating,
                     [](auto v) { return std::sqrt(v); });
}

Tensor rsqrt(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("rsqrt", x, Domain::Floating, [](auto v) {
    using T = decltype(v);
    return T(1) / std::sqrt(v);
  });
}

Tensor tanh(const Tensor &x) {
  detail::CountedOp counted;
  return unaryKernel("tanh", x, Domain::Floating,
                     [](auto v) { return std::tanh(v); });
}

} // namespace kiln
