//===- Arithmetic.cpp - Binary arithmetic, comparisons and where ----------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"

#include <cmath>
#include <type_traits>

namespace kiln {
namespace detail {

Shape broadcastShapes(const Shape &a, const Shape &b, const char *op) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(
          std::string(op) + ": shapes " + shapeStr(a) + " and " + shapeStr(b) +
          " cannot be broadcast: dim " +
          std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(rank)) +
          " has sizes " + std::to_string(da) + " and " + std::to_string(db));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// torch's combine_categories: the higher-ranked result wins unless the
/// lower one brings a higher category (bool < integer < floating).
static DType combineCategories(bool hasHigher, DType higher, bool hasLower,
                               DType lower) {
  if (!hasHigher)
    return lower;
  if (!hasLower || isFloating(higher))
    return higher;
  if (higher == DType::Bool || isFloating(lower))
    return promoteTypes(higher, lower);
  return higher;
}

DType resultType(std::initializer_list<PromotionOperand> operands) {
  bool has[3] = {false, false, false};
  DType result[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (const PromotionOperand &o : operands) {
    result[o.rank] =
        has[o.rank] ? promoteTypes(result[o.rank], o.dtype) : o.dtype;
    has[o.rank] = true;
  }
  bool hasLow = has[0] || has[1];
  DType low = combineCategories(has[1], result[1], has[0], result[0]);
  return combineCategories(has[2], result[2], hasLow, low);
}

Tensor scalarTensor(const kiln::Scalar &value, DType dtype) {
  return full({}, value, dtype);
}

Error unsupportedDType(const char *op, DType dt) {
  return Error(std::string(op) + ": not supported for dtype " + dtypeName(dt) +
               "; convert with to(kiln::kFloat32) first");
}

void checkCpu(const Tensor &t, const char *op) {
  t.checkDefined(op);
  if (t.device().type != DeviceType::CPU)
    throw Error(std::string(op) +
                ": the eager runtime computes on the cpu; "
                "got a tensor on " +
                t.device().str());
}

/// Integer arithmetic wraps around like torch's, without C++'s undefined
/// behaviour on signed overflow.
template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

/// x^n for integers n >= 0 by squaring (wrapping like torch).
template <typename T> T intPow(T x, T n) {
  T result = 1;
  while (n > 0) {
    if (n & 1)
      result = wrapMul(result, x);
    x = wrapMul(x, x);
    n >>= 1;
  }
  return result;
}

} // namespace detail

using namespace detail;

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

namespace {

Tensor addWith(const Tensor &a, const Tensor &b, DType common) {
  return binaryKernel<false>("add", a, b, common, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value)
      return static_cast<bool>(x || y);
    else if constexpr (std::is_integral<T>::value)
      return wrapAdd(x, y);
    else
      return x + y;
  });
}

Tensor subWith(const Tensor &a, const Tensor &b, DType common) {
  if (common == DType::Bool)
    throw Error("sub: subtracting bool tensors is not supported; use "
                "logical operations or convert with to(kiln::kInt64)");
  return binaryKernel<false>("sub", a, b, common, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value)
      return x; // unreachable: rejected above
    else if constexpr (std::is_integral<T>::value)
      return wrapSub(x, y);
    else
      return x - y;
  });
}

Tensor mulWith(const Tensor &a, const Tensor &b, DType common) {
  return binaryKernel<false>("mul", a, b, common, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value)
      return static_cast<bool>(x && y);
    else if constexpr (std::is_integral<T>::value)
      return wrapMul(x, y);
    else
      return x * y;
  });
}

Tensor divWith(const Tensor &a, const Tensor &b, DType common) {
  // True division: integers and bools divide as float32.
  if (!isFloating(common))
    common = DType::F32;
  return binaryKernel<false>("div", a, b, common,
                             [](auto x, auto y) { return x / y; });
}

Tensor powWith(const Tensor &a, const Tensor &b, DType common) {
  if (common == DType::Bool)
    common = DType::I64;
  if (isIntegral(common, false)) {
    Tensor exps = b.to(DType::I64);
    if (exps.numel() > 0 && amin(exps).item<int64_t>() < 0)
      throw Error("pow: integers to negative integer powers are not allowed");
  }
  return binaryKernel<false>("pow", a, b, common, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value)
      return intPow(x, y);
    else if constexpr (std::is_same<T, bool>::value)
      return x;
    else
      return std::pow(x, y);
  });
}

