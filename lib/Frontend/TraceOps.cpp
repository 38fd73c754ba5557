//===- TraceOps.cpp - Calls of Kiln's ops and Tensor methods --------------===//
//
// The kiln:: functions and kiln::Tensor methods of docs/runtime.md, each
// as one traced op named as the runtime names it. Dims, flags and eps must
// be compile-time constants (they are attributes of the kiln dialect's
// ops); sizes and slice bounds may be symbolic host scalars.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/EinsumPlan.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace clang;
namespace ko = mlir::kiln;

namespace kiln::frontend {

namespace {
bool isDefaultTensor(const Expr *e) {
  e = stripTemporaries(e);
  if (const auto *c = dyn_cast<CXXConstructExpr>(e))
    return c->getNumArgs() == 0;
  return false;
}

std::optional<std::string> stringArg(const Expr *e) {
  e = stripTemporaries(e);
  if (const auto *s = dyn_cast<StringLiteral>(e))
    return s->getString().str();
  if (const auto *c = dyn_cast<CXXConstructExpr>(e))
    for (const Expr *arg : c->arguments())
      if (const auto *s = dyn_cast<StringLiteral>(stripTemporaries(arg)))
        return s->getString().str();
  return std::nullopt;
}

} // namespace

void Tracer::needsDim(int value, int64_t dim) {
  if (GraphInput *in = inputOf(value))
    in->minRank = std::max(in->minRank, dim >= 0 ? dim + 1 : -dim);
}

std::optional<int> Tracer::traceKilnCall(const FunctionDecl *fn,
                                         const CallExpr *call) {
  std::vector<const Expr *> args(call->arguments().begin(),
                                 call->arguments().end());
  return traceKilnOp(fn->getNameAsString(), args, call->getExprLoc());
}

std::optional<int> Tracer::tensorArg(const KilnCall &c, unsigned i) {
  std::optional<int> v = traceExpr(c.arg(i));
  if (!v)
    return v;
  return asTensor(*v, c.arg(i)->getExprLoc());
}

bool Tracer::tensorArgs(const KilnCall &c, unsigned count, int optional,
                        std::vector<int> &ops, bool weightedBias) {
  for (unsigned i = 0; i < count; ++i) {
    bool isOptional = static_cast<int>(i) == optional;
    if (isOptional && isDefaultTensor(c.arg(i)))
      continue;
    std::optional<int> v = tensorArg(c, i);
    if (!v)
      return false;
    // A bias input the source may leave undefined (a module's absent
    // bias) when the weight is an input too: the call passes what
    // kiln::abi::absentBias makes of it (a bias of -0.0s when it is
    // undefined, nothing read when the weight is undefined too: a layer
    // that is off).
    GraphInput *in = inputOf(*v);
    GraphInput *weight = ops.size() > 1 ? inputOf(ops[1]) : nullptr;
    if (isOptional && weightedBias && in && weight && in->sourceUndefined)
      in->standIn =
          "::kiln::abi::absentBias(" + in->expr + ", " + weight->expr + ")";
    ops.push_back(*v);
  }
  return true;
}

std::optional<int64_t> Tracer::constArg(const KilnCall &c, unsigned i,
                                        const char *what) {
  std::optional<int64_t> v = constantInt(c.arg(i));
  if (!v)
    breakAt(c.arg(i)->getExprLoc(), "kiln::" + c.name + " with a " + what +
                                        " that is not a compile-time constant");
  return v;
}

template <typename OpTy>
std::optional<int> Tracer::traceUnary(const KilnCall &c) {
  if (c.size() != 1)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  return apply<OpTy>(c.loc, *x);
}

template <typename OpTy>
std::optional<int> Tracer::traceBinary(const KilnCall &c) {
  if (c.size() != 2)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::optional<int> l = tensorArg(c, 0);
  if (!l)
    return l;
  std::optional<int> r = tensorArg(c, 1);
  if (!r)
    return r;
  if (std::is_same_v<OpTy, ko::AddOp> || std::is_same_v<OpTy, ko::SubOp> ||
      std::is_same_v<OpTy, ko::MulOp> || std::is_same_v<OpTy, ko::DivOp>)
    preferBiasRank({*l, *r});
  return apply<OpTy>(c.loc, *l, *r);
}

template <typename OpTy>
std::optional<int> Tracer::traceReduction(const KilnCall &c) {
  // (x, dims = {}, keepdim = false): no dims is every dim.
  std::optional<int> x = tensorArg(c, 0);
  std::vector<int64_t> dims;
  bool keepdim = false;
  if (!x || !reductionArgs(c.name, *x, c.size() > 1 ? c.arg(1) : nullptr,
                           c.size() > 2 ? c.arg(2) : nullptr, dims, keepdim))
    return std::nullopt;
  return reduce<OpTy>(*x, dims, keepdim, c.loc);
}

template <typename OpTy>
std::optional<int> Tracer::traceArgReduction(const KilnCall &c) {
  // (x, dim = nullopt, keepdim = false): no dim is the flattened input.
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  std::vector<int64_t> dims;
  if (c.size() > 1) {
    const Expr *d = stripTemporaries(c.arg(1));
    if (const auto *construct = dyn_cast<CXXConstructExpr>(d))
      d = construct->getNumArgs() == 1 ? stripTemporaries(construct->getArg(0))
                                       : nullptr;
    bool none =
        !d || d->getType().getAsString().find("nullopt_t") != std::string::npos;
    if (!none) {
      std::optional<int64_t> dim = constantInt(d);
      if (!dim)
        return breakAt(c.arg(1)->getExprLoc(),
                       "kiln::" + c.name +
                           " with a dim that is not a constant");
      needsDim(*x, *dim);
      dims.push_back(*dim);
    }
  }
  bool keepdim = false;
  if (c.size() > 2) {
    std::optional<int64_t> keep = constArg(c, 2, "keepdim");
    if (!keep)
      return std::nullopt;
    keepdim = *keep != 0;
  }
  return reduce<OpTy>(*x, dims, keepdim, c.loc);
}

template <typename OpTy>
std::optional<int> Tracer::traceSoftmax(const KilnCall &c) {
  if (c.size() != 2)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  std::optional<int64_t> dim = constArg(c, 1, "dim");
  if (!dim)
    return std::nullopt;
  needsDim(*x, *dim);
  return build<OpTy>(c.loc, val(*x), *dim);
}

std::optional<int> Tracer::traceGelu(const KilnCall &c) {
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  std::string approximate = "none";
  if (c.size() > 1) {
    std::optional<std::string> s = stringArg(c.arg(1));
    if (!s)
      return breakAt(c.arg(1)->getExprLoc(),
                     "kiln::gelu with an approximation that is not a literal");
    approximate = *s;
  }
  std::optional<ko::GeluApproximation> kind =
      ko::symbolizeGeluApproximation(approximate);
  if (!kind)
    return breakAt(c.arg(1)->getExprLoc(), "kiln::gelu with approximation \"" +
                                               approximate +
                                               "\" (an error in eager)");
  return build<ko::GeluOp>(c.loc, val(*x), *kind);
}

std::optional<int> Tracer::traceWhere(const KilnCall &c) {
  if (c.size() != 3)
    return breakAt(c.loc, "kiln::where is not traced yet");
  std::vector<int> ops;
  if (!tensorArgs(c, 3, -1, ops))
    return std::nullopt;
  maskInput(ops[0]);
  return where(ops[0], ops[1], ops[2], c.loc);
}

template <typename OpTy>
std::optional<int> Tracer::traceNorm(const KilnCall &c) {
  // layer_norm(x, weight, bias = {}, eps = 1e-5), rms_norm(x, weight,
  // eps = 1e-6): the weight and bias in the input's type; an eps known only
  // at run time (a module's `this->eps`) is an f64 operand.
  constexpr bool ln = std::is_same_v<OpTy, ko::LayerNormOp>;
  std::vector<int> ops;
  if (!tensorArgs(c, std::min<unsigned>(c.size(), ln ? 3 : 2), ln ? 2 : -1,
                  ops))
    return std::nullopt;
  for (size_t i = 1; i < ops.size(); ++i)
    if (GraphInput *in = inputOf(ops[i]))
      in->preferredRank = 1;
  double eps = ln ? 1e-5 : 1e-6;
  unsigned epsArg = ln ? 3 : 2;
  mlir::Value epsValue;
  if (c.size() > epsArg) {
    if (std::optional<double> e = constantFloat(c.arg(epsArg))) {
      eps = *e;
    } else {
      std::optional<int> v = traceExpr(c.arg(epsArg));
      if (!v)
        return std::nullopt;
      if (kindOf(*v) == ValueKind::Tensor)
        return breakAt(c.arg(epsArg)->getExprLoc(),
                       "kiln::" + c.name + " with a tensor eps");
      epsValue = f64Of(*v, c.arg(epsArg)->getExprLoc());
      eps = 0;
    }
  }
  mlir::Value x = val(ops[0]);
  mlir::Value w = convertLike(ops[1], x, c.loc);
  mlir::Builder attrs(x.getContext());
  if (ln)
    return build<ko::LayerNormOp>(c.loc, x, w,
                                  ops.size() > 2 ? convertLike(ops[2], x, c.loc)
                                                 : mlir::Value(),
                                  epsValue, attrs.getF64FloatAttr(eps));
  return build<ko::RmsNormOp>(c.loc, x, w, epsValue,
                              attrs.getF64FloatAttr(eps));
}

std::optional<int> Tracer::traceAttention(const KilnCall &c) {
  // (q, k, v, attn_mask = Tensor(), dropout_p = 0, is_causal = false,
  // scale = nullopt).
  unsigned n = c.size();
  if (n < 3)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::vector<int> ops;
  if (!tensorArgs(c, n > 3 ? 4 : 3, 3, ops))
    return std::nullopt;
  if (n > 4) {
    std::optional<double> p = constantFloat(stripArg(c.arg(4)));
    if (!p || *p != 0.0)
      return breakAt(c.arg(4)->getExprLoc(),
                     "kiln::scaled_dot_product_attention with a dropout_p "
                     "other than a constant 0 (an error in eager)");
  }
  bool causal = false;
  if (n > 5) {
    std::optional<int64_t> flag = constArg(c, 5, "is_causal");
    if (!flag)
      return std::nullopt;
    causal = *flag != 0;
  }
  bool absent = true;
  std::optional<int> scale =
      optionalScalar(c.name, n > 6 ? c.arg(6) : nullptr, absent);
  if (!scale && !absent)
    return scale;
  return build<ko::ScaledDotProductAttentionOp>(
      c.loc, val(ops[0]), val(ops[1]), val(ops[2]),
      ops.size() > 3 ? val(ops[3]) : mlir::Value(),
      scale ? f64Of(*scale, c.loc) : mlir::Value(), causal);
}

template <typename OpTy>
std::optional<int> Tracer::traceProduct(const KilnCall &c) {
  // matmul(a, b), linear(x, w, bias = {}), embedding(ids, table),
  // cross_entropy(logits, targets): each input's usual rank and type.
  constexpr bool linear = std::is_same_v<OpTy, ko::LinearOp>;
  std::vector<int> ops;
  if (!tensorArgs(c, c.size(), linear ? 2 : -1, ops, linear))
    return std::nullopt;
  auto prefer = [&](size_t i, int64_t rank, ElementType element) {
    if (i < ops.size())
      if (GraphInput *in = inputOf(ops[i])) {
        in->preferredRank = rank;
        in->preferredElement = element;
        // Indices and targets must be integers: the op says so.
        in->elementFromUses = element == ElementType::I64;
      }
  };
  if (std::is_same_v<OpTy, ko::MatmulOp> && ops.size() == 2) {
    prefer(1, 2, ElementType::F32);
    return apply<ko::MatmulOp>(c.loc, ops[0], ops[1]);
  }
  if (linear && (ops.size() == 2 || ops.size() == 3)) {
    prefer(1, 2, ElementType::F32);
    prefer(2, 1, ElementType::F32);
    return build<ko::LinearOp>(c.loc, val(ops[0]), val(ops[1]),
                               ops.size() > 2 ? val(ops[2]) : mlir::Value());
  }
  if (std::is_same_v<OpTy, ko::EmbeddingOp> && ops.size() == 2) {
    prefer(0, 2, ElementType::I64);
    prefer(1, 2, ElementType::F32);
    return apply<ko::EmbeddingOp>(c.loc, ops[0], ops[1]);
  }
  if (std::is_same_v<OpTy, ko::CrossEntropyOp> && ops.size() == 2) {
    prefer(0, 2, ElementType::F32);
    prefer(1, 1, ElementType::I64);
    return apply<ko::CrossEntropyOp>(c.loc, ops[0], ops[1]);
  }
  return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
}

bool Tracer::pairArg(const KilnCall &c, unsigned a, const char *what,
                     int64_t byDefault, int64_t minimum, bool one,
                     llvm::SmallVectorImpl<int64_t> &attrs,
                     llvm::SmallVectorImpl<mlir::Value> &runtime) {
  // One value for both dims or {h, w} (one: a single value); a value known
  // only at run time (a module's member) is an operand, range-checked by
  // the lowering as the runtime checks it.
  std::vector<int> values;
  BodyMark before = markBody(graph());
  if (c.size() > a && !traceIntList(c.arg(a), values))
    return false;
  if (c.size() > a && values.empty() && !isa<CXXDefaultArgExpr>(c.arg(a))) {
    breakAt(c.arg(a)->getExprLoc(),
            "kiln::" + c.name + " with no " + what + " (an error in eager)");
    return false;
  }
  bool allConstant = llvm::all_of(
      values, [&](int v) { return graph().constantValue(v).has_value(); });
  if (values.empty())
    values.push_back(
        constant(static_cast<double>(byDefault), ValueKind::I64, c.loc));
  if (values.size() > (one ? 1u : 2u)) {
    breakAt(c.arg(a)->getExprLoc(), "kiln::" + c.name + " with more than " +
                                        (one ? "one " : "two ") + what);
    return false;
  }
  if (values.size() == 1 && !one)
    values.push_back(values[0]);
  for (int v : values) {
    std::optional<double> k = graph().constantValue(v);
    if (k && *k < static_cast<double>(minimum)) {
      breakAt(c.arg(a)->getExprLoc(), "kiln::" + c.name + " with " + what +
                                          (minimum ? " below 1" : " below 0"));
      return false;
    }
    attrs.push_back(k ? static_cast<int64_t>(*k) : mlir::ShapedType::kDynamic);
    if (!k)
      runtime.push_back(val(v));
  }
  // Needed only as attributes (what added an input is kept: the graph's
  // inputs and arguments stay one for one).
  if (allConstant && markBody(graph()).arguments == before.arguments)
    cutBody(graph(), before);
  return true;
}

template <int SpatialDims>
std::optional<int> Tracer::traceConv(const KilnCall &c) {
  // conv2d(x, w, bias = {}, stride = 1, padding = 0, dilation = 1,
  // groups = 1); conv1d is conv2d over [N, C, 1, L] with a [O, C, 1, k]
  // weight. The input may be unbatched ([C, H, W]; conv1d: [C, L]), as in
  // eager.
  constexpr bool oneD = SpatialDims == 1;
  std::vector<int> ops;
  if (!tensorArgs(c, std::min(c.size(), 3u), 2, ops, true))
    return std::nullopt;
  if (GraphInput *in = inputOf(ops[0])) {
    in->minRank = std::max<int64_t>(in->minRank, oneD ? 2 : 3);
    if (in->preferredRank < 0) {
      in->preferredRank = oneD ? 3 : 4;
      in->otherRank = oneD ? 2 : 3;
    }
  }
  for (size_t i = 1; i < ops.size(); ++i)
    if (GraphInput *in = inputOf(ops[i]))
      in->exactRank = i == 1 ? (oneD ? 3 : 4) : 1;
  if (oneD)
    for (size_t i = 0; i < 2; ++i)
      ops[i] = build<ko::UnsqueezeOp>(c.loc, val(ops[i]), int64_t(-2));
  llvm::SmallVector<int64_t> attrs; // sh, sw, ph, pw, dh, dw, groups
  llvm::SmallVector<mlir::Value> runtime;
  static const char *const what[] = {"stride", "padding", "dilation", "groups"};
  for (unsigned a = 3; a < 7; ++a) {
    int64_t byDefault = a == 4 ? 0 : 1;
    if (oneD && a < 6) // the height's: stride 1, no padding, no dilation
      attrs.push_back(byDefault);
    if (!pairArg(c, a, what[a - 3], byDefault, byDefault, oneD || a == 6, attrs,
                 runtime))
      return std::nullopt;
  }
  mlir::Builder b(val(ops[0]).getContext());
  int y =
      build<ko::Conv2dOp>(c.loc, val(ops[0]), val(ops[1]),
                          ops.size() > 2 ? val(ops[2]) : mlir::Value(), runtime,
                          b.getDenseI64ArrayAttr({attrs[0], attrs[1]}),
                          b.getDenseI64ArrayAttr({attrs[2], attrs[3]}),
                          b.getDenseI64ArrayAttr({attrs[4], attrs[5]}),
                          b.getI64IntegerAttr(attrs[6]));
  if (!oneD)
    return y;
  return build<ko::SqueezeOp>(c.loc, val(y), int64_t(-2));
}

template <ko::RandomDistribution Distribution>
std::optional<int> Tracer::traceRandom(const KilnCall &c) {
  // randn(shape, seed, dtype), rand(...): the seed a host integer.
  if (c.size() < 2)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::optional<int> seed = traceExpr(stripArg(c.arg(1)));
  if (!seed)
    return seed;
  if (kindOf(*seed) != ValueKind::I64)
    return breakAt(c.arg(1)->getExprLoc(),
                   "kiln::" + c.name + " with a seed that is not an integer");
  std::vector<int> sizes;
  if (!traceIntList(c.arg(0), sizes) || !nonNegativeSizes(c, sizes))
    return std::nullopt;
  int64_t dtype = 5; // f32
  if (c.size() > 2) {
    std::optional<int64_t> d = constArg(c, 2, "dtype");
    if (!d)
      return std::nullopt;
    dtype = *d;
  }
  if (dtype < 3 || dtype > 6)
    return breakAt(c.loc, "kiln::" + c.name +
                              " of a dtype that is not floating (an error "
                              "in eager)");
  return random(*seed, sizes, Distribution == ko::RandomDistribution::normal,
                dtype, c.loc);
}

bool Tracer::nonNegativeSizes(const KilnCall &c, llvm::ArrayRef<int> sizes) {
  for (int s : sizes)
    if (std::optional<double> k = graph().constantValue(s); k && *k < 0) {
      breakAt(c.loc,
              "kiln::" + c.name + " with a negative size (an error in eager)");
      return false;
    }
  return true;
}

std::optional<int> Tracer::traceAdaptivePool(const KilnCall &c) {
  // adaptive_avg_pool2d(x, output_size): one value for both dims or
  // {h, w}; a value known only at run time is an operand, checked by the
  // lowering.
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  needsDim(*x, 2);
  if (GraphInput *in = inputOf(*x); in && in->preferredRank < 0) {
    in->preferredRank = 4;
    in->otherRank = 3; // [C, H, W]
  }
  std::vector<int> values;
  if (c.size() < 2 || !traceIntList(c.arg(1), values))
    return std::nullopt;
  if (values.empty() || values.size() > 2)
    return breakAt(c.arg(1)->getExprLoc(),
                   "kiln::adaptive_avg_pool2d with an output size of " +
                       std::to_string(values.size()) + " values");
  if (values.size() == 1)
    values.push_back(values[0]);
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<mlir::Value> runtime;
  for (int v : values) {
    std::optional<double> k = graph().constantValue(v);
    if (k && *k < 1)
      return breakAt(c.arg(1)->getExprLoc(),
                     "kiln::adaptive_avg_pool2d with an output size below "
                     "1 (an error in eager)");
    sizes.push_back(k ? static_cast<int64_t>(*k) : mlir::ShapedType::kDynamic);
    if (!k)
      runtime.push_back(indexOf(v, c.loc));
  }
  mlir::Builder b(val(*x).getContext());
  return build<ko::AdaptiveAvgPool2dOp>(c.loc, val(*x), runtime,
                                        b.getDenseI64ArrayAttr(sizes));
}

template <ko::PoolKind Kind>
std::optional<int> Tracer::tracePool(const KilnCall &c) {
  // max_pool2d(x, kernel, stride, padding, dilation, ceil_mode) and
  // avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad,
  // divisor_override): one value for both dims or {h, w}; an absent or
  // empty stride is the kernel's. A value known only at run time (a
  // module's member) is an operand, checked by the lowering as the runtime
  // checks it.
  constexpr bool isMax = Kind == ko::PoolKind::max;
  unsigned n = c.size();
  std::optional<int> x = tensorArg(c, 0);
  if (!x)
    return x;
  needsDim(*x, 2); // [C, H, W] or, preferably, [N, C, H, W]
  if (GraphInput *in = inputOf(*x); in && in->preferredRank < 0) {
    in->preferredRank = 4;
    in->otherRank = 3;
  }
  // kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode, count_include_pad
  llvm::SmallVector<int64_t> attrs;
  llvm::SmallVector<mlir::Value> runtime;
  static const char *const what[] = {"kernel_size", "stride", "padding",
                                     "dilation"};
  auto isOptional = [](const Expr *e) {
    return e->getType().getAsString().find("optional") != std::string::npos;
  };
  std::vector<int> kernel;
  for (unsigned w = 0; w < 4; ++w) {
    unsigned a = w + 1;
    std::vector<int> values;
    if (n > a && (isMax || w < 3)) {
      if (isOptional(c.arg(a))) {
        bool absent = false;
        std::optional<int> v = optionalScalar(c.name, c.arg(a), absent);
        if (!absent && !v)
          return v;
        if (!absent)
          values.push_back(*v);
      } else if (!traceIntList(c.arg(a), values)) {
        return std::nullopt;
      }
    }
    if (values.empty() && w == 1)
      values = kernel;
    if (values.empty())
      values.push_back(constant(w == 2 ? 0.0 : 1.0, ValueKind::I64, c.loc));
    if (values.size() > 2)
      return breakAt(c.arg(a)->getExprLoc(),
                     "kiln::" + c.name + " with more than two " + what[w]);
    if (values.size() == 1)
      values.push_back(values[0]);
    if (w == 0)
      kernel = values;
    for (int v : values) {
      std::optional<double> k = graph().constantValue(v);
      if (k && *k < (w == 2 ? 0 : 1))
        return breakAt(c.arg(a)->getExprLoc(),
                       "kiln::" + c.name + " with " + what[w] +
                           (w == 2 ? " below 0" : " below 1"));
      attrs.push_back(k ? static_cast<int64_t>(*k)
                        : mlir::ShapedType::kDynamic);
      if (!k)
        runtime.push_back(indexOf(v, c.loc));
    }
  }
  // ceil_mode, count_include_pad: constants or run-time bools.
  auto flag = [&](unsigned a, int64_t byDefault) -> bool {
    if (n <= a) {
      attrs.push_back(byDefault);
      return true;
    }
    std::optional<int> v = traceExpr(c.arg(a));
    if (!v)
      return false;
    if (kindOf(*v) == ValueKind::Tensor) {
      breakAt(c.arg(a)->getExprLoc(),
              "kiln::" + c.name + " with a tensor where it takes a bool");
      return false;
    }
    std::optional<double> k = graph().constantValue(*v);
    attrs.push_back(k ? static_cast<int64_t>(*k != 0)
                      : mlir::ShapedType::kDynamic);
    if (!k)
      runtime.push_back(indexOf(*v, c.loc));
    return true;
  };
  if (!flag(isMax ? 5 : 4, 0))
    return std::nullopt;
  if (isMax) // count_include_pad is average pooling's
    attrs.push_back(1);
  else if (!flag(5, 1))
    return std::nullopt;
  int64_t divisor = 0;
  if (!isMax && n > 6) {
    bool absent = false;
    std::optional<int> v = optionalScalar(c.name, c.arg(6), absent);
    if (!absent && !v)
      return v;
    std::optional<double> k = absent ? std::nullopt : graph().constantValue(*v);
    if (!absent && (!k || *k == 0))
      return breakAt(c.arg(6)->getExprLoc(),
                     "kiln::avg_pool2d with a divisor_override that is " +
                         std::string(k ? "0 (an error in eager)"
                                       : "not a compile-time constant"));
    if (k)
      divisor = static_cast<int64_t>(*k);
  }
  mlir::Builder b(val(*x).getContext());
  auto pair = [&](size_t i) {
    return b.getDenseI64ArrayAttr({attrs[i], attrs[i + 1]});
  };
  return build<ko::Pool2dOp>(
      c.loc,
      ko::PoolKindAttr::get(b.getContext(),
                            isMax ? ko::PoolKind::max : ko::PoolKind::avg),
      val(*x), runtime, pair(0), pair(2), pair(4), pair(6),
      b.getI64IntegerAttr(attrs[8]), b.getI64IntegerAttr(attrs[9]),
      divisor ? b.getI64IntegerAttr(divisor) : mlir::IntegerAttr());
}

std::optional<int> Tracer::traceCat(const KilnCall &c) {
  std::vector<int> ops;
  if (c.size() < 1 || !tensorList(c.name, c.arg(0), c.loc, ops))
    return std::nullopt;
  int64_t dim = 0;
  if (c.size() > 1) {
    std::optional<int64_t> d = constArg(c, 1, "dim");
    if (!d)
      return std::nullopt;
    dim = *d;
  }
  return concat(ops, dim, c.loc);
}

template <Tracer::Fill With>
std::optional<int> Tracer::traceFull(const KilnCall &c) {
  // full(shape, value, dtype), zeros(shape, dtype), ones(shape, dtype).
  constexpr bool isFull = With == Fill::Value;
  unsigned dtypeArg = isFull ? 2 : 1;
  if (c.size() < dtypeArg)
    return breakAt(c.loc, "kiln::" + c.name + " is not traced yet");
  std::vector<int> sizes;
  if (!traceIntList(c.arg(0), sizes) || !nonNegativeSizes(c, sizes))
    return std::nullopt;
  double value = With == Fill::Ones ? 1 : 0;
  int64_t dtype = 5; // f32
  if (c.size() > dtypeArg) {
    std::optional<int64_t> d = constArg(c, dtypeArg, "dtype");
    if (!d)
      return std::nullopt;
    dtype = *d;
  }
  std::optional<int> scalar; // a value known only at run time
  if (isFull) {
    const Expr *v = stripArg(c.arg(1));
    if (std::optional<double> k = constantFloat(v)) {
      value = *k;
    } else {
      scalar = traceExpr(v);
      if (!scalar)
        return std::nullopt;
      if (kindOf(*scalar) == ValueKind::Tensor)
        return breakAt(v->getExprLoc(), "kiln::full with a tensor value");
      value = 1;
    }
  }
  int filled = full(sizes, dtype, value, c.loc);
  if (!scalar)
    return filled;
  // ones * value: exactly the value (-0.0 and NaN included), converted to
  // the dtype first as the runtime's full converts it.
  ValueKind kind = scalarOfElement(elementOfDType(dtype));
  int v = scalarCast(*scalar, kind, c.loc);
  return apply<ko::MulOp>(c.loc, filled, asTensor(v, c.loc));
}

std::optional<int> Tracer::traceArange(const KilnCall &c) {
  // Integer ranges (a float range is a break: its length depends on
  // rounding the runtime does).
  unsigned n = c.size();
  if (n < 1 || n > 3)
    return breakAt(c.loc, "kiln::arange is not traced yet");
  std::vector<int> bounds;
  for (unsigned i = 0; i < n; ++i) {
    std::optional<int> v = traceExpr(stripArg(c.arg(i)));
    if (!v)
      return v;
    if (kindOf(*v) != ValueKind::I64)
      return breakAt(c.arg(i)->getExprLoc(), "kiln::arange of floats");
    bounds.push_back(*v);
  }
  if (n == 1)
    bounds.insert(bounds.begin(), constant(0, ValueKind::I64, c.loc));
  if (bounds.size() == 2)
    bounds.push_back(constant(1, ValueKind::I64, c.loc));
  return arange(bounds[0], bounds[1], bounds[2], c.loc);
}

const std::map<std::string, Tracer::KilnCallTracer> &Tracer::kilnCalls() {
  // Each kiln:: function traced as the op (or ops) it is, by name; `true`:
  // the Tensor method of the same name is the function on its object
  // (x.exp(), x.sum({-1}, true)).
  static const std::map<std::string, KilnCallTracer> calls = {
  // The ops traced alike (their ODS definitions' traceWith).
#define GET_KILN_TRACED_CALLS
#include "kiln/Dialect/Kiln/IR/KilnTracedCalls.h.inc"
      {"gelu", {&Tracer::traceGelu, true}},
      {"where", {&Tracer::traceWhere, false}},
      {"scaled_dot_product_attention", {&Tracer::traceAttention, false}},
      {"conv2d", {&Tracer::traceConv<2>, false}},
      {"conv1d", {&Tracer::traceConv<1>, false}},
      {"randn", {&Tracer::traceRandom<ko::RandomDistribution::normal>, false}},
      {"rand", {&Tracer::traceRandom<ko::RandomDistribution::uniform>, false}},
      {"adaptive_avg_pool2d", {&Tracer::traceAdaptivePool, false}},
      {"max_pool2d", {&Tracer::tracePool<ko::PoolKind::max>, false}},
      {"avg_pool2d", {&Tracer::tracePool<ko::PoolKind::avg>, false}},
      {"cat", {&Tracer::traceCat, false}},
      {"full", {&Tracer::traceFull<Fill::Value>, false}},
      {"zeros", {&Tracer::traceFull<Fill::Zeros>, false}},
      {"ones", {&Tracer::traceFull<Fill::Ones>, false}},
      {"arange", {&Tracer::traceArange, false}},
      // Composites: traced as the ops the runtime composes them of
      // (lib/Runtime/Ops/Composite.cpp, Indexing.cpp), with their arities.
      {"unflatten", {&Tracer::traceUnflatten, true, 3, 3}},
      {"group_norm",
       {&Tracer::traceGroupNorm<NormGroups::Given>, true, 2, kAnyArgs}},
      {"instance_norm",
       {&Tracer::traceGroupNorm<NormGroups::PerChannel>, true, 1, kAnyArgs}},
      {"linspace", {&Tracer::traceLinspace, true, 3, kAnyArgs}},
      {"einsum", {&Tracer::traceEinsum, true, 2, kAnyArgs}},
      {"randint", {&Tracer::traceRandint, true, 3, kAnyArgs}},
      {"conv_transpose2d", {&Tracer::traceConvTranspose2d, true, 2, kAnyArgs}},
      {"interpolate", {&Tracer::traceInterpolate, true, 2, kAnyArgs}},
      {"max",
       {&Tracer::traceExtremum<ko::AmaxOp, ko::ArgmaxOp>, true, 1, kAnyArgs}},
      {"min",
       {&Tracer::traceExtremum<ko::AminOp, ko::ArgminOp>, true, 1, kAnyArgs}},
      {"topk", {&Tracer::traceTopk, true, 2, 5}},
      {"scatter_add", {&Tracer::traceScatterAdd, true, 4, 4}},
      {"index_select", {&Tracer::traceIndexSelect, true, 3, 3}},
      {"flip", {&Tracer::traceFlip, true, 2, 2}},
      {"roll", {&Tracer::traceRoll, true, 2, kAnyArgs}},
      {"pad", {&Tracer::tracePad, true, 2, kAnyArgs}},
      {"leaky_relu",
       {&Tracer::traceLeakyRelu<BelowZero::Linear>, true, 1, kAnyArgs}},
      {"elu",
       {&Tracer::traceLeakyRelu<BelowZero::Exponential>, true, 1, kAnyArgs}},
      {"clamp", {&Tracer::traceClamp, true, 2, kAnyArgs}},
      {"masked_fill", {&Tracer::traceMaskedFill, true, 3, 3}},
      {"dropout", {&Tracer::traceDropout, true, 1, kAnyArgs}},
      {"bmm", {&Tracer::traceBmm<BatchedProduct::Plain>, true, 2, 2}},
      {"addmm",
       {&Tracer::traceBmm<BatchedProduct::AddMatrix>, true, 3, kAnyArgs}},
      {"baddbmm",
       {&Tracer::traceBmm<BatchedProduct::AddBatched>, true, 3, kAnyArgs}},
      {"eye", {&Tracer::traceEye, true, 1, kAnyArgs}},
      {"one_hot", {&Tracer::traceOneHot, true, 2, 2}},
      {"batch_norm", {&Tracer::traceBatchNorm, true, 3, kAnyArgs}},
      {"lerp", {&Tracer::traceLerp, true, 3, 3}},
      {"full_like", {&Tracer::traceFullLike<Fill::Value>, true, 2, 2}},
      {"zeros_like", {&Tracer::traceFullLike<Fill::Zeros>, true, 1, 1}},
      {"ones_like", {&Tracer::traceFullLike<Fill::Ones>, true, 1, 1}},
      {"empty_like", {&Tracer::traceFullLike<Fill::Zeros>, true, 1, 1}},
  };
  return calls;
}

std::optional<int> Tracer::traceKilnOp(const std::string &name,
                                       const std::vector<const Expr *> &args,
                                       SourceLocation loc) {
  static const std::map<std::string, std::string> refused = {
      {"graph_break", "kiln::graph_break()"},
      {"allclose", "kiln::allclose (a value that depends on tensor data)"}};
  if (auto it = refused.find(name); it != refused.end())
    return breakAt(loc, it->second);
  auto it = kilnCalls().find(name);
  if (it == kilnCalls().end())
    return breakAt(loc, "kiln::" + name + " is not traced yet");
  const KilnCallTracer &tracer = it->second;
  if (args.size() < tracer.minArgs || args.size() > tracer.maxArgs)
    return breakAt(loc, "kiln::" + name +
                            " with arguments the tracer does not model");
  return (this->*(tracer.trace))(KilnCall{name, args, loc});
}

void Tracer::maskInput(int mask, ElementType element) {
  // The input it views (mask.unsqueeze(1).unsqueeze(2)) too.
  mlir::Value v = graph().body->values[mask];
  while (mlir::Operation *p = v ? v.getDefiningOp() : nullptr) {
    if (!p->hasTrait<mlir::kiln::trait::ViewOfInput>())
      break;
    v = p->getOperand(0);
  }
  if (GraphInput *in = inputOf(graph().body->idOf(v))) {
    in->preferredElement = element;
    in->elementFromUses = true;
  }
}

bool Tracer::tensorList(const std::string &name, const Expr *arg,
                        SourceLocation loc, std::vector<int> &ops) {
  const Expr *list = stripTemporaries(arg);
  if (const auto *c = dyn_cast<CXXConstructExpr>(list))
    if (c->getNumArgs() >= 1)
      list = stripTemporaries(c->getArg(0));
  if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(list))
    list = stripTemporaries(il->getSubExpr());
  const auto *init = dyn_cast<InitListExpr>(list);
  if (isPiecesCall(arg)) // x.chunk(2, -1)
    return tracePieces(arg, -1, ops);
  if (std::vector<int> *values = listOf(arg)) { // a std::vector<Tensor>
    if (values->empty()) {
      breakAt(loc, "kiln::" + name + " of an empty std::vector<Tensor>");
      return false;
    }
    ops = *values;
    return true;
  }
  if (!init) {
    breakAt(loc, "kiln::" + name + " of a list that is not a braced list");
    return false;
  }
  for (const Expr *e : init->inits()) {
    std::optional<int> v = traceExpr(e);
    if (!v)
      return false;
    ops.push_back(asTensor(*v, e->getExprLoc()));
  }
  return true;
}

