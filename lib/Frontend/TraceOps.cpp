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

/// kiln::DType's enumerators in order (kiln/DType.h).
const char *const kDTypeOps[] = {"bool", "i32", "i64", "f16",
                                 "bf16", "f32", "f64"};
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

std::optional<int> Tracer::traceKilnOp(const std::string &name,
                                       const std::vector<const Expr *> &args,
                                       SourceLocation loc) {
  unsigned n = static_cast<unsigned>(args.size());
  auto arg = [&](unsigned i) { return args[i]; };
  // Traced tensor operands (scalars become 0-d tensors).
  auto tensorArg = [&](unsigned i) -> std::optional<int> {
    std::optional<int> v = traceExpr(arg(i));
    if (!v)
      return v;
    return asTensor(*v, arg(i)->getExprLoc());
  };
  // Tensor operands 0 .. count-1 into ops, leaving out the one at
  // `optional` (a bias) where the call passes the default; false when one
  // cannot be traced (the break is recorded).
  auto tensorArgs = [&](unsigned count, int optional, std::vector<int> &ops) {
    for (unsigned i = 0; i < count; ++i) {
      bool isOptional = static_cast<int>(i) == optional;
      if (isOptional && isDefaultTensor(arg(i)))
        continue;
      std::optional<int> v = tensorArg(i);
      if (!v)
        return false;
      // A bias input the source may leave undefined (a module's absent
      // bias) when the weight is an input too: the call passes what
      // kiln::abi::absentBias makes of it (a bias of -0.0s when it is
      // undefined, nothing read when the weight is undefined too: a layer
      // that is off).
      GraphInput *in = inputOf(*v);
      GraphInput *weight = ops.size() > 1 ? inputOf(ops[1]) : nullptr;
      bool weightedBias =
          name == "linear" || name == "conv2d" || name == "conv1d";
      if (isOptional && weightedBias && in && weight && in->sourceUndefined)
        in->standIn =
            "::kiln::abi::absentBias(" + in->expr + ", " + weight->expr + ")";
      ops.push_back(*v);
    }
    return true;
  };
  auto constArg = [&](unsigned i, const char *what) -> std::optional<int64_t> {
    std::optional<int64_t> c = constantInt(arg(i));
    if (!c)
      breakAt(arg(i)->getExprLoc(), std::string("kiln::") + name + " with a " +
                                        what +
                                        " that is not a compile-time constant");
    return c;
  };
  if (name == "graph_break")
    return breakAt(loc, "kiln::graph_break()");
  if (name == "allclose")
    return breakAt(loc, "kiln::allclose (a value that depends on tensor data)");

  if (isComposite(name))
    return traceComposite(name, args, loc);

  // The runtime's function names are the ops' names (zeros and ones are
  // fulls).
  std::optional<OpCode> named = opNamed(name);
  if (name == "zeros" || name == "ones")
    named = OpCode::Full;
  if (name == "conv1d")
    named = OpCode::Conv2d;
  if (name == "max_pool2d" || name == "avg_pool2d")
    named = OpCode::Pool2d;
  if (name == "randn" || name == "rand")
    named = OpCode::Random;
  if (!named || opGroup(*named) == OpGroup::Scalar)
    return breakAt(loc, "kiln::" + name + " is not traced yet");
  OpCode code = *named;
  OpGroup group = opGroup(code);
  if ((group == OpGroup::UnaryFloat || group == OpGroup::Unary) && n == 1) {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    return addOp(code, {*x}, ValueKind::Tensor, loc);
  }
  if (code == OpCode::Gelu) {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::string approximate = "none";
    if (n > 1) {
      std::optional<std::string> s = stringArg(arg(1));
      if (!s)
        return breakAt(
            arg(1)->getExprLoc(),
            "kiln::gelu with an approximation that is not a literal");
      approximate = *s;
    }
    return addOp(code, {*x}, ValueKind::Tensor, loc, {}, 0, approximate);
  }
  if (group == OpGroup::Binary && n == 2) {
    std::optional<int> l = tensorArg(0);
    if (!l)
      return l;
    std::optional<int> r = tensorArg(1);
    if (!r)
      return r;
    if (code == OpCode::Add || code == OpCode::Sub || code == OpCode::Mul ||
        code == OpCode::Div)
      preferBiasRank({*l, *r});
    return addOp(code, {*l, *r}, ValueKind::Tensor, loc);
  }
  if (code == OpCode::Where && n == 3) {
    std::vector<int> ops;
    if (!tensorArgs(3, -1, ops))
      return std::nullopt;
    maskInput(ops[0]);
    return addOp(code, ops, ValueKind::Tensor, loc);
  }
  if (code == OpCode::Argmax || code == OpCode::Argmin) {
    // (x, dim = nullopt, keepdim = false): ints keepdim, then the dim
    // when one is given (none: the flattened input).
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::vector<int64_t> ints = {0};
    if (n > 1) {
      const Expr *d = stripTemporaries(arg(1));
      if (const auto *c = dyn_cast<CXXConstructExpr>(d))
        d = c->getNumArgs() == 1 ? stripTemporaries(c->getArg(0)) : nullptr;
      bool none = !d || d->getType().getAsString().find("nullopt_t") !=
                            std::string::npos;
      if (!none) {
        std::optional<int64_t> dim = constantInt(d);
        if (!dim)
          return breakAt(arg(1)->getExprLoc(),
                         "kiln::" + name +
                             " with a dim that is not a constant");
        needsDim(*x, *dim);
        ints.push_back(*dim);
      }
    }
    if (n > 2) {
      std::optional<int64_t> keep = constArg(2, "keepdim");
      if (!keep)
        return std::nullopt;
      ints[0] = *keep != 0;
    }
    return addOp(code, {*x}, ValueKind::Tensor, loc, ints);
  }
  if (group == OpGroup::Reduction) {
    std::optional<int> x = tensorArg(0);
    std::vector<int64_t> ints;
    if (!x || !reductionInts(name, *x, n > 1 ? arg(1) : nullptr,
                             n > 2 ? arg(2) : nullptr, ints))
      return std::nullopt;
    return addOp(code, {*x}, ValueKind::Tensor, loc, ints);
  }
  if (code == OpCode::Softmax || code == OpCode::LogSoftmax) {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::optional<int64_t> dim = constArg(1, "dim");
    if (!dim)
      return std::nullopt;
    needsDim(*x, *dim);
    return addOp(code, {*x}, ValueKind::Tensor, loc, {*dim});
  }
  if (code == OpCode::LayerNorm || code == OpCode::RmsNorm) {
    bool ln = code == OpCode::LayerNorm;
    std::vector<int> ops;
    if (!tensorArgs(ln ? 3 : 2, ln ? 2 : -1, ops))
      return std::nullopt;
    for (size_t i = 1; i < ops.size(); ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->preferredRank = 1;
    double eps = ln ? 1e-5 : 1e-6;
    unsigned epsArg = ln ? 3 : 2;
    std::vector<int64_t> ints;
    if (n > epsArg) {
      if (std::optional<double> e = constantFloat(arg(epsArg))) {
        eps = *e;
      } else {
        // A module's eps (`this->eps`): an f64 operand (ints {1}).
        std::optional<int> v = traceExpr(arg(epsArg));
        if (!v)
          return std::nullopt;
        if (kindOf(*v) == ValueKind::Tensor)
          return breakAt(arg(epsArg)->getExprLoc(),
                         "kiln::" + name + " with a tensor eps");
        if (kindOf(*v) != ValueKind::F64)
          v = addOp(OpCode::ScalarCast, {*v}, ValueKind::F64,
                    arg(epsArg)->getExprLoc());
        ops.push_back(*v);
        ints.push_back(1);
        eps = 0;
      }
    }
    return addOp(code, ops, ValueKind::Tensor, loc, ints, eps);
  }
  if (code == OpCode::Attention && n >= 3) {
    // (q, k, v, attn_mask = Tensor(), dropout_p = 0, is_causal = false,
    // scale = nullopt): operands q, k, v, [mask], [scale as f64]; ints
    // is_causal, has mask, has scale.
    std::vector<int> ops;
    if (!tensorArgs(n > 3 ? 4 : 3, 3, ops))
      return std::nullopt;
    int64_t hasMask = ops.size() > 3;
    if (n > 4) {
      std::optional<double> p = constantFloat(stripArg(arg(4)));
      if (!p || *p != 0.0)
        return breakAt(arg(4)->getExprLoc(),
                       "kiln::scaled_dot_product_attention with a dropout_p "
                       "other than a constant 0 (an error in eager)");
    }
    int64_t causal = 0;
    if (n > 5) {
      std::optional<int64_t> c = constArg(5, "is_causal");
      if (!c)
        return std::nullopt;
      causal = *c != 0;
    }
    bool absent = true;
    std::optional<int> scale =
        optionalScalar(name, n > 6 ? arg(6) : nullptr, absent);
    if (!scale && !absent)
      return scale;
    if (scale) {
      if (kindOf(*scale) != ValueKind::F64)
        scale = addOp(OpCode::ScalarCast, {*scale}, ValueKind::F64, loc);
      ops.push_back(*scale);
    }
    return addOp(code, ops, ValueKind::Tensor, loc,
                 {causal, hasMask, scale ? 1 : 0});
  }
  if (code == OpCode::Matmul || code == OpCode::Linear ||
      code == OpCode::Embedding || code == OpCode::CrossEntropy) {
    std::vector<int> ops;
    if (!tensorArgs(n, code == OpCode::Linear ? 2 : -1, ops))
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
    if (code == OpCode::Matmul || code == OpCode::Linear)
      prefer(1, 2, ElementType::F32);
    if (code == OpCode::Linear)
      prefer(2, 1, ElementType::F32);
    if (code == OpCode::Embedding) {
      prefer(0, 2, ElementType::I64);
      prefer(1, 2, ElementType::F32);
    }
    if (code == OpCode::CrossEntropy) {
      prefer(0, 2, ElementType::F32);
      prefer(1, 1, ElementType::I64);
    }
    return addOp(code, ops, ValueKind::Tensor, loc);
  }
  if (code == OpCode::Conv2d) {
    // conv1d is conv2d over [N, C, 1, L] with a [O, C, 1, k] weight.
    bool oneD = name == "conv1d";
    std::vector<int> ops;
    if (!tensorArgs(std::min(n, 3u), 2, ops))
      return std::nullopt;
    // The input may be unbatched ([C, H, W]; conv1d: [C, L]), as in eager.
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
        ops[i] =
            addOp(OpCode::Unsqueeze, {ops[i]}, ValueKind::Tensor, loc, {-2});
    // stride, padding and dilation: one value for both dims or {h, w};
    // groups one value. A value known only at run time (a module's member)
    // is an operand, range-checked by the lowering as the runtime checks it.
    size_t tensors = ops.size();
    std::vector<int64_t> params;
    static const char *const what[] = {"stride", "padding", "dilation",
                                       "groups"};
    for (unsigned a = 3; a < 7; ++a) {
      int64_t byDefault = a == 4 ? 0 : 1, minimum = byDefault;
      bool pair = a < 6;
      std::vector<int> values;
      BodyMark before = markBody(graph());
      if (n > a && !traceIntList(arg(a), values))
        return std::nullopt;
      bool allConstant = llvm::all_of(
          values, [&](int v) { return graph().constantValue(v).has_value(); });
      if (values.empty())
        values.push_back(
            constant(static_cast<double>(byDefault), ValueKind::I64, loc));
      if (values.size() > (oneD || !pair ? 1u : 2u))
        return breakAt(arg(a)->getExprLoc(),
                       "kiln::" + name + " with more than " +
                           (oneD || !pair ? "one " : "two ") + what[a - 3]);
      if (oneD && pair) // the height's: stride 1, no padding, no dilation
        values.insert(values.begin(), constant(static_cast<double>(byDefault),
                                               ValueKind::I64, loc));
      if (pair && values.size() == 1)
        values.push_back(values[0]);
      for (int v : values) {
        std::optional<double> c = graph().constantValue(v);
        if (c && *c < static_cast<double>(minimum))
          return breakAt(arg(a)->getExprLoc(),
                         "kiln::" + name + " with " + what[a - 3] +
                             (minimum ? " below 1" : " below 0"));
        params.push_back(c ? static_cast<int64_t>(*c) : kRuntimeAttr);
        if (!c)
          ops.push_back(v);
      }
      // Needed only as attributes (what added an input is kept: the
      // graph's inputs and arguments stay one for one).
      if (allConstant && markBody(graph()).arguments == before.arguments)
        cutBody(graph(), before);
    }
    params.push_back(static_cast<int64_t>(tensors > 2));
    int y = addOp(OpCode::Conv2d, ops, ValueKind::Tensor, loc, params);
    if (!oneD)
      return y;
    return addOp(OpCode::Squeeze, {y}, ValueKind::Tensor, loc, {-2});
  }
  if (code == OpCode::Random && n >= 2) {
    // randn(shape, seed, dtype), rand(...): the seed a host integer.
    std::vector<int> ops;
    std::optional<int> seed = traceExpr(stripArg(arg(1)));
    if (!seed)
      return seed;
    if (kindOf(*seed) != ValueKind::I64)
      return breakAt(arg(1)->getExprLoc(),
                     "kiln::" + name + " with a seed that is not an integer");
    ops.push_back(*seed);
    if (!traceIntList(arg(0), ops))
      return std::nullopt;
    int64_t dtype = 5; // f32
    if (n > 2) {
      std::optional<int64_t> d = constArg(2, "dtype");
      if (!d)
        return std::nullopt;
      dtype = *d;
    }
    if (dtype < 3 || dtype > 6)
      return breakAt(loc, "kiln::" + name +
                              " of a dtype that is not floating (an error "
                              "in eager)");
    return addOp(OpCode::Random, ops, ValueKind::Tensor, loc,
                 {name == "randn" ? 1 : 0, dtype});
  }
  if (code == OpCode::AdaptiveAvgPool2d) {
    // adaptive_avg_pool2d(x, output_size): one value for both dims or
    // {h, w}; a value known only at run time is an operand, checked by the
    // lowering.
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    needsDim(*x, 2);
    if (GraphInput *in = inputOf(*x); in && in->preferredRank < 0) {
      in->preferredRank = 4;
      in->otherRank = 3; // [C, H, W]
    }
    std::vector<int> ops = {*x}, values;
    if (n < 2 || !traceIntList(arg(1), values))
      return std::nullopt;
    if (values.empty() || values.size() > 2)
      return breakAt(arg(1)->getExprLoc(),
                     "kiln::adaptive_avg_pool2d with an output size of " +
                         std::to_string(values.size()) + " values");
    if (values.size() == 1)
      values.push_back(values[0]);
    std::vector<int64_t> ints;
    for (int v : values) {
      std::optional<double> c = graph().constantValue(v);
      if (c && *c < 1)
        return breakAt(arg(1)->getExprLoc(),
                       "kiln::adaptive_avg_pool2d with an output size below "
                       "1 (an error in eager)");
      ints.push_back(c ? static_cast<int64_t>(*c) : kRuntimeAttr);
      if (!c)
        ops.push_back(v);
    }
    return addOp(OpCode::AdaptiveAvgPool2d, ops, ValueKind::Tensor, loc, ints);
  }
  if (code == OpCode::Pool2d) {
    // max_pool2d(x, kernel, stride, padding, dilation, ceil_mode) and
    // avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad,
    // divisor_override): one value for both dims or {h, w}; an absent or
    // empty stride is the kernel's. A value known only at run time (a
    // module's member) is an operand, checked by the lowering as the
    // runtime checks it.
    bool isMax = name == "max_pool2d";
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    needsDim(*x, 2); // [C, H, W] or, preferably, [N, C, H, W]
    if (GraphInput *in = inputOf(*x); in && in->preferredRank < 0) {
      in->preferredRank = 4;
      in->otherRank = 3;
    }
    std::vector<int> ops = {*x};
    std::vector<int64_t> ints = {isMax ? 0 : 1};
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
        if (isOptional(arg(a))) {
          bool absent = false;
          std::optional<int> v = optionalScalar(name, arg(a), absent);
          if (!absent && !v)
            return v;
          if (!absent)
            values.push_back(*v);
        } else if (!traceIntList(arg(a), values)) {
          return std::nullopt;
        }
      }
      if (values.empty() && w == 1)
        values = kernel;
      if (values.empty())
        values.push_back(constant(w == 2 ? 0.0 : 1.0, ValueKind::I64, loc));
      if (values.size() > 2)
        return breakAt(arg(a)->getExprLoc(),
                       "kiln::" + name + " with more than two " + what[w]);
      if (values.size() == 1)
        values.push_back(values[0]);
      if (w == 0)
        kernel = values;
      for (int v : values) {
        std::optional<double> c = graph().constantValue(v);
        if (c && *c < (w == 2 ? 0 : 1))
          return breakAt(arg(a)->getExprLoc(),
                         "kiln::" + name + " with " + what[w] +
                             (w == 2 ? " below 0" : " below 1"));
        ints.push_back(c ? static_cast<int64_t>(*c) : kRuntimeAttr);
        if (!c)
          ops.push_back(v);
      }
    }
    // ceil_mode, count_include_pad: constants or run-time bools.
    auto flag = [&](unsigned a, int64_t byDefault) -> bool {
      if (n <= a) {
        ints.push_back(byDefault);
        return true;
      }
      std::optional<int> v = traceExpr(arg(a));
      if (!v)
        return false;
      if (kindOf(*v) == ValueKind::Tensor) {
        breakAt(arg(a)->getExprLoc(),
                "kiln::" + name + " with a tensor where it takes a bool");
        return false;
      }
      std::optional<double> c = graph().constantValue(*v);
      ints.push_back(c ? static_cast<int64_t>(*c != 0) : kRuntimeAttr);
      if (!c)
        ops.push_back(*v);
      return true;
    };
    if (!flag(isMax ? 5 : 4, 0))
      return std::nullopt;
    if (isMax) // count_include_pad is average pooling's
      ints.push_back(1);
    else if (!flag(5, 1))
      return std::nullopt;
    int64_t divisor = 0;
    if (!isMax && n > 6) {
      bool absent = false;
      std::optional<int> v = optionalScalar(name, arg(6), absent);
      if (!absent && !v)
        return v;
      std::optional<double> c =
          absent ? std::nullopt : graph().constantValue(*v);
      if (!absent && (!c || *c == 0))
        return breakAt(arg(6)->getExprLoc(),
                       "kiln::avg_pool2d with a divisor_override that is " +
                           std::string(c ? "0 (an error in eager)"
                                         : "not a compile-time constant"));
      if (c)
        divisor = static_cast<int64_t>(*c);
    }
    ints.push_back(divisor);
    return addOp(OpCode::Pool2d, ops, ValueKind::Tensor, loc, ints);
  }
  if (code == OpCode::Cat) {
    std::vector<int> ops;
    if (!tensorList(name, arg(0), loc, ops))
      return std::nullopt;
    int64_t dim = 0;
    if (n > 1) {
      std::optional<int64_t> d = constArg(1, "dim");
      if (!d)
        return std::nullopt;
      dim = *d;
    }
    return addOp(OpCode::Cat, ops, ValueKind::Tensor, loc, {dim});
  }
  if (code == OpCode::Full) {
    std::vector<int> sizes;
    if (!traceIntList(arg(0), sizes))
      return std::nullopt;
    bool full = name != "zeros" && name != "ones";
    double value = name == "ones" ? 1 : 0;
    unsigned dtypeArg = full ? 2 : 1;
    int64_t dtype = 5; // f32
    if (n > dtypeArg) {
      std::optional<int64_t> d = constArg(dtypeArg, "dtype");
      if (!d)
        return std::nullopt;
      dtype = *d;
    }
    std::optional<int> scalar; // a value known only at run time
    if (full) {
      const Expr *v = stripArg(arg(1));
      if (std::optional<double> c = constantFloat(v)) {
        value = *c;
      } else {
        scalar = traceExpr(v);
        if (!scalar)
          return std::nullopt;
        if (kindOf(*scalar) == ValueKind::Tensor)
          return breakAt(v->getExprLoc(), "kiln::full with a tensor value");
        value = 1;
      }
    }
    int filled =
        addOp(OpCode::Full, sizes, ValueKind::Tensor, loc, {dtype}, value);
    if (!scalar)
      return filled;
    // ones * value: exactly the value (-0.0 and NaN included), converted
    // to the dtype first as the runtime's full converts it.
    ElementType e = elementOfDType(dtype);
    ValueKind kind = e == ElementType::Bool ? ValueKind::Bool
                     : e == ElementType::I32 || e == ElementType::I64
                         ? ValueKind::I64
                     : e == ElementType::F64 ? ValueKind::F64
                                             : ValueKind::F32;
    int v = *scalar;
    if (kindOf(v) != kind)
      v = addOp(OpCode::ScalarCast, {v}, kind, loc);
    return addOp(OpCode::Mul, {filled, asTensor(v, loc)}, ValueKind::Tensor,
                 loc);
  }
  if (code == OpCode::Arange && (n == 1 || n == 2 || n == 3)) {
    // Integer ranges (a float range is a break: its length depends on
    // rounding the runtime does).
    std::vector<int> bounds;
    for (unsigned i = 0; i < n; ++i) {
      std::optional<int> v = traceExpr(stripArg(arg(i)));
      if (!v)
        return v;
      if (kindOf(*v) != ValueKind::I64)
        return breakAt(arg(i)->getExprLoc(), "kiln::arange of floats");
      bounds.push_back(*v);
    }
    if (n == 1)
      bounds.insert(bounds.begin(), constant(0, ValueKind::I64, loc));
    if (bounds.size() == 2)
      bounds.push_back(constant(1, ValueKind::I64, loc));
    return addOp(OpCode::Arange, bounds, ValueKind::Tensor, loc);
  }
  return breakAt(loc, "kiln::" + name + " is not traced yet");
}