Tensor maximumWith(const Tensor &a, const Tensor &b, DType common) {
  return binaryKernel<false>("maximum", a, b, common, [](auto x, auto y) {
    return (x > y || x != x) ? x : y; // NaN propagates
  });
}

Tensor minimumWith(const Tensor &a, const Tensor &b, DType common) {
  return binaryKernel<false>("minimum", a, b, common, [](auto x, auto y) {
    return (x < y || x != x) ? x : y;
  });
}

} // namespace

namespace {
using autograd::Grads;
using autograd::Needs;
using autograd::SavedTensor;
/// The gradients of a and b from g and the saved operands (b is a constant
/// tensor when the op was given a scalar).
using BinaryGrad = Tensor (*)(const Tensor &g, const SavedTensor &a,
                              const SavedTensor &b, const Needs &needs);

/// out = impl(a, b), recorded as `node` with the gradients ga and gb
/// (from the operands, saved unless the formulas do without: add, sub).
template <typename Impl>
Tensor binary(const char *node, const Tensor &a, const Tensor &b, DType common,
              Impl impl, BinaryGrad ga, BinaryGrad gb, bool saves = true) {
  autograd::Recorder grad(node, a, b);
  Tensor out = impl(a, b, common);
  if (grad)
    grad.record(out, [sa = saves ? grad.save(a) : SavedTensor(),
                      sb = saves ? grad.save(b) : SavedTensor(), ga,
                      gb](const Grads &g, const Needs &n) {
      return Grads{n[0] ? ga(g[0], sa, sb, n) : Tensor(),
                   n[1] ? gb(g[0], sa, sb, n) : Tensor()};
    });
  return out;
}

Tensor scalarOperand(Scalar value, DType common) {
  return scalarTensor(value, computeType(common));
}

#define KILN_GRAD(EXPR)                                                        \
  [](const Tensor &g, const SavedTensor &a, const SavedTensor &b,              \
     const Needs &) -> Tensor {                                                \
    (void)a;                                                                   \
    (void)b;                                                                   \
    return EXPR;                                                               \
  }
// derivatives.yaml's formulas.
const BinaryGrad kAddA = KILN_GRAD(g), kAddB = KILN_GRAD(g);
const BinaryGrad kSubA = KILN_GRAD(g), kSubB = KILN_GRAD(-g);
const BinaryGrad kMulA = KILN_GRAD(g * b.get()), kMulB = KILN_GRAD(g * a.get());
const BinaryGrad kDivA = KILN_GRAD(g / b.get()),
                 kDivB = KILN_GRAD(-g * a.get() / (b.get() * b.get()));
const BinaryGrad kPowA = KILN_GRAD(
    where(b.get() == 0, zeros_like(g), g *b.get() * pow(a.get(), b.get() - 1)));
const BinaryGrad kPowB =
    KILN_GRAD(where(logical_and(a.get() == 0, b.get() >= 0), zeros_like(g),
                    g *pow(a.get(), b.get()) * log(a.get())));
// torch's max/min backward: where the operands tie each gets half, the
// smaller (larger) one nothing; a NaN operand passes the whole gradient.
const BinaryGrad kMaxA = KILN_GRAD(where(a.get() < b.get(), zeros_like(g),
                                         where(a.get() == b.get(), g / 2, g)));
const BinaryGrad kMaxB = KILN_GRAD(where(a.get() > b.get(), zeros_like(g),
                                         where(a.get() == b.get(), g / 2, g)));
const BinaryGrad kMinA = KILN_GRAD(where(a.get() > b.get(), zeros_like(g),
                                         where(a.get() == b.get(), g / 2, g)));
const BinaryGrad kMinB = KILN_GRAD(where(a.get() < b.get(), zeros_like(g),
                                         where(a.get() == b.get(), g / 2, g)));
#undef KILN_GRAD
} // namespace