namespace {
/// The kiln:: functions (and Tensor methods) that return pieces of a
/// tensor: chunk(count, dim) or split(size or sizes, dim).
enum class Pieces { Chunk, Split };
std::optional<Pieces> piecesOf(const FunctionDecl *fn) {
  static const std::map<std::string, Pieces> functions = {
      {"chunk", Pieces::Chunk}, {"split", Pieces::Split}};
  auto it = fn->getIdentifier() ? functions.find(fn->getName().str())
                                : functions.end();
  if (it == functions.end())
    return std::nullopt;
  return it->second;
}
} // namespace

bool Tracer::isPiecesCall(const Expr *e) {
  const auto *call = dyn_cast<CallExpr>(stripTemporaries(e));
  const FunctionDecl *fn = call ? call->getDirectCallee() : nullptr;
  if (!fn || !isTensorVectorType(call->getType()) || !piecesOf(fn))
    return false;
  if (const auto *method = dyn_cast<CXXMethodDecl>(fn))
    return isTensorRecord(method->getParent());
  return inNamespace(fn, "kiln");
}

int64_t Tracer::piecesRead(const VarDecl *var) {
  // The constant subscripts of var in its function: every other use (a
  // loop over it, size(), a copy) makes the count unknown (-1).
  const auto *fn = dyn_cast<FunctionDecl>(var->getDeclContext());
  if (!fn || !fn->getBody())
    return -1;
  int64_t most = 0;
  bool other = false;
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || other)
      return;
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(s);
        op && op->getOperator() == OO_Subscript && op->getNumArgs() == 2)
      if (const auto *ref =
              dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts());
          ref && ref->getDecl() == var) {
        std::optional<llvm::APSInt> i =
            op->getArg(1)->getIntegerConstantExpr(context_);
        if (!i || i->isNegative()) {
          other = true;
          return;
        }
        most = std::max(most, i->getExtValue() + 1);
        walk(op->getArg(1));
        return;
      }
    if (const auto *ref = dyn_cast<DeclRefExpr>(s);
        ref && ref->getDecl() == var)
      other = true;
    for (const Stmt *child : s->children())
      walk(child);
  };
  walk(fn->getBody());
  return other ? -1 : most;
}

