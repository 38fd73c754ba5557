//===- Dispatch.h - From a DType to a C++ element type ----------*- C++ -*-===//
#ifndef KILN_RUNTIME_DISPATCH_H
#define KILN_RUNTIME_DISPATCH_H

#include "kiln/DType.h"
#include "kiln/Error.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace kiln::detail {

template <typename T> struct TypeTag { using type = T; };

/// Calls f(TypeTag<T>{}) for every dtype, the 16-bit floats included.
template <typename F> decltype(auto) dispatchAll(DType dtype, F &&f) {
  switch (dtype) {
  case DType::Bool:
    return f(TypeTag<bool>{});
  case DType::I32:
    return f(TypeTag<int32_t>{});
  case DType::I64:
    return f(TypeTag<int64_t>{});
  case DType::F16:
    return f(TypeTag<Half>{});
  case DType::BF16:
    return f(TypeTag<BFloat16>{});
  case DType::F32:
    return f(TypeTag<float>{});
  case DType::F64:
    return f(TypeTag<double>{});
  }
  throw Error("unknown dtype");
}

/// Calls f(TypeTag<T>{}) for the types kernels compute in (the 16-bit floats
/// are computed in float32: see computeType()).
template <typename F>
decltype(auto) dispatchCompute(DType dtype, const char *op, F &&f) {
  switch (dtype) {
  case DType::Bool:
    return f(TypeTag<bool>{});
  case DType::I32:
    return f(TypeTag<int32_t>{});
  case DType::I64:
    return f(TypeTag<int64_t>{});
  case DType::F32:
    return f(TypeTag<float>{});
  case DType::F64:
    return f(TypeTag<double>{});
  default:
    throw Error(std::string(op) + ": internal error: no kernel for dtype " +
                dtypeName(dtype));
  }
}

/// The dtype a kernel computes in for values stored as dtype.
inline DType computeType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 ? DType::F32 : dtype;
}

/// Value conversion between element types. Float to integer saturates and
/// maps NaN to 0 (C++ leaves out-of-range conversions undefined).
template <typename To, typename From> inline To convertValue(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<From, Half>::value ||
                       std::is_same<From, BFloat16>::value) {
    return convertValue<To>(static_cast<float>(v));
  } else if constexpr (std::is_same<To, Half>::value ||
                       std::is_same<To, BFloat16>::value) {
    return To(convertValue<float>(v));
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_integral<To>::value &&
                       std::is_floating_point<From>::value) {
    if (std::isnan(v))
      return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

} // namespace kiln::detail

#endif