#define KILN_BINARY_OP(NAME, IMPL, OPERATOR, NODE, GA, GB, SAVES)              \
  Tensor NAME(const Tensor &a, const Tensor &b) {                              \
    detail::CountedOp counted;                                                 \
    checkCpu(a, #NAME);                                                        \
    checkCpu(b, #NAME);                                                        \
    return binary(NODE, a, b, resultType({promotionOf(a), promotionOf(b)}),    \
                  IMPL, GA, GB, SAVES);                                        \
  }                                                                            \
  Tensor operator OPERATOR(const Tensor &a, const Tensor &b) {                 \
    return NAME(a, b);                                                         \
  }                                                                            \
  Tensor operator OPERATOR(const Tensor &a, Scalar b) {                        \
    detail::CountedOp counted;                                                 \
    checkCpu(a, #NAME);                                                        \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return binary(NODE, a, scalarOperand(b, common), common, IMPL, GA, GB,     \
                  SAVES);                                                      \
  }                                                                            \
  Tensor operator OPERATOR(Scalar a, const Tensor &b) {                        \
    detail::CountedOp counted;                                                 \
    checkCpu(b, #NAME);                                                        \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return binary(NODE, scalarOperand(a, common), b, common, IMPL, GA, GB,     \
                  SAVES);                                                      \
  }

KILN_BINARY_OP(add, addWith, +, "AddBackward0", kAddA, kAddB, false)
KILN_BINARY_OP(sub, subWith, -, "SubBackward0", kSubA, kSubB, false)
KILN_BINARY_OP(mul, mulWith, *, "MulBackward0", kMulA, kMulB, true)
KILN_BINARY_OP(div, divWith, /, "DivBackward0", kDivA, kDivB, true)
#undef KILN_BINARY_OP

Tensor pow(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(a, "pow");
  checkCpu(b, "pow");
  return binary("PowBackward1", a, b,
                resultType({promotionOf(a), promotionOf(b)}), powWith, kPowA,
                kPowB);
}

Tensor pow(const Tensor &a, Scalar exponent) {
  detail::CountedOp counted;
  checkCpu(a, "pow");
  DType common = resultType({promotionOf(a), promotionOf(exponent)});
  return binary("PowBackward0", a, scalarOperand(exponent, common), common,
                powWith, kPowA, kPowB);
}

Tensor maximum(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(a, "maximum");
  checkCpu(b, "maximum");
  return binary("MaximumBackward0", a, b,
                resultType({promotionOf(a), promotionOf(b)}), maximumWith,
                kMaxA, kMaxB);
}

#define KILN_SCALAR_OPERAND(NAME, IMPL, NODE, GA, GB)                          \
  Tensor NAME(const Tensor &a, Scalar b) {                                     \
    detail::CountedOp counted;                                                 \
    checkCpu(a, #NAME);                                                        \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return binary(NODE, a, scalarOperand(b, common), common, IMPL, GA, GB);    \
  }                                                                            \
  Tensor NAME(Scalar a, const Tensor &b) {                                     \
    detail::CountedOp counted;                                                 \
    checkCpu(b, #NAME);                                                        \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return binary(NODE, scalarOperand(a, common), b, common, IMPL, GA, GB);    \
  }
KILN_SCALAR_OPERAND(maximum, maximumWith, "MaximumBackward0", kMaxA, kMaxB)
KILN_SCALAR_OPERAND(minimum, minimumWith, "MinimumBackward0", kMinA, kMinB)
#undef KILN_SCALAR_OPERAND

Tensor minimum(const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(a, "minimum");
  checkCpu(b, "minimum");
  return binary("MinimumBackward0", a, b,
                resultType({promotionOf(a), promotionOf(b)}), minimumWith,
                kMinA, kMinB);
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

namespace {
template <typename F>
Tensor compare(const char *op, const Tensor &a, const Tensor &b, DType common,
               const F &f) {
  return binaryKernel<true>(op, a, b, common, f);
}
} // namespace

#define KILN_COMPARISON(NAME, OPERATOR)                                        \
  Tensor operator OPERATOR(const Tensor &a, const Tensor &b) {                 \
    detail::CountedOp counted;                                                 \
    checkCpu(a, NAME);                                                         \
    checkCpu(b, NAME);                                                         \
    return compare(NAME, a, b, resultType({promotionOf(a), promotionOf(b)}),   \
                   [](auto x, auto y) { return x OPERATOR y; });               \
  }                                                                            \
  Tensor operator OPERATOR(const Tensor &a, Scalar b) {                        \
    detail::CountedOp counted;                                                 \
    checkCpu(a, NAME);                                                         \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return compare(NAME, a, scalarTensor(b, computeType(common)), common,      \
                   [](auto x, auto y) { return x OPERATOR y; });               \
  }                                                                            \
  Tensor operator OPERATOR(Scalar a, const Tensor &b) {                        \
    detail::CountedOp counted;                                                 \
    checkCpu(b, NAME);                                                         \
    DType common = resultType({promotionOf(a), promotionOf(b)});               \
    return compare(NAME, scalarTensor(a, computeType(common)), b, common,      \
                   [](auto x, auto y) { return x OPERATOR y; });               \
  }

KILN_COMPARISON("lt", <)
KILN_COMPARISON("le", <=)
KILN_COMPARISON("gt", >)
KILN_COMPARISON("ge", >=)
KILN_COMPARISON("eq", ==)
KILN_COMPARISON("ne", !=)
#undef KILN_COMPARISON

//===----------------------------------------------------------------------===//
// where
//===----------------------------------------------------------------------===//

namespace {
Tensor whereWith(const Tensor &cond, const Tensor &a, const Tensor &b,
                 DType common) {
  checkCpu(cond, "where");
  checkCpu(a, "where");
  checkCpu(b, "where");
  if (cond.dtype() != DType::Bool)
    throw Error(
        std::string("where: the condition must be a bool tensor, got ") +
        dtypeName(cond.dtype()));
  Shape shape = broadcastShapes(
      broadcastShapes(cond.shape(), a.shape(), "where"), b.shape(), "where");
  DType ct = computeType(common);
  Tensor ec = cond.expand(shape);
  Tensor ea = a.to(ct).expand(shape), eb = b.to(ct).expand(shape);
  Tensor out(shape, ct);
  dispatchCompute(ct, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ternaryLoop<T, bool, T, T>(out, ec, ea, eb,
                               [](bool c, T x, T y) { return c ? x : y; });
  });
  return ct == common ? out : out.to(common);
}
} // namespace

namespace {
/// where, recorded: each branch's gradient is g where it was chosen.
Tensor recordedWhere(const Tensor &cond, const Tensor &a, const Tensor &b,
                     DType common) {
  autograd::Recorder grad("WhereBackward0", cond, a, b);
  Tensor out = whereWith(cond, a, b, common);
  if (grad)
    grad.record(out, [sc = grad.save(cond)](const Grads &g, const Needs &n) {
      Tensor c = sc.get(), zero = zeros_like(g[0]);
      return Grads{Tensor(), n[1] ? where(c, g[0], zero) : Tensor(),
                   n[2] ? where(c, zero, g[0]) : Tensor()};
    });
  return out;
}
} // namespace

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(a, "where");
  checkCpu(b, "where");
  return recordedWhere(cond, a, b,
                       resultType({promotionOf(a), promotionOf(b)}));
}

Tensor where(const Tensor &cond, const Tensor &a, Scalar b) {
  detail::CountedOp counted;
  checkCpu(a, "where");
  DType common = resultType({promotionOf(a), promotionOf(b)});
  return recordedWhere(cond, a, scalarOperand(b, common), common);
}

Tensor where(const Tensor &cond, Scalar a, const Tensor &b) {
  detail::CountedOp counted;
  checkCpu(b, "where");
  DType common = resultType({promotionOf(a), promotionOf(b)});
  return recordedWhere(cond, scalarOperand(a, common), b, common);
}

bool allclose(const Tensor &a, const Tensor &b, double rtol, double atol) {
  checkCpu(a, "allclose");
  checkCpu(b, "allclose");
  Tensor close = binaryKernel<true>(
      "allclose", a, b, DType::F64, [rtol, atol](double x, double y) {
        if (x == y)
          return true; // equal infinities
        return std::fabs(x - y) <= atol + rtol * std::fabs(y);
      });
  return close.numel() == 0 || amin(close.to(DType::I32)).item<int64_t>() == 1;
}

} // namespace kiln