bool Tracer::tracePieces(const Expr *e, int64_t needed,
                         std::vector<int> &pieces) {
  const auto *call = cast<CallExpr>(stripTemporaries(e));
  std::string name = call->getDirectCallee()->getNameAsString();
  Pieces kind = *piecesOf(call->getDirectCallee());
  SourceLocation loc = call->getExprLoc();
  std::vector<const Expr *> args;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
    args.push_back(member->getImplicitObjectArgument());
  args.insert(args.end(), call->arguments().begin(), call->arguments().end());
  std::optional<int> v = traceExpr(args[0]);
  if (!v)
    return false;
  int x = asTensor(*v, args[0]->getExprLoc());
  int64_t dim = 0;
  if (args.size() > 2) {
    std::optional<int64_t> d = constantInt(args[2]);
    if (!d) {
      breakAt(args[2]->getExprLoc(),
              "kiln::" + name + " with a dim that is not a constant");
      return false;
    }
    dim = *d;
  }
  needsDim(x, dim);
  auto i64 = [&](int64_t c) { return constant(c, ValueKind::I64, loc); };
  auto host = [&](BinaryOperatorKind op, int a, int b) {
    return hostBinary(op, a, b, loc);
  };
  auto min = [&](int a, int b) { return hostMath(HostMath::Min, {a, b}, loc); };
  auto piece = [&](int start, int end) {
    pieces.push_back(slice(x, dim, start, end, 1, loc));
  };
  int size = dimOf(x, dim, loc);
  std::vector<int64_t> sizes;
  if (kind == Pieces::Split && constantIntList(args[1], sizes) &&
      !constantInt(args[1])) {
    // Pieces of the sizes listed, which must add up to the dim's size.
    int64_t start = 0;
    for (int64_t s : sizes) {
      if (s < 0) {
        breakAt(loc, "kiln::split with a negative size (an error in eager)");
        return false;
      }
      piece(i64(start), i64(start + s));
      start += s;
    }
    check(host(BO_EQ, size, i64(start)), "split: the sizes add up to the dim's",
          loc);
    return true;
  }
  // chunk: ceil(size / count) elements a piece, and there must be `count`
  // pieces (or an empty dim, count empty pieces); split: `step` elements a
  // piece (a constant or a host integer), as many pieces as the code reads.
  int step;
  int64_t made;
  if (kind == Pieces::Chunk) {
    std::optional<int64_t> count = constantInt(args[1]);
    if (!count || *count <= 0) {
      breakAt(args[1]->getExprLoc(),
              "kiln::chunk with a count that is not a positive constant");
      return false;
    }
    made = *count;
    step = host(BO_Div, host(BO_Add, size, i64(made - 1)), i64(made));
    int before = host(BO_Mul, i64(made - 1), step);
    check(host(BO_LOr, host(BO_EQ, size, i64(0)), host(BO_LT, before, size)),
          "chunk: the dim's size makes fewer pieces", loc);
  } else {
    if (std::optional<int64_t> c = constantInt(args[1])) {
      step = i64(*c);
    } else {
      std::optional<int> v = traceExpr(stripArg(args[1]));
      if (!v)
        return false;
      if (kindOf(*v) != ValueKind::I64) {
        breakAt(args[1]->getExprLoc(),
                "kiln::split with a size that is not an integer");
        return false;
      }
      step = *v;
    }
    if (needed < 0) {
      breakAt(loc, "kiln::split by a size, its pieces read other than at "
                   "constant indices (their count depends on the dim's size)");
      return false;
    }
    made = needed;
    // A positive size (0 only for an empty dim), and the last piece read
    // starts inside the dim (or is the first).
    int last = host(BO_Mul, i64(made - 1), step);
    check(host(BO_LAnd,
               host(BO_LOr, host(BO_GT, step, i64(0)),
                    host(BO_LAnd, host(BO_EQ, step, i64(0)),
                         host(BO_EQ, size, i64(0)))),
               host(BO_LOr, host(BO_LT, last, size),
                    host(BO_LE, i64(made), i64(1)))),
          "split: the size, or the pieces the dim's size makes", loc);
  }
  for (int64_t i = 0; i < made; ++i) {
    int start = host(BO_Mul, i64(i), step);
    int end = min(host(BO_Add, start, step), size);
    piece(min(start, size), end);
  }
  return true;
}