void Tracer::maskInput(int mask, ElementType element) {
  // The input it views (mask.unsqueeze(1).unsqueeze(2)) too.
  mlir::Value v = graph().body->values[mask];
  while (mlir::Operation *p = v ? v.getDefiningOp() : nullptr) {
    if (!mlir::isa<mlir::kiln::UnsqueezeOp, mlir::kiln::SqueezeOp,
                   mlir::kiln::ReshapeOp, mlir::kiln::ExpandOp,
                   mlir::kiln::TransposeOp, mlir::kiln::PermuteOp,
                   mlir::kiln::SliceOp>(p))
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

bool Tracer::isPiecesCall(const Expr *e) {
  const auto *call = dyn_cast<CallExpr>(stripTemporaries(e));
  const FunctionDecl *fn = call ? call->getDirectCallee() : nullptr;
  if (!fn || !isTensorVectorType(call->getType()))
    return false;
  std::string name = fn->getNameAsString();
  if (name != "chunk" && name != "split")
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
  auto scalar = [&](OpCode code, int a, int b, ValueKind kind) {
    return addOp(code, {a, b}, kind, loc);
  };
  auto cmp = [&](int a, int b, int64_t predicate) {
    return addOp(OpCode::ScalarCmp, {a, b}, ValueKind::Bool, loc, {predicate});
  };
  enum { LT = 0, LE = 1, GT = 2, GE = 3, EQ = 4, NE = 5 };
  auto check = [&](int ok, const std::string &why) {
    addOp(OpCode::Check, {ok}, ValueKind::Bool, loc, {}, 0, why);
  };
  auto piece = [&](int start, int end) {
    pieces.push_back(addOp(OpCode::Slice, {x, start, end}, ValueKind::Tensor,
                           loc, {dim, 1}));
  };
  int size = addOp(OpCode::Dim, {x}, ValueKind::I64, loc, {dim});
  std::vector<int64_t> sizes;
  if (name == "split" && constantIntList(args[1], sizes) &&
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
    check(cmp(size, i64(start), EQ), "split: the sizes add up to the dim's");
    return true;
  }
  // chunk: ceil(size / count) elements a piece, and there must be `count`
  // pieces (or an empty dim, count empty pieces); split: `step` elements a
  // piece (a constant or a host integer), as many pieces as the code reads.
  int step;
  int64_t made;
  if (name == "chunk") {
    std::optional<int64_t> count = constantInt(args[1]);
    if (!count || *count <= 0) {
      breakAt(args[1]->getExprLoc(),
              "kiln::chunk with a count that is not a positive constant");
      return false;
    }
    made = *count;
    step =
        scalar(OpCode::ScalarDiv,
               scalar(OpCode::ScalarAdd, size, i64(made - 1), ValueKind::I64),
               i64(made), ValueKind::I64);
    int before = scalar(OpCode::ScalarMul, i64(made - 1), step, ValueKind::I64);
    check(scalar(OpCode::ScalarOr, cmp(size, i64(0), EQ), cmp(before, size, LT),
                 ValueKind::Bool),
          "chunk: the dim's size makes fewer pieces");
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
    int last = scalar(OpCode::ScalarMul, i64(made - 1), step, ValueKind::I64);
    check(scalar(OpCode::ScalarAnd,
                 scalar(OpCode::ScalarOr, cmp(step, i64(0), GT),
                        scalar(OpCode::ScalarAnd, cmp(step, i64(0), EQ),
                               cmp(size, i64(0), EQ), ValueKind::Bool),
                        ValueKind::Bool),
                 scalar(OpCode::ScalarOr, cmp(last, size, LT),
                        cmp(i64(made), i64(1), LE), ValueKind::Bool),
                 ValueKind::Bool),
          "split: the size, or the pieces the dim's size makes");
  }
  for (int64_t i = 0; i < made; ++i) {
    int start = scalar(OpCode::ScalarMul, i64(i), step, ValueKind::I64);
    int end = scalar(OpCode::ScalarMin,
                     scalar(OpCode::ScalarAdd, start, step, ValueKind::I64),
                     size, ValueKind::I64);
    piece(scalar(OpCode::ScalarMin, start, size, ValueKind::I64), end);
  }
  return true;
}

bool Tracer::reductionInts(const std::string &name, int x, const Expr *dimsArg,
                           const Expr *keepArg, std::vector<int64_t> &ints) {
  std::vector<int64_t> dims;
  if (dimsArg && !constantIntList(dimsArg, dims)) {
    breakAt(dimsArg->getExprLoc(),
            "kiln::" + name + " over dims that are not constants");
    return false;
  }
  int64_t keepdim = 0;
  if (keepArg) {
    std::optional<int64_t> k = constantInt(keepArg);
    if (!k) {
      breakAt(keepArg->getExprLoc(),
              "kiln::" + name +
                  " with a keepdim that is not a compile-time constant");
      return false;
    }
    keepdim = *k;
  }
  for (int64_t d : dims)
    needsDim(x, d);
  ints = {keepdim};
  ints.insert(ints.end(), dims.begin(), dims.end());
  return true;
}

bool Tracer::isComposite(const std::string &name) {
  static const std::set<std::string> names = {"leaky_relu",
                                              "elu",
                                              "clamp",
                                              "masked_fill",
                                              "lerp",
                                              "isnan",
                                              "isinf",
                                              "isfinite",
                                              "logical_and",
                                              "logical_or",
                                              "logical_not",
                                              "sign",
                                              "full_like",
                                              "zeros_like",
                                              "ones_like",
                                              "empty_like",
                                              "var",
                                              "std",
                                              "norm",
                                              "any",
                                              "all",
                                              "tril",
                                              "triu",
                                              "dropout",
                                              "bmm",
                                              "addmm",
                                              "baddbmm",
                                              "narrow",
                                              "select",
                                              "stack",
                                              "one_hot",
                                              "eye",
                                              "batch_norm",
                                              "gather",
                                              "index_select",
                                              "flip",
                                              "roll",
                                              "repeat",
                                              "tile",
                                              "pad",
                                              "unflatten",
                                              "group_norm",
                                              "instance_norm",
                                              "max",
                                              "min",
                                              "linspace",
                                              "einsum",
                                              "interpolate",
                                              "conv_transpose2d",
                                              "randint",
                                              "cumsum",
                                              "cumprod",
                                              "topk",
                                              "scatter_add"};
  return names.count(name) > 0;
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

std::optional<int> Tracer::traceComposite(const std::string &name,
                                          const std::vector<const Expr *> &args,
                                          SourceLocation loc) {
  // Written with the ops lib/Runtime/Ops/Composite.cpp writes them with.
  unsigned n = static_cast<unsigned>(args.size());
  auto tensor = [&](unsigned i) -> std::optional<int> {
    std::optional<int> v = traceExpr(args[i]);
    if (!v)
      return v;
    return asTensor(*v, args[i]->getExprLoc());
  };
  auto scalar = [&](unsigned i, bool &absent) -> std::optional<int> {
    return optionalScalar(name, i < n ? args[i] : nullptr, absent);
  };
  auto wrapped = [&](int scalarValue) { return asTensor(scalarValue, loc); };
  auto number = [&](double v) {
    return asTensor(constant(v, ValueKind::F64, loc), loc);
  };
  auto cmp = [&](int a, int b, int64_t predicate) {
    return addOp(OpCode::Cmp, {a, b}, ValueKind::Tensor, loc, {predicate});
  };
  auto op = [&](OpCode code, std::vector<int> operands) {
    return addOp(code, std::move(operands), ValueKind::Tensor, loc);
  };
  // In x's dtype (ints {-1}: the cast takes its second operand's).
  auto like = [&](int v, int x) {
    return addOp(OpCode::Cast, {v, x}, ValueKind::Tensor, loc, {-1});
  };
  enum { LT = 0, LE = 1, GT = 2, GE = 3, EQ = 4, NE = 5 };
  const double inf = std::numeric_limits<double>::infinity();
  bool absent = false;
  // A constant argument, `fallback` where the call leaves it out.
  auto constantArg = [&](unsigned i, int64_t fallback,
                         const char *what) -> std::optional<int64_t> {
    if (i >= n)
      return fallback;
    std::optional<int64_t> c = constantInt(args[i]);
    if (!c)
      breakAt(args[i]->getExprLoc(),
              "kiln::" + name + " with a " + what + " that is not a constant");
    return c;
  };
  // The checks eager makes on values known only at run time: a failed one
  // fails the graph call, and the statements rerun eagerly and throw.
  auto check = [&](int ok, const std::string &why) {
    addOp(OpCode::Check, {ok}, ValueKind::Bool, loc, {}, 0, why);
  };
  auto scalarCmp = [&](int a, int b, int64_t predicate) {
    return addOp(OpCode::ScalarCmp, {a, b}, ValueKind::Bool, loc, {predicate});
  };
  auto both = [&](int a, int b) {
    return addOp(OpCode::ScalarAnd, {a, b}, ValueKind::Bool, loc);
  };
  auto scalarAdd = [&](int a, int b) {
    return addOp(OpCode::ScalarAdd, {a, b}, ValueKind::I64, loc);
  };
  auto i64 = [&](int64_t v) { return constant(v, ValueKind::I64, loc); };
  // An integer argument: a constant, or a host integer.
  auto integer = [&](unsigned i) -> std::optional<int> {
    if (std::optional<int64_t> c = constantInt(args[i]))
      return i64(*c);
    std::optional<int> v = traceExpr(stripArg(args[i]));
    if (v && kindOf(*v) != ValueKind::I64)
      return breakAt(args[i]->getExprLoc(),
                     "kiln::" + name + " with an index that is not an integer");
    return v;
  };
  // The tensor args[0] and the constant dim args[1] it must have; both
  // nullopt after a break.
  auto tensorAndDim =
      [&]() -> std::pair<std::optional<int>, std::optional<int64_t>> {
    std::optional<int> x = tensor(0);
    std::optional<int64_t> dim = x ? constantArg(1, 0, "dim") : std::nullopt;
    if (!dim)
      return {std::nullopt, std::nullopt};
    needsDim(*x, *dim);
    return {x, dim};
  };
  // The per-channel [C] tensors args[from, from + count) into ops, -1 for
  // an optional one (from `optionalFrom` on) left out; false after a break.
  auto channelTensors = [&](unsigned from, unsigned count,
                            unsigned optionalFrom, std::vector<int> &ops) {
    for (unsigned i = from; i < from + count && i < n; ++i) {
      if (i >= optionalFrom && isDefaultTensor(args[i])) {
        ops.push_back(-1);
        continue;
      }
      std::optional<int> t = tensor(i);
      if (!t)
        return false;
      if (GraphInput *in = inputOf(*t))
        in->preferredRank = 1;
      ops.push_back(*t);
    }
    return true;
  };
  // Positions 0 .. size-1, int64.
  auto positions = [&](int size) {
    return op(OpCode::Arange, {i64(0), size, i64(1)});
  };
  auto scalarOp = [&](OpCode code, int a, int b) {
    return addOp(code, {a, b}, ValueKind::I64, loc);
  };
  // index_select along a constant dim: the dim moved last, where a 1-d
  // index broadcasts against a [..., 1] slice to the index the gather
  // needs, then moved back. The checks are eager's that the gather's
  // cannot make (an index of more dims; any index into an empty dim).
  auto indexSelect = [&](int x, int64_t d, int index) {
    auto swap = [&](int t) {
      return addOp(OpCode::Transpose, {t}, ValueKind::Tensor, loc, {d, -1});
    };
    int last = swap(x);
    int one = addOp(OpCode::Slice, {last, i64(0), i64(1)}, ValueKind::Tensor,
                    loc, {-1, 1});
    int zero = wrapped(i64(0));
    int at = op(OpCode::Add,
                {op(OpCode::Where, {cmp(one, one, EQ), zero, zero}), index});
    int size = addOp(OpCode::Dim, {x}, ValueKind::I64, loc, {d});
    int count = addOp(OpCode::Numel, {index}, ValueKind::I64, loc);
    check(
        both(scalarCmp(addOp(OpCode::Rank, {index}, ValueKind::I64, loc),
                       i64(1), LE),
             addOp(OpCode::ScalarOr,
                   {scalarCmp(size, i64(0), GT), scalarCmp(count, i64(0), EQ)},
                   ValueKind::Bool, loc)),
        "index_select: a 1-d index in range");
    return swap(
        addOp(OpCode::Gather, {last, at}, ValueKind::Tensor, loc, {-1}));
  };
  // A list of constant ints (dims, shifts, reps, pads).
  auto constantList = [&](unsigned i, const char *what,
                          std::vector<int64_t> &values) {
    if (i < n && !constantIntList(args[i], values)) {
      breakAt(args[i]->getExprLoc(),
              "kiln::" + name + " with " + what + " that are not constants");
      return false;
    }
    return true;
  };
  if (name == "unflatten" && n == 3) {
    auto [x, dim] = tensorAndDim();
    if (!x)
      return std::nullopt;
    std::vector<int> sizes = {*x};
    if (!traceIntList(args[2], sizes))
      return std::nullopt;
    if (sizes.size() < 2)
      return breakAt(loc, "kiln::unflatten to no sizes (an error in eager)");
    return addOp(OpCode::Unflatten, sizes, ValueKind::Tensor, loc, {*dim});
  }
  if ((name == "group_norm" && n >= 2) || (name == "instance_norm" && n >= 1)) {
    // Each group's elements in a row, normalised, back to x's shape; the
    // per-channel weight and bias with the channels last.
    bool groupNorm = name == "group_norm";
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    needsDim(*x, groupNorm ? 1 : 2);
    int channels = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {1});
    int groups = channels;
    if (groupNorm) {
      std::optional<int> g = integer(1);
      if (!g)
        return g;
      groups = *g;
      int divides =
          scalarCmp(scalarOp(OpCode::ScalarRem, channels,
                             scalarOp(OpCode::ScalarMax, groups, i64(1))),
                    i64(0), EQ);
      check(both(scalarCmp(groups, i64(0), GT), divides),
            "group_norm: the channels split into the groups");
    }
    unsigned first = groupNorm ? 2 : 1;
    std::vector<int> affine;
    if (!channelTensors(first, 2, first, affine))
      return std::nullopt;
    int eps = number(1e-5);
    if (n > first + 2) {
      if (std::optional<double> e = constantFloat(stripArg(args[first + 2]))) {
        eps = number(*e);
      } else {
        std::optional<int> v = scalar(first + 2, absent);
        if (!v)
          return v;
        eps = wrapped(*v);
      }
    }
    int split = addOp(OpCode::Unflatten, {*x, groups, i64(-1)},
                      ValueKind::Tensor, loc, {1});
    int rows = addOp(OpCode::Flatten, {split}, ValueKind::Tensor, loc, {2, -1});
    auto mean = [&](int t) {
      return addOp(OpCode::Mean, {t}, ValueKind::Tensor, loc, {1, -1});
    };
    int centred = op(OpCode::Sub, {rows, mean(rows)});
    int variance = mean(op(OpCode::Mul, {centred, centred}));
    int y = addOp(
        OpCode::ReshapeAs,
        {op(OpCode::Mul,
            {centred, op(OpCode::Rsqrt, {op(OpCode::Add, {variance, eps})})}),
         *x},
        ValueKind::Tensor, loc);
    bool weighted = !affine.empty() && affine[0] >= 0;
    bool biased = affine.size() > 1 && affine[1] >= 0;
    if (!weighted && !biased)
      return y;
    auto swap = [&](int t) {
      return addOp(OpCode::Transpose, {t}, ValueKind::Tensor, loc, {1, -1});
    };
    y = swap(y);
    if (weighted)
      y = op(OpCode::Mul, {y, affine[0]});
    if (biased)
      y = op(OpCode::Add, {y, affine[1]});
    return like(swap(y), *x);
  }
  if (name == "linspace" && n >= 3) {
    // As eager writes it: positions counted up from start below the middle
    // and down from end above it.
    std::vector<int> ends;
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<int> v = scalar(i, absent);
      if (!v)
        return v;
      ends.push_back(
          kindOf(*v) == ValueKind::F64
              ? *v
              : addOp(OpCode::ScalarCast, {*v}, ValueKind::F64, loc));
    }
    std::optional<int> steps = integer(2);
    if (!steps)
      return steps;
    std::optional<int64_t> dtype = constantArg(3, /*f32=*/5, "dtype");
    if (!dtype)
      return std::nullopt;
    if (*dtype < 3 || *dtype > 6)
      return breakAt(loc, "kiln::linspace of a dtype that is not floating (an "
                          "error in eager)");
    check(scalarCmp(*steps, i64(0), GE),
          "linspace: the number of steps must be non-negative");
    auto f64 = [&](int v) {
      return addOp(OpCode::ScalarCast, {v}, ValueKind::F64, loc);
    };
    int last = f64(scalarOp(OpCode::ScalarSub, *steps, i64(1)));
    int gaps =
        f64(scalarOp(OpCode::ScalarMax,
                     scalarOp(OpCode::ScalarSub, *steps, i64(1)), i64(1)));
    int span =
        addOp(OpCode::ScalarSub, {ends[1], ends[0]}, ValueKind::F64, loc);
    int step =
        addOp(OpCode::Select,
              {scalarCmp(*steps, i64(1), GT),
               addOp(OpCode::ScalarDiv, {span, gaps}, ValueKind::F64, loc),
               constant(0, ValueKind::F64, loc)},
              ValueKind::F64, loc);
    int i = addOp(OpCode::Cast, {positions(*steps)}, ValueKind::Tensor, loc,
                  {*dtype}, 0, kDTypeOps[*dtype]);
    int up = op(OpCode::Add,
                {op(OpCode::Mul, {i, wrapped(step)}), wrapped(ends[0])});
    int down = op(OpCode::Add,
                  {op(OpCode::Mul, {op(OpCode::Sub, {wrapped(last), i}),
                                    wrapped(addOp(OpCode::ScalarNeg, {step},
                                                  ValueKind::F64, loc))}),
                   wrapped(ends[1])});
    int half = f64(scalarOp(OpCode::ScalarDiv, *steps, i64(2)));
    return addOp(OpCode::Cast,
                 {op(OpCode::Where, {cmp(i, wrapped(half), LT), up, down})},
                 ValueKind::Tensor, loc, {*dtype}, 0, kDTypeOps[*dtype]);
  }
  if (name == "einsum" && n >= 2) {
    // The plan eager follows (kiln/EinsumPlan.h): sums, permutes, and one
    // batched matmul of the flattened kept and contracted dims.
    std::optional<std::string> equation = stringArg(args[0]);
    if (!equation)
      return breakAt(args[0]->getExprLoc(),
                     "kiln::einsum with an equation that is not a string "
                     "literal");
    if (equation->find("...") != std::string::npos)
      return breakAt(args[0]->getExprLoc(),
                     "kiln::einsum with '...' (its dims depend on the "
                     "operands' ranks)");
    std::vector<int> ops;
    if (!tensorList(name, args[1], loc, ops))
      return std::nullopt;
    detail::EinsumPlan plan =
        detail::planEinsum(*equation, std::vector<int64_t>(ops.size(), -1));
    if (!plan.error.empty())
      return breakAt(loc,
                     "kiln::" + plan.error.substr(0) + " (an error in eager)");
    // Each operand has as many dims as its subscripts.
    std::string lhs = equation->substr(0, equation->find("->"));
    std::vector<int64_t> ranks(1, 0);
    for (char c : lhs) {
      if (c == ',')
        ranks.push_back(0);
      else if (std::isalpha(static_cast<unsigned char>(c)))
        ++ranks.back();
    }
    auto dim = [&](int v, int64_t d) {
      return addOp(OpCode::Dim, {v}, ValueKind::I64, loc, {d});
    };
    std::vector<int> t;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (GraphInput *in = inputOf(ops[i]))
        in->exactRank = ranks[i];
      int x = ops[i];
      const detail::EinsumOperandPlan &p = plan.operands[i];
      if (!p.sumDims.empty()) {
        std::vector<int64_t> ints = {0};
        ints.insert(ints.end(), p.sumDims.begin(), p.sumDims.end());
        x = addOp(OpCode::Sum, {x}, ValueKind::Tensor, loc, ints);
      }
      t.push_back(addOp(OpCode::Permute, {x}, ValueKind::Tensor, loc, p.perm));
    }
    if (t.size() == 1)
      return t[0];
    int64_t nb = plan.batch, nl = plan.leftKept, nc = plan.contracted,
            nr = plan.rightKept;
    int a = t[0], b = t[1];
    auto product = [&](int v, int64_t from, int64_t count) {
      int p = i64(1);
      for (int64_t d = 0; d < count; ++d)
        p = scalarOp(OpCode::ScalarMul, p, dim(v, from + d));
      return p;
    };
    for (int64_t d = 0; d < nc; ++d)
      check(scalarCmp(dim(a, nb + nl + d), dim(b, nb + d), EQ),
            "einsum: a contracted subscript has different sizes in the "
            "operands");
    int m = product(a, nb, nl), k = product(b, nb, nc),
        cols = product(b, nb + nc, nr);
    std::vector<int> aShape = {a}, bShape = {b};
    for (int64_t d = 0; d < nb; ++d) {
      aShape.push_back(dim(a, d));
      bShape.push_back(dim(b, d));
    }
    aShape.insert(aShape.end(), {m, k});
    bShape.insert(bShape.end(), {k, cols});
    int p = op(OpCode::Matmul,
               {addOp(OpCode::Reshape, aShape, ValueKind::Tensor, loc),
                addOp(OpCode::Reshape, bShape, ValueKind::Tensor, loc)});
    std::vector<int> outShape = {p};
    for (int64_t d = 0; d < nb; ++d)
      outShape.push_back(dim(p, d));
    for (int64_t d = 0; d < nl; ++d)
      outShape.push_back(dim(a, nb + d));
    for (int64_t d = 0; d < nr; ++d)
      outShape.push_back(dim(b, nb + nc + d));
    return addOp(OpCode::Permute,
                 {addOp(OpCode::Reshape, outShape, ValueKind::Tensor, loc)},
                 ValueKind::Tensor, loc, plan.outPerm);
  }
  if (name == "randint" && n >= 3) {
    // floor(rand(shape, seed, float64) * (high - low)) + low, as eager
    // composes it; randint(high, shape, seed) has low 0.
    bool withLow = !isa<InitListExpr>(stripArg(args[1])) &&
                   stripArg(args[1])->getType()->isIntegerType();
    unsigned first = withLow ? 1 : 0;
    std::optional<int> low = withLow ? integer(0) : i64(0);
    std::optional<int> high = low ? integer(first) : std::nullopt;
    if (!high)
      return std::nullopt;
    std::vector<int> ops;
    std::optional<int> seed = traceExpr(stripArg(args[first + 2]));
    if (!seed)
      return seed;
    if (kindOf(*seed) != ValueKind::I64)
      return breakAt(args[first + 2]->getExprLoc(),
                     "kiln::randint with a seed that is not an integer");
    ops.push_back(*seed);
    if (!traceIntList(args[first + 1], ops))
      return std::nullopt;
    std::optional<int64_t> dtype = constantArg(first + 3, /*i64=*/2, "dtype");
    if (!dtype)
      return std::nullopt;
    if (*dtype == 0)
      return breakAt(loc, "kiln::randint of bool (an error in eager)");
    check(scalarCmp(*high, *low, GT), "randint: high must be greater than low");
    int u = addOp(OpCode::Random, ops, ValueKind::Tensor, loc, {0, 6});
    int span =
        addOp(OpCode::ScalarCast, {scalarOp(OpCode::ScalarSub, *high, *low)},
              ValueKind::F64, loc);
    int picked = op(OpCode::Add,
                    {op(OpCode::Floor, {op(OpCode::Mul, {u, wrapped(span)})}),
                     wrapped(*low)});
    return addOp(OpCode::Cast, {picked}, ValueKind::Tensor, loc, {*dtype}, 0,
                 kDTypeOps[*dtype]);
  }
  if (name == "conv_transpose2d" && n >= 2) {
    // As eager computes it (lib/Runtime/Ops/NN.cpp): x spread with stride
    // - 1 zeros between its pixels, padded by dilation * (k - 1) - padding
    // (cropped where negative), convolved with stride 1 by the weight
    // flipped, its in and out swapped within each group.
    std::optional<int> x = tensor(0), w = x ? tensor(1) : std::nullopt;
    if (!w)
      return std::nullopt;
    std::optional<int> bias;
    if (n > 2 && !isDefaultTensor(args[2]) && !(bias = tensor(2)))
      return std::nullopt;
    for (int v : {*x, *w})
      if (GraphInput *in = inputOf(v))
        in->exactRank = 4;
    if (bias)
      if (GraphInput *in = inputOf(*bias))
        in->exactRank = 1;
    // stride, padding, output_padding, groups, dilation: constants or host
    // integers, checked as eager checks them.
    static const char *const what[] = {"stride", "padding", "output_padding",
                                       "groups", "dilation"};
    std::vector<std::vector<int>> params;
    for (unsigned a = 3; a < 8; ++a) {
      int64_t byDefault = a == 3 || a >= 6 ? 1 : 0;
      std::vector<int> values;
      if (n > a && !traceIntList(args[a], values))
        return std::nullopt;
      if (values.empty())
        values.push_back(i64(byDefault));
      if (values.size() > (a == 6 ? 1u : 2u))
        return breakAt(args[a]->getExprLoc(),
                       "kiln::conv_transpose2d with more than " +
                           std::string(a == 6 ? "one " : "two ") + what[a - 3]);
      if (a != 6 && values.size() == 1)
        values.push_back(values[0]);
      for (int v : values) {
        std::optional<double> c = graph().constantValue(v);
        if (c && *c < static_cast<double>(byDefault))
          return breakAt(args[a]->getExprLoc(), "kiln::conv_transpose2d with " +
                                                    std::string(what[a - 3]) +
                                                    " below " +
                                                    std::to_string(byDefault) +
                                                    " (an error in eager)");
        check(scalarCmp(v, i64(byDefault), GE),
              std::string("conv_transpose2d: ") + what[a - 3] +
                  (byDefault ? " must be at least 1" : " must be at least 0"));
      }
      params.push_back(values);
    }
    const std::vector<int> &stride = params[0], &padding = params[1],
                           &extra = params[2], &dilation = params[4];
    int groups = params[3][0];
    auto dimOf = [&](int v, int64_t d) {
      return addOp(OpCode::Dim, {v}, ValueKind::I64, loc, {d});
    };
    auto mul = [&](int a, int b) { return scalarOp(OpCode::ScalarMul, a, b); };
    auto sub = [&](int a, int b) { return scalarOp(OpCode::ScalarSub, a, b); };
    auto atLeast0 = [&](int v) {
      return scalarOp(OpCode::ScalarMax, v, i64(0));
    };
    int channels = dimOf(*x, 1);
    check(both(scalarCmp(scalarOp(OpCode::ScalarRem, channels,
                                  scalarOp(OpCode::ScalarMax, groups, i64(1))),
                         i64(0), EQ),
               scalarCmp(dimOf(*w, 0), channels, EQ)),
          "conv_transpose2d: the channels, the weight and groups agree");
    for (int i = 0; i < 2; ++i)
      check(addOp(OpCode::ScalarOr,
                  {scalarCmp(extra[i], stride[i], LT),
                   scalarCmp(extra[i], dilation[i], LT)},
                  ValueKind::Bool, loc),
            "conv_transpose2d: output_padding must be smaller than either "
            "stride or dilation");
    // Zeros of y's shape with dim d of size `size`, in y's dtype.
    auto zerosAlong = [&](int y, int64_t d, int size, bool insert) {
      std::vector<int> sizes;
      for (int64_t k = 0; k < 4; ++k) {
        if (k == d && !insert) {
          sizes.push_back(size);
          continue;
        }
        sizes.push_back(dimOf(y, k));
        if (k == d)
          sizes.push_back(size);
      }
      return like(addOp(OpCode::Full, sizes, ValueKind::Tensor, loc, {5}, 0),
                  y);
    };
    int y = *x;
    for (int i = 0; i < 2; ++i) {
      int64_t d = 2 + i;
      std::optional<double> s = graph().constantValue(stride[i]);
      if (s && *s == 1)
        continue;
      int size = dimOf(y, d);
      int spread =
          addOp(OpCode::Cat,
                {addOp(OpCode::Unsqueeze, {y}, ValueKind::Tensor, loc, {d + 1}),
                 zerosAlong(y, d, sub(stride[i], i64(1)), true)},
                ValueKind::Tensor, loc, {d + 1});
      std::vector<int> merged = {spread};
      for (int64_t k = 0; k < 4; ++k)
        merged.push_back(k == d ? mul(size, stride[i]) : dimOf(y, k));
      int end = atLeast0(scalarOp(OpCode::ScalarAdd,
                                  mul(sub(size, i64(1)), stride[i]), i64(1)));
      y = addOp(
          OpCode::Slice,
          {addOp(OpCode::Reshape, merged, ValueKind::Tensor, loc), i64(0), end},
          ValueKind::Tensor, loc, {d, 1});
    }
    for (int i = 0; i < 2; ++i) {
      int64_t d = 2 + i;
      // before = dilation * (k - 1) - padding, after = before +
      // output_padding: zeros where positive, a crop where negative.
      int before = sub(mul(dilation[i], sub(dimOf(*w, d), i64(1))), padding[i]);
      int after = scalarOp(OpCode::ScalarAdd, before, extra[i]);
      int padded = addOp(OpCode::Cat,
                         {zerosAlong(y, d, atLeast0(before), false), y,
                          zerosAlong(y, d, atLeast0(after), false)},
                         ValueKind::Tensor, loc, {d});
      int start = atLeast0(sub(i64(0), before));
      int stop = sub(dimOf(padded, d), atLeast0(sub(i64(0), after)));
      y = addOp(OpCode::Slice,
                {padded, start, scalarOp(OpCode::ScalarMax, stop, start)},
                ValueKind::Tensor, loc, {d, 1});
    }
    // The weight flipped along kH and kW, then [g, C/g, O/g, kH, kW] with
    // in and out swapped, as [O, C/g, kH, kW].
    int wc = *w;
    for (int64_t d = 2; d < 4; ++d) {
      int k = dimOf(*w, d);
      wc = indexSelect(
          wc, d, op(OpCode::Sub, {wrapped(sub(k, i64(1))), positions(k)}));
    }
    int perGroup = scalarOp(OpCode::ScalarDiv, channels,
                            scalarOp(OpCode::ScalarMax, groups, i64(1)));
    int outPerGroup = dimOf(*w, 1), kh = dimOf(*w, 2), kw = dimOf(*w, 3);
    wc = addOp(OpCode::Reshape, {wc, groups, perGroup, outPerGroup, kh, kw},
               ValueKind::Tensor, loc);
    wc = addOp(OpCode::Transpose, {wc}, ValueKind::Tensor, loc, {1, 2});
    wc =
        addOp(OpCode::Reshape, {wc, mul(groups, outPerGroup), perGroup, kh, kw},
              ValueKind::Tensor, loc);
    // conv2d ints: sh, sw, ph, pw, dh, dw, groups (kRuntimeAttr: the next
    // scalar operand), has bias.
    std::vector<int> ops = {y, wc};
    if (bias)
      ops.push_back(*bias);
    std::vector<int64_t> ints = {1, 1, 0, 0};
    for (int v : {dilation[0], dilation[1], groups}) {
      std::optional<double> c = graph().constantValue(v);
      ints.push_back(c ? static_cast<int64_t>(*c) : kRuntimeAttr);
      if (!c)
        ops.push_back(v);
    }
    ints.push_back(bias ? 1 : 0);
    return addOp(OpCode::Conv2d, ops, ValueKind::Tensor, loc, ints);
  }
  if (name == "interpolate" && n >= 2) {
    // As eager resamples (lib/Runtime/Ops/Indexing.cpp): rows, then
    // columns, each an index_select at ATen's source positions (nearest's
    // in float as ATen computes them; bilinear's in double, between two
    // neighbours).
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    if (GraphInput *in = inputOf(*x))
      in->exactRank = 4;
    std::string mode = "nearest";
    if (n > 2) {
      std::optional<std::string> m = stringArg(args[2]);
      if (!m)
        return breakAt(args[2]->getExprLoc(),
                       "kiln::interpolate with a mode that is not a string "
                       "literal");
      mode = *m;
    }
    bool bilinear = mode == "bilinear";
    if (mode != "nearest" && !bilinear)
      return breakAt(loc, "kiln::interpolate with mode \"" + mode +
                              "\" (an error in eager)");
    bool alignCorners = false;
    if (n > 3) {
      std::optional<int> a = scalar(3, absent);
      if (!absent) {
        std::optional<double> c = a ? graph().constantValue(*a) : std::nullopt;
        if (!c)
          return breakAt(args[3]->getExprLoc(),
                         "kiln::interpolate with an align_corners that is "
                         "not a constant");
        if (!bilinear)
          return breakAt(args[3]->getExprLoc(),
                         "kiln::interpolate with align_corners in nearest "
                         "mode (an error in eager)");
        alignCorners = *c != 0;
      }
    }
    auto f64 = [&](int v) {
      return addOp(OpCode::ScalarCast, {v}, ValueKind::F64, loc);
    };
    auto fdiv = [&](int a, int b) {
      return addOp(OpCode::ScalarDiv, {a, b}, ValueKind::F64, loc);
    };
    auto dimOf = [&](int v, int64_t d) {
      return addOp(OpCode::Dim, {v}, ValueKind::I64, loc, {d});
    };
    std::vector<int> out;
    std::optional<int> factor;
    if (stripArg(args[1])->getType()->isArithmeticType()) {
      factor = scalar(1, absent);
      if (!factor)
        return std::nullopt;
      factor = f64(*factor);
      check(addOp(OpCode::ScalarCmp,
                  {*factor, constant(0, ValueKind::F64, loc)}, ValueKind::Bool,
                  loc, {GT}),
            "interpolate: scale_factor must be positive");
      for (int64_t d = 2; d < 4; ++d)
        out.push_back(
            addOp(OpCode::ScalarCast,
                  {addOp(OpCode::ScalarMul, {f64(dimOf(*x, d)), *factor},
                         ValueKind::F64, loc)},
                  ValueKind::I64, loc));
    } else {
      if (!traceIntList(args[1], out))
        return std::nullopt;
      if (out.empty() || out.size() > 2)
        return breakAt(args[1]->getExprLoc(),
                       "kiln::interpolate with a size of " +
                           std::to_string(out.size()) +
                           " values (an error in eager)");
      if (out.size() == 1)
        out.push_back(out[0]);
    }
    for (int v : out)
      check(scalarCmp(v, i64(1), GE), "interpolate: size must be at least 1");
    for (int64_t d = 1; d < 4; ++d)
      check(scalarCmp(dimOf(*x, d), i64(0), GT),
            "interpolate: only the batch dim may be empty");
    int y = *x;
    for (int64_t d = 2; d < 4; ++d) {
      int size = out[d - 2], in = dimOf(*x, d);
      int last = wrapped(scalarOp(OpCode::ScalarSub, in, i64(1)));
      int scale = factor ? fdiv(constant(1, ValueKind::F64, loc), *factor)
                         : fdiv(f64(in), f64(size));
      if (!bilinear) {
        int at = op(OpCode::Floor,
                    {op(OpCode::Mul,
                        {addOp(OpCode::Cast, {positions(size)},
                               ValueKind::Tensor, loc, {5}, 0, kDTypeOps[5]),
                         wrapped(scale)})});
        at = addOp(OpCode::Cast, {at}, ValueKind::Tensor, loc, {2}, 0,
                   kDTypeOps[2]);
        y = indexSelect(y, d, op(OpCode::Minimum, {at, last}));
        continue;
      }
      if (alignCorners)
        scale = addOp(OpCode::Select,
                      {scalarCmp(size, i64(1), GT),
                       fdiv(f64(scalarOp(OpCode::ScalarSub, in, i64(1))),
                            f64(scalarOp(OpCode::ScalarSub, size, i64(1)))),
                       constant(0, ValueKind::F64, loc)},
                      ValueKind::F64, loc);
      int o = addOp(OpCode::Cast, {positions(size)}, ValueKind::Tensor, loc,
                    {6}, 0, kDTypeOps[6]);
      int src =
          alignCorners
              ? op(OpCode::Mul, {o, wrapped(scale)})
              : op(OpCode::Maximum,
                   {op(OpCode::Sub,
                       {op(OpCode::Mul,
                           {op(OpCode::Add, {o, number(0.5)}), wrapped(scale)}),
                        number(0.5)}),
                    number(0)});
      int below = addOp(OpCode::Cast, {op(OpCode::Floor, {src})},
                        ValueKind::Tensor, loc, {2}, 0, kDTypeOps[2]);
      int above = op(OpCode::Minimum,
                     {op(OpCode::Add, {below, wrapped(i64(1))}), last});
      int far =
          op(OpCode::Sub, {src, addOp(OpCode::Cast, {below}, ValueKind::Tensor,
                                      loc, {6}, 0, kDTypeOps[6])});
      if (d == 2) // [h, 1] against [N, C, h, W]
        far = addOp(OpCode::Unsqueeze, {far}, ValueKind::Tensor, loc, {1});
      y = op(OpCode::Add, {op(OpCode::Mul, {indexSelect(y, d, below),
                                            op(OpCode::Sub, {number(1), far})}),
                           op(OpCode::Mul, {indexSelect(y, d, above), far})});
    }
    return like(y, *x);
  }
  if ((name == "max" || name == "min") && n >= 1) {
    // The extremum of all (amax), or along a dim: the values gathered at
    // argmax's index, a (values, indices) tuple.
    bool largest = name == "max";
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    if (n == 1)
      return addOp(largest ? OpCode::Amax : OpCode::Amin, {*x},
                   ValueKind::Tensor, loc, {0});
    std::optional<int64_t> dim = constantArg(1, 0, "dim");
    std::optional<int64_t> keep =
        dim ? constantArg(2, 0, "keepdim") : std::nullopt;
    if (!keep)
      return std::nullopt;
    needsDim(*x, *dim);
    int index = addOp(largest ? OpCode::Argmax : OpCode::Argmin, {*x},
                      ValueKind::Tensor, loc, {1, *dim});
    int values =
        addOp(OpCode::Gather, {*x, index}, ValueKind::Tensor, loc, {*dim});
    if (!*keep) {
      values = addOp(OpCode::Squeeze, {values}, ValueKind::Tensor, loc, {*dim});
      index = addOp(OpCode::Squeeze, {index}, ValueKind::Tensor, loc, {*dim});
    }
    return makeRecord({values, index});
  }
  if ((name == "cumsum" || name == "cumprod") && (n == 2 || n == 3)) {
    auto [x, dim] = tensorAndDim();
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
                       "kiln::" + name +
                           " with a dtype that is not a constant");
      dtype = *c;
    }
    return addOp(name == "cumsum" ? OpCode::Cumsum : OpCode::Cumprod, {*x},
                 ValueKind::Tensor, loc, {*dim, dtype});
  }
  if (name == "topk" && n >= 2 && n <= 5) {
    // The indices, then the values as a gather of them: eager's values.
    // (Sorted whatever `sorted` says, as the runtime sorts.)
    std::optional<int> x = tensor(0);
    std::optional<int> k = x ? integer(1) : std::nullopt;
    std::optional<int64_t> dim = k ? constantArg(2, -1, "dim") : std::nullopt;
    std::optional<int64_t> largest =
        dim ? constantArg(3, 1, "largest") : std::nullopt;
    if (!largest)
      return std::nullopt;
    needsDim(*x, *dim);
    int index = addOp(OpCode::Topk, {*x, *k}, ValueKind::Tensor, loc,
                      {*dim, *largest != 0});
    int values =
        addOp(OpCode::Gather, {*x, index}, ValueKind::Tensor, loc, {*dim});
    return makeRecord({values, index});
  }
  if (name == "scatter_add" && n == 4) {
    auto [x, dim] = tensorAndDim();
    std::optional<int> index = x ? tensor(2) : std::nullopt;
    std::optional<int> src = index ? tensor(3) : std::nullopt;
    if (!src)
      return src;
    maskInput(*index, ElementType::I64);
    return addOp(OpCode::ScatterAdd, {*x, *index, *src}, ValueKind::Tensor, loc,
                 {*dim});
  }
  if ((name == "gather" || name == "index_select") && n == 3) {
    auto [x, dim] = tensorAndDim();
    std::optional<int> index = x ? tensor(2) : std::nullopt;
    if (!index)
      return index;
    maskInput(*index, ElementType::I64);
    if (name == "gather")
      return addOp(OpCode::Gather, {*x, *index}, ValueKind::Tensor, loc,
                   {*dim});
    if (GraphInput *in = inputOf(*index))
      in->exactRank = 1;
    return indexSelect(*x, *dim, *index);
  }
  if (name == "flip" && n == 2) {
    std::optional<int> x = tensor(0);
    std::vector<int64_t> dims;
    if (!x || !constantList(1, "dims", dims))
      return std::nullopt;
    std::set<int64_t> seen(dims.begin(), dims.end());
    if (seen.size() != dims.size() || seen.empty())
      return breakAt(loc, "kiln::flip with no dims or a dim given twice");
    int y = *x;
    for (int64_t d : dims) {
      needsDim(*x, d);
      int size = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {d});
      int last = scalarOp(OpCode::ScalarSub, size, i64(1));
      y = indexSelect(y, d, op(OpCode::Sub, {wrapped(last), positions(size)}));
    }
    return y;
  }
  if (name == "roll" && n >= 2) {
    std::optional<int> x = tensor(0);
    std::vector<int64_t> shifts, dims;
    if (!x || !constantList(1, "shifts", shifts) ||
        !constantList(2, "dims", dims))
      return std::nullopt;
    if (dims.empty() || dims.size() != shifts.size())
      return breakAt(loc, "kiln::roll without one dim per shift (the "
                          "flattened roll is not traced)");
    int y = *x;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t d = dims[i];
      needsDim(*x, d);
      // Element j comes from (j - shift) mod size.
      int size = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {d});
      int modulus = scalarOp(OpCode::ScalarMax, size, i64(1));
      int r = scalarOp(
          OpCode::ScalarRem,
          scalarAdd(scalarOp(OpCode::ScalarRem, i64(shifts[i]), modulus),
                    modulus),
          modulus);
      int from =
          op(OpCode::Add,
             {positions(size), wrapped(scalarOp(OpCode::ScalarSub, size, r))});
      int sizeT = wrapped(size);
      y = indexSelect(
          y, d,
          op(OpCode::Where,
             {cmp(from, sizeT, GE), op(OpCode::Sub, {from, sizeT}), from}));
    }
    return y;
  }
  if ((name == "repeat" || name == "tile") && n == 2) {
    // One frontend op: how the repeats meet the dims depends on the rank.
    std::optional<int> x = tensor(0);
    std::vector<int64_t> reps;
    if (!x || !constantList(1, "repeats", reps))
      return std::nullopt;
    for (int64_t r : reps)
      if (r < 0)
        return breakAt(loc, "kiln::" + name +
                                " with negative repeats (an "
                                "error in eager)");
    return addOp(OpCode::Repeat, {*x}, ValueKind::Tensor, loc, reps, 0,
                 name == "tile" ? "tile" : "");
  }
  if (name == "pad" && n >= 2) {
    std::optional<int> x = tensor(0);
    std::vector<int64_t> pads;
    if (!x || !constantList(1, "pads", pads))
      return std::nullopt;
    std::string mode = "constant";
    if (n > 2) {
      std::optional<std::string> m = stringArg(args[2]);
      if (!m)
        return breakAt(args[2]->getExprLoc(),
                       "kiln::pad with a mode that is not a literal");
      mode = *m;
    }
    if (pads.size() % 2 != 0 ||
        (mode != "constant" && mode != "reflect" && mode != "replicate"))
      return breakAt(loc, "kiln::pad with an odd number of pads or an "
                          "unknown mode (an error in eager)");
    int value = wrapped(i64(0));
    if (n > 3) {
      std::optional<int> v = scalar(3, absent);
      if (!v && !absent)
        return v;
      if (v)
        value = wrapped(*v);
    }
    int64_t pairs = static_cast<int64_t>(pads.size()) / 2;
    if (pairs > 0)
      needsDim(*x, -pairs);
    int y = *x;
    for (int64_t j = 0; j < pairs; ++j) {
      int64_t d = -(j + 1), before = pads[2 * j], after = pads[2 * j + 1];
      int size = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {d});
      int out = scalarAdd(size, i64(before + after));
      check(scalarCmp(out, i64(0), GE), "pad: a negative size");
      int from = op(OpCode::Sub, {positions(out), wrapped(i64(before))});
      int sizeT = wrapped(size);
      int last = wrapped(scalarOp(OpCode::ScalarSub, size, i64(1)));
      auto clamped = [&] {
        return op(OpCode::Maximum,
                  {op(OpCode::Minimum, {from, last}), wrapped(i64(0))});
      };
      if (mode == "constant") {
        int inside = op(OpCode::Mul,
                        {cmp(from, wrapped(i64(0)), GE), cmp(from, sizeT, LT)});
        for (int64_t t = 0; t < j; ++t)
          inside =
              addOp(OpCode::Unsqueeze, {inside}, ValueKind::Tensor, loc, {-1});
        y = like(
            op(OpCode::Where, {inside, indexSelect(y, d, clamped()), value}),
            *x);
      } else if (mode == "reflect") {
        check(both(both(scalarCmp(i64(before), i64(0), GE),
                        scalarCmp(i64(after), i64(0), GE)),
                   both(scalarCmp(i64(before), size, LT),
                        scalarCmp(i64(after), size, LT))),
              "pad: reflect padding of at least the size");
        int mirrored = op(OpCode::Abs, {from});
        int back = op(OpCode::Sub,
                      {op(OpCode::Mul, {last, wrapped(i64(2))}), mirrored});
        y = indexSelect(
            y, d,
            op(OpCode::Where, {cmp(mirrored, sizeT, GE), back, mirrored}));
      } else {
        y = indexSelect(y, d, clamped());
      }
    }
    return y;
  }
  if ((name == "leaky_relu" || name == "elu") && n >= 1) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    std::optional<int> k = scalar(1, absent);
    if (!k && !absent)
      return k;
    int factor = absent ? number(name == "elu" ? 1.0 : 0.01) : wrapped(*k);
    int below = name == "elu"
                    ? op(OpCode::Mul, {op(OpCode::Expm1, {*x}), factor})
                    : op(OpCode::Mul, {*x, factor});
    return op(OpCode::Where, {cmp(*x, number(0), GT), *x, below});
  }
  if (name == "clamp" && n >= 2) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    int y = *x;
    bool bounded = false;
    for (unsigned i = 1; i < 3; ++i) {
      std::optional<int> bound = scalar(i, absent);
      if (!bound && !absent)
        return bound;
      if (absent)
        continue;
      bounded = true;
      y = op(i == 1 ? OpCode::Maximum : OpCode::Minimum, {y, wrapped(*bound)});
    }
    if (!bounded)
      return breakAt(loc, "kiln::clamp without a bound (an error in eager)");
    return y;
  }
  if (name == "masked_fill" && n == 3) {
    std::optional<int> x = tensor(0), mask = x ? tensor(1) : std::nullopt;
    if (!mask)
      return mask;
    maskInput(*mask);
    std::optional<int> value = scalar(2, absent);
    if (!value)
      return value;
    int filled = like(op(OpCode::Where, {*mask, wrapped(*value), *x}), *x);
    // Eager refuses a mask that would make the result larger than x.
    auto same = [&](OpCode query) {
      return scalarCmp(addOp(query, {filled}, ValueKind::I64, loc),
                       addOp(query, {*x}, ValueKind::I64, loc), EQ);
    };
    check(both(same(OpCode::Rank), same(OpCode::Numel)),
          "masked_fill: the mask does not broadcast to the tensor's shape");
    return filled;
  }
  if ((name == "tril" || name == "triu") && n >= 1) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    std::optional<int64_t> diagonal = constantArg(1, 0, "diagonal");
    if (!diagonal)
      return std::nullopt;
    needsDim(*x, -2);
    return addOp(name == "tril" ? OpCode::Tril : OpCode::Triu, {*x},
                 ValueKind::Tensor, loc, {*diagonal});
  }
  if (name == "dropout" && n >= 1) {
    // The identity at inference; p's range is still checked, as eager does.
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    if (n > 2 && constantInt(args[2]).value_or(1) != 0)
      return breakAt(args[2]->getExprLoc(),
                     "kiln::dropout in training mode (a random mask) or "
                     "with a training flag known only at run time");
    if (n > 1) {
      std::optional<int> p = scalar(1, absent);
      if (!p)
        return p;
      int pf = kindOf(*p) == ValueKind::F64
                   ? *p
                   : addOp(OpCode::ScalarCast, {*p}, ValueKind::F64, loc);
      int zero = constant(0, ValueKind::F64, loc),
          one = constant(1, ValueKind::F64, loc);
      check(both(scalarCmp(pf, zero, GE), scalarCmp(pf, one, LE)),
            "dropout: probability has to be between 0 and 1");
    }
    return x;
  }
  if ((name == "narrow" || name == "select") &&
      n == (name == "narrow" ? 4u : 3u)) {
    // A slice [start, end) of dim, start counted from the end when
    // negative, the range checked as eager checks it.
    auto [x, dim] = tensorAndDim();
    if (!x)
      return std::nullopt;
    std::optional<int> start = integer(2);
    if (!start)
      return start;
    int size = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {*dim});
    int negative = scalarCmp(*start, i64(0), LT);
    int from =
        addOp(OpCode::Select, {negative, scalarAdd(*start, size), *start},
              ValueKind::I64, loc);
    int end;
    if (name == "narrow") {
      std::optional<int> length = integer(3);
      if (!length)
        return length;
      end = scalarAdd(from, *length);
      check(
          both(both(scalarCmp(from, i64(0), GE), scalarCmp(from, size, LE)),
               both(scalarCmp(*length, i64(0), GE), scalarCmp(end, size, LE))),
          "narrow: start or length out of range");
    } else {
      end = scalarAdd(from, i64(1));
      check(both(scalarCmp(from, i64(0), GE), scalarCmp(from, size, LT)),
            "select: index out of range");
    }
    int sliced = addOp(OpCode::Slice, {*x, from, end}, ValueKind::Tensor, loc,
                       {*dim, 1});
    if (name == "narrow")
      return sliced;
    return addOp(OpCode::Squeeze, {sliced}, ValueKind::Tensor, loc, {*dim});
  }
  if (name == "stack" && n >= 1) {
    std::vector<int> parts;
    if (!tensorList(name, args[0], loc, parts))
      return std::nullopt;
    std::optional<int64_t> dim = constantArg(1, 0, "dim");
    if (!dim)
      return std::nullopt;
    for (int &part : parts)
      part = addOp(OpCode::Unsqueeze, {part}, ValueKind::Tensor, loc, {*dim});
    return addOp(OpCode::Cat, parts, ValueKind::Tensor, loc, {*dim});
  }
  if ((name == "bmm" && n == 2) ||
      ((name == "addmm" || name == "baddbmm") && n >= 3)) {
    bool scaled = name != "bmm";
    std::vector<int> ops;
    for (unsigned i = 0; i < (scaled ? 3u : 2u); ++i) {
      std::optional<int> t = tensor(i);
      if (!t)
        return t;
      ops.push_back(*t);
    }
    unsigned first = scaled ? 1 : 0;
    int64_t rank = name == "addmm" ? 2 : 3;
    for (unsigned i = first; i < first + 2; ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->exactRank = rank;
    int product = op(OpCode::Matmul, {ops[first], ops[first + 1]});
    if (!scaled)
      return product;
    // beta and alpha must be constants: beta 0 ignores the input.
    double factors[2] = {1, 1};
    for (unsigned i = 3; i < 5 && i < n; ++i) {
      std::optional<double> c = constantFloat(stripArg(args[i]));
      if (!c)
        return breakAt(args[i]->getExprLoc(),
                       "kiln::" + name +
                           " with a beta or alpha that is not a "
                           "constant");
      factors[i - 3] = *c;
    }
    if (factors[1] != 1)
      product = op(OpCode::Mul, {product, number(factors[1])});
    if (factors[0] == 0)
      return product;
    int input = factors[0] == 1 ? ops[0]
                                : op(OpCode::Mul, {ops[0], number(factors[0])});
    return op(OpCode::Add, {input, product});
  }
  // The identity of size n by m, in a dtype (ints), as eager's.
  auto identity = [&](int rows, int cols, int64_t dtype) {
    auto range = [&](int size) {
      return op(OpCode::Arange, {i64(0), size, i64(1)});
    };
    int r =
        addOp(OpCode::Unsqueeze, {range(rows)}, ValueKind::Tensor, loc, {1});
    return addOp(OpCode::Cast, {cmp(r, range(cols), EQ)}, ValueKind::Tensor,
                 loc, {dtype});
  };
  if (name == "eye" && n >= 1) {
    std::optional<int> rows = integer(0);
    if (!rows)
      return rows;
    int cols = *rows;
    if (n > 1 && constantInt(args[1]) != std::optional<int64_t>(-1)) {
      std::optional<int> c = integer(1);
      if (!c)
        return c;
      cols = *c;
    }
    std::optional<int64_t> dtype = constantArg(2, /*f32=*/5, "dtype");
    if (!dtype)
      return std::nullopt;
    check(both(scalarCmp(*rows, i64(0), GE), scalarCmp(cols, i64(0), GE)),
          "eye: sizes must be non-negative");
    return identity(*rows, cols, *dtype);
  }
  if (name == "one_hot" && n == 2) {
    // The rows of the identity that the ids pick: embedding checks them.
    std::optional<int> ids = tensor(0);
    if (!ids)
      return ids;
    std::optional<int64_t> classes = constantInt(args[1]);
    if (classes && *classes == -1)
      return breakAt(args[1]->getExprLoc(),
                     "kiln::one_hot with num_classes -1 (the count depends "
                     "on the ids' values)");
    std::optional<int> c = integer(1);
    if (!c)
      return c;
    check(scalarCmp(*c, i64(0), GE),
          "one_hot: num_classes must be -1 or non-negative");
    return addOp(OpCode::Embedding, {*ids, identity(*c, *c, /*i64=*/2)},
                 ValueKind::Tensor, loc);
  }
  if (name == "batch_norm" && n >= 3) {
    // Channels (dim 1) last, where the [C] statistics broadcast, and back.
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    std::vector<int> stats;
    if (!channelTensors(1, 4, 3, stats))
      return std::nullopt;
    if (n > 5 && constantInt(args[5]).value_or(1) != 0)
      return breakAt(args[5]->getExprLoc(),
                     "kiln::batch_norm in training mode (batch statistics, "
                     "running statistics updated in place) or with a "
                     "training flag known only at run time");
    double eps = 1e-5;
    int epsValue = -1;
    if (n > 7) {
      if (std::optional<double> e = constantFloat(stripArg(args[7]))) {
        eps = *e;
      } else {
        std::optional<int> v = scalar(7, absent);
        if (!v)
          return v;
        epsValue = *v;
      }
    }
    needsDim(*x, 1);
    auto swap = [&](int t) {
      return addOp(OpCode::Transpose, {t}, ValueKind::Tensor, loc, {1, -1});
    };
    int variance = op(OpCode::Add, {stats[1], epsValue >= 0 ? wrapped(epsValue)
                                                            : number(eps)});
    int y = op(OpCode::Mul, {op(OpCode::Sub, {swap(*x), stats[0]}),
                             op(OpCode::Rsqrt, {variance})});
    if (stats.size() > 2 && stats[2] >= 0)
      y = op(OpCode::Mul, {y, stats[2]});
    if (stats.size() > 3 && stats[3] >= 0)
      y = op(OpCode::Add, {y, stats[3]});
    return like(swap(y), *x);
  }
  if (name == "lerp" && n == 3) {
    std::optional<int> start = tensor(0),
                       end = start ? tensor(1) : std::nullopt;
    if (!end)
      return end;
    std::optional<int> weight = scalar(2, absent);
    if (!weight)
      return weight;
    // From the nearer end, as ATen: chosen here when the weight is known.
    int diff = op(OpCode::Sub, {*end, *start});
    int w = *weight;
    if (kindOf(w) != ValueKind::F64)
      w = addOp(OpCode::ScalarCast, {w}, ValueKind::F64, loc);
    auto fromStart = [&] {
      return op(OpCode::Add, {*start, op(OpCode::Mul, {diff, wrapped(w)})});
    };
    auto fromEnd = [&] {
      int rest = addOp(OpCode::ScalarSub, {constant(1, ValueKind::F64, loc), w},
                       ValueKind::F64, loc);
      return op(OpCode::Sub, {*end, op(OpCode::Mul, {diff, wrapped(rest)})});
    };
    if (std::optional<double> c = graph().constantValue(w))
      return *c < 0.5 ? fromStart() : fromEnd();
    int nearStart =
        addOp(OpCode::ScalarCmp, {w, constant(0.5, ValueKind::F64, loc)},
              ValueKind::Bool, loc, {LT});
    return addOp(OpCode::Select, {nearStart, fromStart(), fromEnd()},
                 ValueKind::Tensor, loc);
  }
  if ((name == "isnan" || name == "isinf" || name == "isfinite" ||
       name == "logical_not") &&
      n == 1) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    if (name == "isnan")
      return cmp(*x, *x, NE);
    if (name == "logical_not")
      return cmp(*x, number(0), EQ);
    if (name == "isinf") // bools add as or
      return op(OpCode::Add,
                {cmp(*x, number(inf), EQ), cmp(*x, number(-inf), EQ)});
    return op(OpCode::Mul, // bools multiply as and
              {cmp(*x, *x, EQ), op(OpCode::Mul, {cmp(*x, number(inf), NE),
                                                 cmp(*x, number(-inf), NE)})});
  }
  if (name == "sign" && n == 1) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    return op(OpCode::Sub, {like(cmp(*x, number(0), GT), *x),
                            like(cmp(*x, number(0), LT), *x)});
  }
  // A tensor of x's shape and dtype holding `value`: a choice between two
  // equal values, made everywhere.
  auto filled = [&](int x, int value) {
    return like(op(OpCode::Where, {cmp(x, x, EQ), value, value}), x);
  };
  if ((name == "full_like" && n == 2) ||
      ((name == "zeros_like" || name == "ones_like" || name == "empty_like") &&
       n == 1)) {
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    int value;
    if (name == "full_like") {
      std::optional<int> v = scalar(1, absent);
      if (!v)
        return v;
      value = wrapped(*v);
    } else {
      value = number(name == "ones_like" ? 1 : 0);
    }
    return filled(*x, value);
  }
  // Reductions: dims at `at` and keepdim at `keepAt`.
  auto reductionArgs = [&](int x, unsigned at, unsigned keepAt,
                           std::vector<int64_t> &ints) {
    return reductionInts(name, x, n > at ? args[at] : nullptr,
                         n > keepAt ? args[keepAt] : nullptr, ints);
  };
  auto reduce = [&](OpCode code, int x, std::vector<int64_t> ints,
                    std::optional<bool> keep = std::nullopt) {
    if (keep)
      ints[0] = *keep;
    return addOp(code, {x}, ValueKind::Tensor, loc, ints);
  };
  std::vector<int64_t> ints;
  if ((name == "var" || name == "std") && n >= 1) {
    // One op of the dialect: ints {keepdim, dims...}; a correction known
    // at compile time in `number`, else the second operand.
    std::optional<int> x = tensor(0);
    if (!x || !reductionArgs(*x, 1, 3, ints))
      return std::nullopt;
    std::vector<int> operands = {*x};
    double correction = 1;
    if (n > 2) {
      if (std::optional<int64_t> c = constantInt(args[2])) {
        correction = static_cast<double>(*c);
      } else {
        std::optional<int> c2 = scalar(2, absent);
        if (!c2)
          return c2;
        operands.push_back(*c2);
      }
    }
    return addOp(name == "var" ? OpCode::Var : OpCode::Std, operands,
                 ValueKind::Tensor, loc, ints, correction);
  }
  if (name == "norm" && n >= 1) {
    std::optional<int> x = tensor(0);
    if (!x || !reductionArgs(*x, 2, 3, ints))
      return std::nullopt;
    double p = 2;
    if (n > 1) {
      std::optional<double> c = constantFloat(stripArg(args[1]));
      if (!c)
        return breakAt(args[1]->getExprLoc(),
                       "kiln::norm with a p that is not a constant");
      p = *c;
    }
    if (p == 2)
      return op(OpCode::Sqrt,
                {reduce(OpCode::Sum, op(OpCode::Mul, {*x, *x}), ints)});
    int magnitude = op(OpCode::Abs, {*x});
    if (p == 1)
      return reduce(OpCode::Sum, magnitude, ints);
    if (std::isinf(p))
      return reduce(p > 0 ? OpCode::Amax : OpCode::Amin, magnitude, ints);
    if (p == 0)
      return reduce(OpCode::Sum, like(cmp(*x, number(0), NE), *x), ints);
    int powered = op(OpCode::Pow, {magnitude, number(p)});
    return op(OpCode::Pow,
              {reduce(OpCode::Sum, powered, ints), number(1.0 / p)});
  }
  if ((name == "any" || name == "all") && n >= 1) {
    std::optional<int> x = tensor(0);
    if (!x || !reductionArgs(*x, 1, 2, ints))
      return std::nullopt;
    bool any = name == "any";
    int count = reduce(OpCode::Sum, cmp(*x, number(0), any ? NE : EQ), ints);
    return cmp(count, number(0), any ? GT : EQ);
  }
  if ((name == "logical_and" || name == "logical_or") && n == 2) {
    std::optional<int> a = tensor(0), b = a ? tensor(1) : std::nullopt;
    if (!b)
      return b;
    return op(name == "logical_and" ? OpCode::Mul : OpCode::Add,
              {cmp(*a, number(0), NE), cmp(*b, number(0), NE)});
  }
  return breakAt(loc, "kiln::" + name +
                          " with arguments the tracer does "
                          "not model");
}

bool Tracer::isAtenStyleMethod(const std::string &name) {
  if (isComposite(name))
    return true;
  std::optional<OpCode> code = opNamed(name);
  if (!code)
    return false;
  switch (opGroup(*code)) {
  case OpGroup::UnaryFloat:
  case OpGroup::Unary:
  case OpGroup::Reduction:
    return true;
  default:
    return *code == OpCode::Gelu || *code == OpCode::Softmax ||
           *code == OpCode::LogSoftmax || *code == OpCode::Matmul ||
           *code == OpCode::Maximum || *code == OpCode::Minimum;
  }
}

std::optional<int> Tracer::traceTensorMethod(const CXXMethodDecl *method,
                                             const CXXMemberCallExpr *call) {
  std::string name = method->getNameAsString();
  SourceLocation loc = call->getExprLoc();
  unsigned n = call->getNumArgs();
  if (name == "item" || name == "data" || name == "itemAsDouble")
    return breakAt(loc, "Tensor::" + name +
                            "() (a value that depends on tensor data)");
  // ATen-style methods (x.sum({-1}, true), x.exp(), x.matmul(w)) are the
  // free functions of the same name, the object their first argument.
  if (isAtenStyleMethod(name)) {
    std::vector<const Expr *> args = {call->getImplicitObjectArgument()};
    args.insert(args.end(), call->arguments().begin(), call->arguments().end());
    return traceKilnOp(name, args, loc);
  }
  std::optional<int> self = traceExpr(call->getImplicitObjectArgument());
  if (!self)
    return self;
  auto constArg = [&](unsigned i) -> std::optional<int64_t> {
    std::optional<int64_t> c = constantInt(call->getArg(i));
    if (!c)
      breakAt(call->getArg(i)->getExprLoc(),
              "Tensor::" + name +
                  " with a dim that is not a compile-time constant");
    return c;
  };
  // Methods named as ops are those ops (view is reshape, size a dim).
  std::optional<OpCode> named =
      opNamed(name == "view" ? opName(OpCode::Reshape) : name);
  if (name == "size" && n == 1) {
    std::optional<int64_t> d = constArg(0);
    if (!d)
      return std::nullopt;
    needsDim(*self, *d);
    return addOp(OpCode::Dim, {*self}, ValueKind::I64, loc, {*d});
  }
  if (name == "dim" && n == 0)
    return addOp(OpCode::Rank, {*self}, ValueKind::I64, loc);
  if (named == OpCode::Numel && n == 0)
    return addOp(OpCode::Numel, {*self}, ValueKind::I64, loc);
  if ((name == "reshape_as" || name == "view_as") && n == 1) {
    std::optional<int> other = traceExpr(call->getArg(0));
    if (!other)
      return other;
    return addOp(OpCode::ReshapeAs, {*self, asTensor(*other, loc)},
                 ValueKind::Tensor, loc);
  }
  if ((name == "contiguous" || name == "clone") && n == 0)
    return self; // graphs are pure: every result is a fresh tensor already
  // x.reshape({B, -1}); x.expand({B, -1, T, d}), where -1 keeps a size.
  if ((named == OpCode::Reshape || named == OpCode::Expand) && n == 1) {
    std::vector<int> sizes = {*self};
    std::vector<int> list;
    if (!traceIntList(call->getArg(0), list))
      return std::nullopt;
    sizes.insert(sizes.end(), list.begin(), list.end());
    return addOp(*named, sizes, ValueKind::Tensor, loc);
  }
  if (named == OpCode::Transpose && n == 2) {
    std::optional<int64_t> a = constArg(0), b = a ? constArg(1) : std::nullopt;
    if (!a || !b)
      return std::nullopt;
    needsDim(*self, *a);
    needsDim(*self, *b);
    return addOp(OpCode::Transpose, {*self}, ValueKind::Tensor, loc, {*a, *b});
  }
  if (named == OpCode::Permute && n == 1) {
    std::vector<int64_t> dims;
    if (!constantIntList(call->getArg(0), dims))
      return breakAt(loc, "Tensor::permute with dims that are not constants");
    if (GraphInput *in = inputOf(*self))
      in->exactRank = static_cast<int64_t>(dims.size());
    return addOp(OpCode::Permute, {*self}, ValueKind::Tensor, loc, dims);
  }
  if ((named == OpCode::Unsqueeze || named == OpCode::Squeeze) && n == 1) {
    std::optional<int64_t> d = constArg(0);
    if (!d)
      return std::nullopt;
    if (named == OpCode::Squeeze)
      needsDim(*self, *d);
    return addOp(*named, {*self}, ValueKind::Tensor, loc, {*d});
  }
  if (named == OpCode::Squeeze && n == 0)
    return breakAt(loc, "Tensor::squeeze() without a dim (the result's rank "
                        "depends on which sizes are 1 at run time; name the "
                        "dim)");
  if (named == OpCode::Flatten && n <= 2) {
    std::optional<int64_t> start = n > 0 ? constArg(0) : 0;
    std::optional<int64_t> end = n > 1 ? constArg(1) : -1;
    if (!start || !end)
      return std::nullopt;
    if (*start != 0)
      needsDim(*self, *start);
    if (*end != -1)
      needsDim(*self, *end);
    return addOp(OpCode::Flatten, {*self}, ValueKind::Tensor, loc,
                 {*start, *end});
  }
  if (named == OpCode::Slice && (n == 3 || n == 4)) {
    std::optional<int64_t> d = constArg(0);
    if (!d)
      return std::nullopt;
    needsDim(*self, *d);
    std::optional<int> start = traceExpr(call->getArg(1));
    if (!start)
      return start;
    std::optional<int> end = traceExpr(call->getArg(2));
    if (!end)
      return end;
    int64_t step = 1;
    if (n == 4) {
      std::optional<int64_t> s = constArg(3);
      if (!s)
        return std::nullopt;
      step = *s;
    }
    return addOp(OpCode::Slice, {*self, *start, *end}, ValueKind::Tensor, loc,
                 {*d, step});
  }
  if (name == "to" && n == 1) {
    QualType t = call->getArg(0)->getType().getCanonicalType();
    if (const auto *e = t->getAs<EnumType>())
      if (e->getDecl()->getName() == "DType") {
        std::optional<int64_t> d = constantInt(call->getArg(0));
        if (!d || *d < 0 || *d > 6)
          return breakAt(loc, "Tensor::to with a dtype that is not a constant");
        return addOp(OpCode::Cast, {*self}, ValueKind::Tensor, loc, {*d}, 0,
                     kDTypeOps[*d]);
      }
    return breakAt(loc, "Tensor::to(Device) (devices are not traced yet)");
  }
  return breakAt(loc, "Tensor::" + name + " is not traced yet");
}

} // namespace kiln::frontend