bool Tracer::reductionArgs(const std::string &name, int x, const Expr *dimsArg,
                           const Expr *keepArg, std::vector<int64_t> &dims,
                           bool &keepdim) {
  dims.clear();
  if (dimsArg && !constantIntList(dimsArg, dims)) {
    breakAt(dimsArg->getExprLoc(),
            "kiln::" + name + " over dims that are not constants");
    return false;
  }
  keepdim = false;
  if (keepArg) {
    std::optional<int64_t> k = constantInt(keepArg);
    if (!k) {
      breakAt(keepArg->getExprLoc(),
              "kiln::" + name +
                  " with a keepdim that is not a compile-time constant");
      return false;
    }
    keepdim = *k != 0;
  }
  for (int64_t d : dims)
    needsDim(x, d);
  return true;
}

std::optional<int> Tracer::optionalScalar(const std::string &name,
                                          const Expr *arg, bool &absent) {
  const Expr *e = arg ? stripTemporaries(arg) : nullptr;
  auto isNullopt = [](const Expr *x) {
    return x->getType().getAsString().find("nullopt_t") != std::string::npos;
  };
  const auto *c = dyn_cast_or_null<CXXConstructExpr>(e);
  absent =
      !e || isNullopt(e) ||
      (c &&
       (c->getNumArgs() == 0 ||
        (c->getNumArgs() == 1 && isNullopt(stripTemporaries(c->getArg(0))))));
  if (absent)
    return std::nullopt;
  std::optional<int> v = traceExpr(stripArg(e));
  if (v && kindOf(*v) == ValueKind::Tensor)
    return breakAt(e->getExprLoc(), "kiln::" + name +
                                        " with a tensor where "
                                        "it takes a number");
  return v;
}

/// The arguments of a call the tracer reads one by one (constants, host
/// integers, optional tensors) and the helpers that read them.
struct Tracer::Composite {
  Tracer &t;
  const KilnCall &c;
  /// A reduction's dims and keepdim (reduction()).
  std::vector<int64_t> dims;
  bool keepdim = false;

  Composite(Tracer &tracer, const KilnCall &call) : t(tracer), c(call) {}

  unsigned n() const { return c.size(); }
  std::optional<int> tensor(unsigned i) { return t.tensorArg(c, i); }
  /// An optional number argument (absent: left out or std::nullopt).
  std::optional<int> scalar(unsigned i, bool &absent) {
    return t.optionalScalar(c.name, i < n() ? c.arg(i) : nullptr, absent);
  }
  int wrapped(int scalarValue) { return t.asTensor(scalarValue, c.loc); }
  /// A constant argument, `fallback` where the call leaves it out.
  std::optional<int64_t> constantArg(unsigned i, int64_t fallback,
                                     const char *what) {
    if (i >= n())
      return fallback;
    std::optional<int64_t> v = t.constantInt(c.arg(i));
    if (!v)
      t.breakAt(c.arg(i)->getExprLoc(), "kiln::" + c.name + " with a " + what +
                                            " that is not a constant");
    return v;
  }
  int i64(int64_t v) { return t.constant(v, ValueKind::I64, c.loc); }
  /// An integer argument: a constant, or a host integer.
  std::optional<int> integer(unsigned i) {
    if (std::optional<int64_t> k = t.constantInt(c.arg(i)))
      return i64(*k);
    std::optional<int> v = t.traceExpr(stripArg(c.arg(i)));
    if (v && t.kindOf(*v) != ValueKind::I64)
      return t.breakAt(c.arg(i)->getExprLoc(),
                       "kiln::" + c.name +
                           " with an index that is not an integer");
    return v;
  }
  /// The tensor argument 0 and the constant dim argument 1 it must have;
  /// both nullopt after a break.
  std::pair<std::optional<int>, std::optional<int64_t>> tensorAndDim() {
    std::optional<int> x = tensor(0);
    std::optional<int64_t> dim = x ? constantArg(1, 0, "dim") : std::nullopt;
    if (!dim)
      return {std::nullopt, std::nullopt};
    t.needsDim(*x, *dim);
    return {x, dim};
  }
  /// The per-channel [C] tensor arguments [from, from + count) into ops,
  /// null for an optional one (from `optionalFrom` on) left out or not
  /// passed; false after a break.
  bool channelTensors(unsigned from, unsigned count, unsigned optionalFrom,
                      std::vector<mlir::Value> &ops) {
    ops.assign(count, mlir::Value());
    for (unsigned i = from; i < from + count && i < n(); ++i) {
      if (i >= optionalFrom && isDefaultTensor(c.arg(i)))
        continue;
      std::optional<int> v = tensor(i);
      if (!v)
        return false;
      if (GraphInput *in = t.inputOf(*v))
        in->preferredRank = 1;
      ops[i - from] = t.val(*v);
    }
    return true;
  }
  /// A norm's eps argument i, when passed: a constant into `eps`, or a
  /// number known at run time into `value` (eps 0, the op's attribute then
  /// unused); false after a break.
  bool normEps(unsigned i, double &eps, mlir::Value &value) {
    if (i >= n())
      return true;
    if (std::optional<double> e = t.constantFloat(stripArg(c.arg(i)))) {
      eps = *e;
      return true;
    }
    bool absent = false;
    std::optional<int> v = scalar(i, absent);
    if (!v)
      return false;
    value = t.f64Of(*v, c.arg(i)->getExprLoc());
    eps = 0;
    return true;
  }
  /// A list of constant ints (dims, shifts, reps, pads) at argument i.
  bool constantList(unsigned i, const char *what,
                    std::vector<int64_t> &values) {
    if (i < n() && !t.constantIntList(c.arg(i), values)) {
      t.breakAt(c.arg(i)->getExprLoc(), "kiln::" + c.name + " with " + what +
                                            " that are not constants");
      return false;
    }
    return true;
  }
  /// A reduction's dims at argument `at` and keepdim at `keepAt` into dims
  /// and keepdim; false after a break.
  bool reduction(int x, unsigned at, unsigned keepAt) {
    return t.reductionArgs(c.name, x, n() > at ? c.arg(at) : nullptr,
                           n() > keepAt ? c.arg(keepAt) : nullptr, dims,
                           keepdim);
  }
};

std::optional<int> Tracer::traceUnflatten(const KilnCall &call) {
  Composite cx(*this, call);
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  auto [x, dim] = cx.tensorAndDim();
  if (!x)
    return std::nullopt;
  std::vector<int> sizes = {*x};
  if (!traceIntList(args[2], sizes))
    return std::nullopt;
  if (sizes.size() < 2)
    return breakAt(loc, "kiln::unflatten to no sizes (an error in eager)");
  return unflatten(sizes[0], *dim, llvm::ArrayRef<int>(sizes).drop_front(),
                   loc);
}

template <Tracer::NormGroups Groups>
std::optional<int> Tracer::traceGroupNorm(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  // instance_norm: a group per channel.
  constexpr bool groupNorm = Groups == NormGroups::Given;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  needsDim(*x, groupNorm ? 1 : 2);
  int groups = dimOf(*x, 1, loc);
  if (groupNorm) {
    std::optional<int> g = cx.integer(1);
    if (!g)
      return g;
    groups = *g;
  }
  unsigned first = groupNorm ? 2 : 1;
  std::vector<mlir::Value> affine;
  double eps = 1e-5;
  mlir::Value epsValue;
  if (!cx.channelTensors(first, 2, first, affine) ||
      !cx.normEps(first + 2, eps, epsValue))
    return std::nullopt;
  mlir::Builder attrs(val(*x).getContext());
  return build<ko::GroupNormOp>(loc, val(*x), indexOf(groups, loc), affine[0],
                                affine[1], epsValue,
                                attrs.getF64FloatAttr(eps));
}

std::optional<int> Tracer::traceLinspace(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  bool absent = false;
  std::vector<int> ends;
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<int> v = cx.scalar(i, absent);
    if (!v)
      return v;
    ends.push_back(scalarCast(*v, ValueKind::F64, loc));
  }
  std::optional<int> steps = cx.integer(2);
  if (!steps)
    return steps;
  std::optional<int64_t> dtype = cx.constantArg(3, /*f32=*/5, "dtype");
  if (!dtype)
    return std::nullopt;
  if (*dtype < 3 || *dtype > 6)
    return breakAt(loc, "kiln::linspace of a dtype that is not floating (an "
                        "error in eager)");
  mlir::MLIRContext *ctx = val(ends[0]).getContext();
  return build<ko::LinspaceOp>(
      loc, val(ends[0]), val(ends[1]), indexOf(*steps, loc),
      mlir::TypeAttr::get(elementType(ctx, elementOfDType(*dtype))));
}

std::optional<int> Tracer::traceEinsum(const KilnCall &call) {
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  std::optional<std::string> equation = stringArg(args[0]);
  if (!equation)
    return breakAt(args[0]->getExprLoc(),
                   "kiln::einsum with an equation that is not a string "
                   "literal");
  std::vector<int> ops;
  if (!tensorList(call.name, args[1], loc, ops))
    return std::nullopt;
  if (ops.empty())
    return breakAt(loc, "kiln::einsum of no operands (an error in eager)");
  // Without '...', each operand has as many dims as its subscripts, and
  // the equation's own errors show before the operands are typed.
  if (equation->find("...") == std::string::npos) {
    detail::EinsumPlan plan =
        detail::planEinsum(*equation, std::vector<int64_t>(ops.size(), -1));
    if (!plan.error.empty())
      return breakAt(loc, "kiln::" + plan.error + " (an error in eager)");
    std::string lhs = equation->substr(0, equation->find("->"));
    std::vector<int64_t> ranks(1, 0);
    for (char c : lhs) {
      if (c == ',')
        ranks.push_back(0);
      else if (std::isalpha(static_cast<unsigned char>(c)))
        ++ranks.back();
    }
    for (size_t i = 0; i < ops.size(); ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->exactRank = ranks[i];
  }
  mlir::Builder attrs(val(ops[0]).getContext());
  return build<ko::EinsumOp>(loc, attrs.getStringAttr(*equation), vals(ops));
}

std::optional<int> Tracer::traceRandint(const KilnCall &call) {
  Composite cx(*this, call);
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  // randint(high, shape, seed) has low 0.
  bool withLow = !isa<InitListExpr>(stripArg(args[1])) &&
                 stripArg(args[1])->getType()->isIntegerType();
  unsigned first = withLow ? 1 : 0;
  std::optional<int> low = withLow ? cx.integer(0) : cx.i64(0);
  std::optional<int> high = low ? cx.integer(first) : std::nullopt;
  if (!high)
    return std::nullopt;
  std::vector<int> sizes;
  std::optional<int> seed = traceExpr(stripArg(args[first + 2]));
  if (!seed)
    return seed;
  if (kindOf(*seed) != ValueKind::I64)
    return breakAt(args[first + 2]->getExprLoc(),
                   "kiln::randint with a seed that is not an integer");
  if (!traceIntList(args[first + 1], sizes) || !nonNegativeSizes(call, sizes))
    return std::nullopt;
  std::optional<int64_t> dtype = cx.constantArg(first + 3, /*i64=*/2, "dtype");
  if (!dtype)
    return std::nullopt;
  if (*dtype == 0)
    return breakAt(loc, "kiln::randint of bool (an error in eager)");
  mlir::MLIRContext *ctx = val(*seed).getContext();
  std::vector<mlir::Value> shape;
  for (int size : sizes)
    shape.push_back(indexOf(size, loc));
  return build<ko::RandintOp>(
      loc, indexOf(*low, loc), indexOf(*high, loc), shape, indexOf(*seed, loc),
      mlir::TypeAttr::get(elementType(ctx, elementOfDType(*dtype))));
}

std::optional<int> Tracer::traceConvTranspose2d(const KilnCall &c) {
  // conv_transpose2d(x, w, bias = {}, stride = 1, padding = 0,
  // output_padding = 0, groups = 1, dilation = 1); x may be one [C, H, W]
  // image, as in eager. (Its bias is [groups * w.size(1)]: an undefined
  // one gets no stand-in of the weight's length.)
  std::vector<int> ops;
  if (!tensorArgs(c, std::min(c.size(), 3u), 2, ops, false))
    return std::nullopt;
  if (GraphInput *in = inputOf(ops[0])) {
    in->minRank = std::max<int64_t>(in->minRank, 3);
    if (in->preferredRank < 0) {
      in->preferredRank = 4;
      in->otherRank = 3;
    }
  }
  for (size_t i = 1; i < ops.size(); ++i)
    if (GraphInput *in = inputOf(ops[i]))
      in->exactRank = i == 1 ? 4 : 1;
  // sh, sw, ph, pw, oph, opw, groups, dh, dw
  llvm::SmallVector<int64_t> attrs;
  llvm::SmallVector<mlir::Value> runtime;
  static const char *const what[] = {"stride", "padding", "output_padding",
                                     "groups", "dilation"};
  for (unsigned a = 3; a < 8; ++a) {
    int64_t byDefault = a == 3 || a >= 6 ? 1 : 0;
    if (!pairArg(c, a, what[a - 3], byDefault, byDefault, a == 6, attrs,
                 runtime))
      return std::nullopt;
  }
  mlir::Builder b(val(ops[0]).getContext());
  return build<ko::ConvTranspose2dOp>(
      c.loc, val(ops[0]), val(ops[1]),
      ops.size() > 2 ? val(ops[2]) : mlir::Value(), runtime,
      b.getDenseI64ArrayAttr({attrs[0], attrs[1]}),
      b.getDenseI64ArrayAttr({attrs[2], attrs[3]}),
      b.getDenseI64ArrayAttr({attrs[4], attrs[5]}),
      b.getI64IntegerAttr(attrs[6]),
      b.getDenseI64ArrayAttr({attrs[7], attrs[8]}));
}

std::optional<int> Tracer::traceInterpolate(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  bool absent = false;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  if (GraphInput *in = inputOf(*x))
    in->exactRank = 4;
  std::optional<ko::InterpolateMode> mode = ko::InterpolateMode::nearest;
  if (n > 2) {
    std::optional<std::string> m = stringArg(args[2]);
    if (!m)
      return breakAt(args[2]->getExprLoc(),
                     "kiln::interpolate with a mode that is not a string "
                     "literal");
    mode = ko::symbolizeInterpolateMode(*m);
    if (!mode)
      return breakAt(loc, "kiln::interpolate with mode \"" + *m +
                              "\" (an error in eager)");
  }
  mlir::BoolAttr alignCorners;
  mlir::Builder attrs(val(*x).getContext());
  if (n > 3) {
    std::optional<int> a = cx.scalar(3, absent);
    if (!absent) {
      std::optional<double> c = a ? graph().constantValue(*a) : std::nullopt;
      if (!c)
        return breakAt(args[3]->getExprLoc(),
                       "kiln::interpolate with an align_corners that is "
                       "not a constant");
      if (*mode == ko::InterpolateMode::nearest)
        return breakAt(args[3]->getExprLoc(),
                       "kiln::interpolate with align_corners in nearest "
                       "mode (an error in eager)");
      alignCorners = attrs.getBoolAttr(*c != 0);
    }
  }
  if (stripArg(args[1])->getType()->isArithmeticType()) {
    std::optional<int> factor = cx.scalar(1, absent);
    if (!factor)
      return std::nullopt;
    return build<ko::InterpolateScaledOp>(loc, val(*x), f64Of(*factor, loc),
                                          *mode, alignCorners);
  }
  std::vector<int> out;
  if (!traceIntList(args[1], out))
    return std::nullopt;
  if (out.empty() || out.size() > 2)
    return breakAt(args[1]->getExprLoc(), "kiln::interpolate with a size of " +
                                              std::to_string(out.size()) +
                                              " values (an error in eager)");
  if (out.size() == 1)
    out.push_back(out[0]);
  std::vector<mlir::Value> sizes;
  for (int v : out)
    sizes.push_back(indexOf(v, loc));
  return build<ko::InterpolateOp>(loc, val(*x), sizes, *mode, alignCorners);
}

template <typename ReduceOp, typename ArgOp>
std::optional<int> Tracer::traceExtremum(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  SourceLocation loc = call.loc;
  // The extremum of all (amax), or along a dim: the values gathered at
  // argmax's index, a (values, indices) tuple.
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  if (n == 1)
    return reduce<ReduceOp>(*x, {}, false, loc);
  std::optional<int64_t> dim = cx.constantArg(1, 0, "dim");
  std::optional<int64_t> keep =
      dim ? cx.constantArg(2, 0, "keepdim") : std::nullopt;
  if (!keep)
    return std::nullopt;
  needsDim(*x, *dim);
  int index = reduce<ArgOp>(*x, {*dim}, true, loc);
  int values = build<ko::GatherOp>(loc, val(*x), val(index), *dim);
  if (!*keep) {
    values = build<ko::SqueezeOp>(loc, val(values), *dim);
    index = build<ko::SqueezeOp>(loc, val(index), *dim);
  }
  return makeRecord({values, index});
}

template <typename OpTy>
std::optional<int> Tracer::traceCumulative(const KilnCall &call) {
  Composite cx(*this, call);
  const std::string &name = call.name;
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  auto [x, dim] = cx.tensorAndDim();
  if (!x)
    return x;
  // dtype: std::nullopt by default, else a constant DType (inside the
  // std::optional the call constructs).
  int64_t dtype = -1;
  const Expr *d = n > 2 ? args[2]->IgnoreImplicit() : nullptr;
  while (d && isa<CXXConstructExpr>(d) &&
         cast<CXXConstructExpr>(d)->getNumArgs() == 1)
    d = cast<CXXConstructExpr>(d)->getArg(0)->IgnoreImplicit();
  if (d && !isa<CXXDefaultArgExpr>(d)) {
    std::optional<int64_t> c = constantInt(d);
    if (!c)
      return breakAt(d->getExprLoc(),
                     "kiln::" + name + " with a dtype that is not a constant");
    dtype = *c;
  }
  // In its dtype when one is given (refinement scans integers as i64;
  // eager refuses to scan in int32 or bool).
  mlir::Value input = val(*x);
  if (dtype >= 0) {
    ElementType e = elementOfDType(dtype);
    if (e == ElementType::I32 || e == ElementType::Bool)
      return refuse(
          loc, "kiln." + name,
          ko::unsupportedDTypeMessage(elementType(input.getContext(), e)));
    input = convertTo(*x, e, loc);
  }
  return build<OpTy>(loc, input, *dim);
}

std::optional<int> Tracer::traceTopk(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  // The indices, then the values as a gather of them: eager's values.
  // (Sorted whatever `sorted` says, as the runtime sorts.)
  std::optional<int> x = cx.tensor(0);
  std::optional<int> k = x ? cx.integer(1) : std::nullopt;
  std::optional<int64_t> dim = k ? cx.constantArg(2, -1, "dim") : std::nullopt;
  std::optional<int64_t> largest =
      dim ? cx.constantArg(3, 1, "largest") : std::nullopt;
  if (!largest)
    return std::nullopt;
  needsDim(*x, *dim);
  int index =
      build<ko::TopkOp>(loc, val(*x), indexOf(*k, loc), *dim, *largest != 0);
  int values = build<ko::GatherOp>(loc, val(*x), val(index), *dim);
  return makeRecord({values, index});
}

std::optional<int> Tracer::traceScatterAdd(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  auto [x, dim] = cx.tensorAndDim();
  std::optional<int> index = x ? cx.tensor(2) : std::nullopt;
  std::optional<int> src = index ? cx.tensor(3) : std::nullopt;
  if (!src)
    return src;
  maskInput(*index, ElementType::I64);
  return build<ko::ScatterAddOp>(loc, val(*x), val(*index), val(*src), *dim);
}

template <typename OpTy>
std::optional<int> Tracer::traceGather(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  auto [x, dim] = cx.tensorAndDim();
  std::optional<int> index = x ? cx.tensor(2) : std::nullopt;
  if (!index)
    return index;
  maskInput(*index, ElementType::I64);
  return build<OpTy>(loc, val(*x), val(*index), *dim);
}

std::optional<int> Tracer::traceIndexSelect(const KilnCall &call) {
  Composite cx(*this, call);
  auto [x, dim] = cx.tensorAndDim();
  std::optional<int> index = x ? cx.tensor(2) : std::nullopt;
  if (!index)
    return index;
  maskInput(*index, ElementType::I64);
  if (GraphInput *in = inputOf(*index))
    in->exactRank = 1;
  return build<ko::IndexSelectOp>(call.loc, val(*x), val(*index), *dim);
}

std::optional<int> Tracer::traceFlip(const KilnCall &call) {
  Composite cx(*this, call);
  std::optional<int> x = cx.tensor(0);
  std::vector<int64_t> dims;
  if (!x || !cx.constantList(1, "dims", dims))
    return std::nullopt;
  std::set<int64_t> seen(dims.begin(), dims.end());
  if (seen.size() != dims.size() || seen.empty())
    return breakAt(call.loc, "kiln::flip with no dims or a dim given twice");
  for (int64_t d : dims)
    needsDim(*x, d);
  return build<ko::FlipOp>(call.loc, val(*x), dims);
}

std::optional<int> Tracer::traceRoll(const KilnCall &call) {
  Composite cx(*this, call);
  std::optional<int> x = cx.tensor(0);
  std::vector<int64_t> shifts, dims;
  if (!x || !cx.constantList(1, "shifts", shifts) ||
      !cx.constantList(2, "dims", dims))
    return std::nullopt;
  if (dims.empty() || dims.size() != shifts.size())
    return breakAt(call.loc, "kiln::roll without one dim per shift (the "
                             "flattened roll is not traced)");
  int y = *x;
  for (size_t i = 0; i < dims.size(); ++i) {
    needsDim(*x, dims[i]);
    y = build<ko::RollOp>(call.loc, val(y), shifts[i], dims[i]);
  }
  return y;
}

template <typename OpTy>
std::optional<int> Tracer::traceRepeat(const KilnCall &call) {
  Composite cx(*this, call);
  const std::string &name = call.name;
  SourceLocation loc = call.loc;
  // One frontend op: how the repeats meet the dims depends on the rank.
  std::optional<int> x = cx.tensor(0);
  std::vector<int64_t> reps;
  if (!x || !cx.constantList(1, "repeats", reps))
    return std::nullopt;
  for (int64_t r : reps)
    if (r < 0)
      return breakAt(loc, "kiln::" + name +
                              " with negative repeats (an "
                              "error in eager)");
  // tile pads the repeats to the rank; repeat needs one per dim.
  return build<OpTy>(loc, val(*x), reps);
}

std::optional<int> Tracer::tracePad(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  bool absent = false;
  std::optional<int> x = cx.tensor(0);
  std::vector<int64_t> pads;
  if (!x || !cx.constantList(1, "pads", pads))
    return std::nullopt;
  std::optional<ko::PadMode> mode = ko::PadMode::constant;
  if (n > 2) {
    std::optional<std::string> m = stringArg(args[2]);
    if (!m)
      return breakAt(args[2]->getExprLoc(),
                     "kiln::pad with a mode that is not a literal");
    mode = ko::symbolizePadMode(*m);
  }
  if (pads.size() % 2 != 0 || !mode)
    return breakAt(loc, "kiln::pad with an odd number of pads or an "
                        "unknown mode (an error in eager)");
  mlir::Value value = indexOf(cx.i64(0), loc);
  if (n > 3) {
    std::optional<int> v = cx.scalar(3, absent);
    if (!v && !absent)
      return v;
    if (v)
      value = kindOf(*v) == ValueKind::I64 ? indexOf(*v, loc) : f64Of(*v, loc);
  }
  if (int64_t pairs = static_cast<int64_t>(pads.size()) / 2)
    needsDim(*x, -pairs);
  mlir::Builder attrs(value.getContext());
  return build<ko::PadOp>(loc, val(*x), attrs.getDenseI64ArrayAttr(pads), *mode,
                          value);
}

template <Tracer::BelowZero Below>
std::optional<int> Tracer::traceLeakyRelu(const KilnCall &call) {
  Composite cx(*this, call);
  bool absent = false;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  std::optional<int> k = cx.scalar(1, absent);
  if (!k && !absent)
    return k;
  constexpr bool elu = Below == BelowZero::Exponential;
  mlir::Value factor =
      absent ? val(constant(elu ? 1.0 : 0.01, ValueKind::F64, call.loc))
             : f64Of(*k, call.loc);
  using OpTy = std::conditional_t<elu, ko::EluOp, ko::LeakyReluOp>;
  return build<OpTy>(call.loc, val(*x), factor);
}

std::optional<int> Tracer::traceClamp(const KilnCall &call) {
  Composite cx(*this, call);
  bool absent = false;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  mlir::Value bounds[2];
  for (unsigned i = 1; i < 3; ++i) {
    std::optional<int> bound = cx.scalar(i, absent);
    if (!bound && !absent)
      return bound;
    if (!absent)
      bounds[i - 1] = val(cx.wrapped(*bound));
  }
  if (!bounds[0] && !bounds[1])
    return breakAt(call.loc, "kiln::clamp without a bound (an error in eager)");
  return build<ko::ClampOp>(call.loc, val(*x), bounds[0], bounds[1]);
}

std::optional<int> Tracer::traceMaskedFill(const KilnCall &call) {
  Composite cx(*this, call);
  bool absent = false;
  std::optional<int> x = cx.tensor(0), mask = x ? cx.tensor(1) : std::nullopt;
  if (!mask)
    return mask;
  maskInput(*mask);
  std::optional<int> value = cx.scalar(2, absent);
  if (!value)
    return value;
  return apply<ko::MaskedFillOp>(call.loc, *x, *mask, cx.wrapped(*value));
}

template <typename OpTy>
std::optional<int> Tracer::traceTriangle(const KilnCall &call) {
  Composite cx(*this, call);
  SourceLocation loc = call.loc;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  std::optional<int64_t> diagonal = cx.constantArg(1, 0, "diagonal");
  if (!diagonal)
    return std::nullopt;
  needsDim(*x, -2);
  return build<OpTy>(loc, val(*x), *diagonal);
}

std::optional<int> Tracer::traceDropout(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  bool absent = false;
  // The identity at inference; p's range is still checked, as eager does.
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  if (n > 2 && constantInt(args[2]).value_or(1) != 0)
    return breakAt(args[2]->getExprLoc(),
                   "kiln::dropout in training mode (a random mask) or "
                   "with a training flag known only at run time");
  mlir::Value p = val(constant(0.5, ValueKind::F64, loc));
  if (n > 1) {
    std::optional<int> given = cx.scalar(1, absent);
    if (!given)
      return given;
    p = f64Of(*given, loc);
  }
  return build<ko::DropoutOp>(loc, val(*x), p);
}

template <typename OpTy>
std::optional<int> Tracer::traceNarrow(const KilnCall &call) {
  Composite cx(*this, call);
  auto [x, dim] = cx.tensorAndDim();
  if (!x)
    return std::nullopt;
  std::optional<int> start = cx.integer(2);
  if (!start)
    return start;
  mlir::Builder b(val(*x).getContext());
  mlir::IntegerAttr d = b.getI64IntegerAttr(*dim);
  if constexpr (std::is_same_v<OpTy, ko::NarrowOp>) {
    std::optional<int> length = cx.integer(3);
    if (!length)
      return length;
    return build<OpTy>(call.loc, val(*x), d, indexOf(*start, call.loc),
                       indexOf(*length, call.loc));
  } else {
    return build<OpTy>(call.loc, val(*x), d, indexOf(*start, call.loc));
  }
}

template <typename OpTy>
std::optional<int> Tracer::traceStack(const KilnCall &call) {
  Composite cx(*this, call);
  std::vector<int> parts;
  if (!tensorList(call.name, call.args[0], call.loc, parts))
    return std::nullopt;
  std::optional<int64_t> dim = cx.constantArg(1, 0, "dim");
  if (!dim)
    return std::nullopt;
  return build<OpTy>(call.loc, vals(parts), *dim);
}

template <Tracer::BatchedProduct Product>
std::optional<int> Tracer::traceBmm(const KilnCall &call) {
  Composite cx(*this, call);
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  constexpr bool scaled = Product != BatchedProduct::Plain;
  std::vector<int> ops;
  for (unsigned i = 0; i < (scaled ? 3u : 2u); ++i) {
    std::optional<int> t = cx.tensor(i);
    if (!t)
      return t;
    ops.push_back(*t);
  }
  unsigned first = scaled ? 1 : 0;
  constexpr int64_t rank = Product == BatchedProduct::AddMatrix ? 2 : 3;
  for (unsigned i = first; i < first + 2; ++i)
    if (GraphInput *in = inputOf(ops[i]))
      in->exactRank = rank;
  if (!scaled)
    return build<ko::BmmOp>(loc, val(ops[0]), val(ops[1]));
  // beta and alpha must be constants (beta 0 ignores the input), each an
  // integer or a float as the source writes it.
  mlir::Builder b(val(ops[0]).getContext());
  mlir::Attribute factors[2] = {b.getI64IntegerAttr(1), b.getI64IntegerAttr(1)};
  for (unsigned i = 3; i < 5 && i < call.size(); ++i) {
    const Expr *arg = stripArg(args[i]);
    if (std::optional<int64_t> c = constantInt(arg))
      factors[i - 3] = b.getI64IntegerAttr(*c);
    else if (std::optional<double> f = constantFloat(arg))
      factors[i - 3] = b.getF64FloatAttr(*f);
    else
      return breakAt(args[i]->getExprLoc(),
                     "kiln::" + call.name +
                         " with a beta or alpha that is not a constant");
  }
  using OpTy = std::conditional_t<Product == BatchedProduct::AddMatrix,
                                  ko::AddmmOp, ko::BaddbmmOp>;
  return build<OpTy>(loc, val(ops[0]), val(ops[1]), val(ops[2]), factors[0],
                     factors[1]);
}

std::optional<int> Tracer::traceEye(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  std::optional<int> rows = cx.integer(0);
  if (!rows)
    return rows;
  int cols = *rows;
  if (n > 1 && constantInt(args[1]) != std::optional<int64_t>(-1)) {
    std::optional<int> c = cx.integer(1);
    if (!c)
      return c;
    cols = *c;
  }
  std::optional<int64_t> dtype = cx.constantArg(2, /*f32=*/5, "dtype");
  if (!dtype)
    return std::nullopt;
  mlir::MLIRContext *ctx = val(*rows).getContext();
  return build<ko::EyeOp>(
      call.loc, indexOf(*rows, call.loc), indexOf(cols, call.loc),
      mlir::TypeAttr::get(elementType(ctx, elementOfDType(*dtype))));
}

std::optional<int> Tracer::traceOneHot(const KilnCall &call) {
  Composite cx(*this, call);
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  std::optional<int> ids = cx.tensor(0);
  if (!ids)
    return ids;
  std::optional<int64_t> classes = constantInt(args[1]);
  if (classes && *classes == -1)
    return breakAt(args[1]->getExprLoc(),
                   "kiln::one_hot with num_classes -1 (the count depends "
                   "on the ids' values)");
  std::optional<int> c = cx.integer(1);
  if (!c)
    return c;
  maskInput(*ids, ElementType::I64);
  return build<ko::OneHotOp>(loc, val(*ids), indexOf(*c, loc));
}

std::optional<int> Tracer::traceBatchNorm(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  std::vector<mlir::Value> stats;
  if (!cx.channelTensors(1, 4, 3, stats))
    return std::nullopt;
  if (n > 5 && constantInt(args[5]).value_or(1) != 0)
    return breakAt(args[5]->getExprLoc(),
                   "kiln::batch_norm in training mode (batch statistics, "
                   "running statistics updated in place) or with a "
                   "training flag known only at run time");
  double eps = 1e-5;
  mlir::Value epsValue;
  if (!cx.normEps(7, eps, epsValue))
    return std::nullopt;
  needsDim(*x, 1);
  mlir::Builder attrs(val(*x).getContext());
  return build<ko::BatchNormOp>(call.loc, val(*x), stats[0], stats[1], stats[2],
                                stats[3], epsValue, attrs.getF64FloatAttr(eps));
}

std::optional<int> Tracer::traceLerp(const KilnCall &call) {
  Composite cx(*this, call);
  bool absent = false;
  std::optional<int> start = cx.tensor(0),
                     end = start ? cx.tensor(1) : std::nullopt;
  if (!end)
    return end;
  std::optional<int> weight = cx.scalar(2, absent);
  if (!weight)
    return weight;
  return build<ko::LerpOp>(call.loc, val(*start), val(*end),
                           f64Of(*weight, call.loc));
}

template <Tracer::Fill With>
std::optional<int> Tracer::traceFullLike(const KilnCall &call) {
  Composite cx(*this, call);
  bool absent = false;
  std::optional<int> x = cx.tensor(0);
  if (!x)
    return x;
  int value = cx.i64(With == Fill::Ones ? 1 : 0);
  if constexpr (With == Fill::Value) {
    std::optional<int> v = cx.scalar(1, absent);
    if (!v)
      return v;
    value = *v;
  }
  mlir::Value number = kindOf(value) == ValueKind::I64
                           ? indexOf(value, call.loc)
                           : f64Of(value, call.loc);
  return build<ko::FullLikeOp>(call.loc, val(*x), number);
}

template <typename OpTy>
std::optional<int> Tracer::traceVariance(const KilnCall &call) {
  Composite cx(*this, call);
  unsigned n = call.size();
  const std::vector<const Expr *> &args = call.args;
  SourceLocation loc = call.loc;
  bool absent = false;
  // One op of the dialect: a correction known at compile time, else an
  // operand.
  std::optional<int> x = cx.tensor(0);
  if (!x || !cx.reduction(*x, 1, 3))
    return std::nullopt;
  mlir::Value runtime;
  int64_t correction = 1;
  if (n > 2) {
    if (std::optional<int64_t> c = constantInt(args[2])) {
      correction = *c;
    } else {
      std::optional<int> c2 = cx.scalar(2, absent);
      if (!c2)
        return c2;
      runtime = indexOf(*c2, loc);
    }
  }
  mlir::Builder b(val(*x).getContext());
  mlir::UnitAttr keep = cx.keepdim ? b.getUnitAttr() : mlir::UnitAttr();
  return build<OpTy>(loc, val(*x), b.getDenseI64ArrayAttr(cx.dims), runtime,
                     b.getI64IntegerAttr(correction), keep);
}

template <typename OpTy>
std::optional<int> Tracer::traceVectorNorm(const KilnCall &call) {
  Composite cx(*this, call);
  const std::vector<const Expr *> &args = call.args;
  std::optional<int> x = cx.tensor(0);
  if (!x || !cx.reduction(*x, 2, 3))
    return std::nullopt;
  double p = 2;
  if (call.size() > 1) {
    std::optional<double> c = constantFloat(stripArg(args[1]));
    if (!c)
      return breakAt(args[1]->getExprLoc(),
                     "kiln::norm with a p that is not a constant");
    p = *c;
  }
  mlir::Builder b(val(*x).getContext());
  mlir::UnitAttr keep = cx.keepdim ? b.getUnitAttr() : mlir::UnitAttr();
  return build<OpTy>(call.loc, val(*x), b.getF64FloatAttr(p),
                     b.getDenseI64ArrayAttr(cx.dims), keep);
}

bool Tracer::isAtenStyleMethod(const std::string &name) {
  auto it = kilnCalls().find(name);
  return it != kilnCalls().end() && it->second.method;
}

std::optional<int> Tracer::traceTensorMethod(const CXXMethodDecl *method,
                                             const CXXMemberCallExpr *call) {
  std::string name = method->getNameAsString();
  SourceLocation loc = call->getExprLoc();
  if (isInPlaceCall(call)) {
    std::vector<const Expr *> args(call->arguments().begin(),
                                   call->arguments().end());
    return traceInPlace(call, args, loc);
  }
  static const std::set<std::string> dataReads = {"item", "data",
                                                  "itemAsDouble"};
  if (dataReads.count(name))
    return breakAt(loc, "Tensor::" + name +
                            "() (a value that depends on tensor data)");
  // ATen-style methods (x.sum({-1}, true), x.exp(), x.matmul(w)) are the
  // free functions of the same name, the object their first argument.
  std::vector<const Expr *> args = {call->getImplicitObjectArgument()};
  args.insert(args.end(), call->arguments().begin(), call->arguments().end());
  if (isAtenStyleMethod(name))
    return traceKilnOp(name, args, loc);
  // The view and shape methods: the object, then the call's arguments.
  struct MethodTracer {
    std::optional<int> (Tracer::*trace)(const KilnCall &, int self);
    /// The arguments after the object it traces: others break.
    size_t minArgs, maxArgs;
  };
  static const std::map<std::string, MethodTracer> methods = {
      {"size", {&Tracer::traceSizeMethod, 1, 1}},
      {"dim", {&Tracer::traceRankMethod, 0, 0}},
      {"numel", {&Tracer::traceNumelMethod, 0, 0}},
      {"contiguous", {&Tracer::traceCopyMethod, 0, 0}},
      {"clone", {&Tracer::traceCopyMethod, 0, 0}},
      {"reshape_as", {&Tracer::traceReshapeAsMethod, 1, 1}},
      {"view_as", {&Tracer::traceReshapeAsMethod, 1, 1}},
      {"expand_as", {&Tracer::traceExpandAsMethod, 1, 1}},
      {"reshape", {&Tracer::traceReshapeMethod, 1, 1}},
      {"view", {&Tracer::traceReshapeMethod, 1, 1}},
      {"expand", {&Tracer::traceExpandMethod, 1, 1}},
      {"transpose", {&Tracer::traceTransposeMethod, 2, 2}},
      {"permute", {&Tracer::tracePermuteMethod, 1, 1}},
      {"unsqueeze", {&Tracer::traceUnsqueezeMethod, 1, 1}},
      {"squeeze", {&Tracer::traceSqueezeMethod, 0, 1}},
      {"flatten", {&Tracer::traceFlattenMethod, 0, 2}},
      {"slice", {&Tracer::traceSliceMethod, 3, 4}},
      {"to", {&Tracer::traceToMethod, 1, 1}}};
  auto it = methods.find(name);
  std::optional<int> self = traceExpr(args[0]);
  if (!self)
    return self;
  if (it == methods.end() || args.size() - 1 < it->second.minArgs ||
      args.size() - 1 > it->second.maxArgs)
    return breakAt(loc, "Tensor::" + name + " is not traced yet");
  return (this->*(it->second.trace))(KilnCall{name, args, loc}, *self);
}

std::optional<int64_t> Tracer::methodConstArg(const KilnCall &c, unsigned i) {
  std::optional<int64_t> v = constantInt(c.arg(i));
  if (!v)
    breakAt(c.arg(i)->getExprLoc(),
            "Tensor::" + c.name +
                " with a dim that is not a compile-time constant");
  return v;
}

std::optional<int> Tracer::traceSizeMethod(const KilnCall &c, int self) {
  std::optional<int64_t> d = methodConstArg(c, 1);
  if (!d)
    return std::nullopt;
  needsDim(self, *d);
  return dimOf(self, *d, c.loc);
}

std::optional<int> Tracer::traceRankMethod(const KilnCall &c, int self) {
  return rankOf(self, c.loc);
}

std::optional<int> Tracer::traceNumelMethod(const KilnCall &c, int self) {
  return numelOf(self, c.loc);
}

std::optional<int> Tracer::traceCopyMethod(const KilnCall &, int self) {
  return self; // graphs are pure: every result is a fresh tensor already
}

std::optional<int> Tracer::traceReshapeAsMethod(const KilnCall &c, int self) {
  std::optional<int> other = traceExpr(c.arg(1));
  if (!other)
    return other;
  return apply<ko::ReshapeAsOp>(c.loc, self, asTensor(*other, c.loc));
}

std::optional<int> Tracer::traceExpandAsMethod(const KilnCall &c, int self) {
  std::optional<int> other = traceExpr(c.arg(1));
  if (!other)
    return other;
  return apply<ko::ExpandAsOp>(c.loc, self, asTensor(*other, c.loc));
}

std::optional<int> Tracer::traceReshapeMethod(const KilnCall &c, int self) {
  // x.reshape({B, -1}), x.view(...).
  std::vector<int> sizes;
  if (!traceIntList(c.arg(1), sizes))
    return std::nullopt;
  return reshape(self, sizes, c.loc);
}

std::optional<int> Tracer::traceExpandMethod(const KilnCall &c, int self) {
  // x.expand({B, -1, T, d}), where -1 keeps a size.
  std::vector<int> sizes;
  if (!traceIntList(c.arg(1), sizes))
    return std::nullopt;
  return expand(self, sizes, c.loc);
}

// The dim-taking views: their dims compile-time constants, slice's bounds
// host integers.

std::optional<int> Tracer::traceTransposeMethod(const KilnCall &c, int self) {
  std::optional<int64_t> a = methodConstArg(c, 1),
                         b = a ? methodConstArg(c, 2) : std::nullopt;
  if (!a || !b)
    return std::nullopt;
  needsDim(self, *a);
  needsDim(self, *b);
  return build<ko::TransposeOp>(c.loc, val(self), *a, *b);
}

std::optional<int> Tracer::tracePermuteMethod(const KilnCall &c, int self) {
  std::vector<int64_t> dims;
  if (!constantIntList(c.arg(1), dims))
    return breakAt(c.loc, "Tensor::permute with dims that are not constants");
  if (GraphInput *in = inputOf(self))
    in->exactRank = static_cast<int64_t>(dims.size());
  return build<ko::PermuteOp>(c.loc, val(self), dims);
}

std::optional<int> Tracer::traceUnsqueezeMethod(const KilnCall &c, int self) {
  std::optional<int64_t> d = methodConstArg(c, 1);
  if (!d)
    return std::nullopt;
  return build<ko::UnsqueezeOp>(c.loc, val(self), *d);
}

std::optional<int> Tracer::traceSqueezeMethod(const KilnCall &c, int self) {
  if (c.size() == 1)
    return breakAt(c.loc, "Tensor::squeeze() without a dim (the result's "
                          "rank depends on which sizes are 1 at run time; "
                          "name the dim)");
  std::optional<int64_t> d = methodConstArg(c, 1);
  if (!d)
    return std::nullopt;
  needsDim(self, *d);
  // (Eager's squeeze of a dim whose size is not 1 is the tensor itself:
  // where that size is static, refinement makes it a copy.)
  return build<ko::SqueezeOp>(c.loc, val(self), *d);
}

std::optional<int> Tracer::traceFlattenMethod(const KilnCall &c, int self) {
  // flatten(start = 0, end = -1).
  unsigned n = c.size() - 1;
  std::optional<int64_t> start = n > 0 ? methodConstArg(c, 1) : 0;
  std::optional<int64_t> end = n > 1 ? methodConstArg(c, 2) : -1;
  if (!start || !end)
    return std::nullopt;
  if (*start != 0)
    needsDim(self, *start);
  if (*end != -1)
    needsDim(self, *end);
  return build<ko::FlattenOp>(c.loc, val(self), *start, *end);
}

std::optional<int> Tracer::traceSliceMethod(const KilnCall &c, int self) {
  // slice(d, start, end, step = 1).
  std::optional<int64_t> d = methodConstArg(c, 1);
  if (!d)
    return std::nullopt;
  needsDim(self, *d);
  std::optional<int> start = traceExpr(c.arg(2));
  if (!start)
    return start;
  std::optional<int> end = traceExpr(c.arg(3));
  if (!end)
    return end;
  int64_t step = 1;
  if (c.size() == 5) {
    std::optional<int64_t> s = methodConstArg(c, 4);
    if (!s)
      return std::nullopt;
    step = *s;
  }
  return slice(self, *d, *start, *end, step, c.loc);
}

std::optional<int> Tracer::traceToMethod(const KilnCall &c, int self) {
  QualType t = c.arg(1)->getType().getCanonicalType();
  if (const auto *e = t->getAs<EnumType>())
    if (e->getDecl()->getName() == "DType") {
      std::optional<int64_t> d = constantInt(c.arg(1));
      if (!d || *d < 0 || *d > 6)
        return breakAt(c.loc, "Tensor::to with a dtype that is not a constant");
      return castTo(self, elementOfDType(*d), c.loc);
    }
  return breakAt(c.loc, "Tensor::to(Device) (devices are not traced yet)");
}

} // namespace kiln::frontend
