//===- TraceOps.cpp - Calls of Kiln's ops and Tensor methods --------------===//
//
// The kiln:: functions and kiln::Tensor methods of docs/runtime.md, each
// as one traced op named as the runtime names it. Dims, flags and eps must
// be compile-time constants (they are attributes of the kiln dialect's
// ops); sizes and slice bounds may be symbolic host scalars.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <cmath>
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
      if (static_cast<int>(i) == optional && isDefaultTensor(arg(i)))
        continue;
      std::optional<int> v = tensorArg(i);
      if (!v)
        return false;
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
    std::vector<int> ops;
    if (!tensorArgs(std::min(n, 3u), 2, ops))
      return std::nullopt;
    for (size_t i = 0; i < ops.size(); ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->exactRank = i < 2 ? 4 : 1;
    // stride and padding: one value for both dims or {h, w}; a value known
    // only at run time (a module's member) is an operand, range-checked by
    // the lowering as the runtime checks it.
    size_t tensors = ops.size();
    std::vector<int64_t> params;
    for (unsigned a = 3; a < 5; ++a) {
      int64_t byDefault = a == 3 ? 1 : 0, minimum = byDefault;
      std::vector<int> values;
      size_t opsBefore = graph().ops.size();
      if (n > a && !traceIntList(arg(a), values))
        return std::nullopt;
      bool allConstant = llvm::all_of(
          values, [&](int v) { return graph().constantValue(v).has_value(); });
      if (values.empty())
        values.push_back(
            constant(static_cast<double>(byDefault), ValueKind::I64, loc));
      if (values.size() > 2)
        return breakAt(arg(a)->getExprLoc(),
                       "kiln::conv2d with more than two " +
                           std::string(a == 3 ? "strides" : "paddings"));
      if (values.size() == 1)
        values.push_back(values[0]);
      for (int v : values) {
        std::optional<double> c = graph().constantValue(v);
        if (c && *c < static_cast<double>(minimum))
          return breakAt(
              arg(a)->getExprLoc(),
              "kiln::conv2d with a " +
                  std::string(a == 3 ? "stride below 1" : "negative padding"));
        params.push_back(c ? static_cast<int64_t>(*c) : kRuntimeAttr);
        if (!c)
          ops.push_back(v);
      }
      if (allConstant) // needed only as attributes
        graph().ops.resize(opsBefore);
    }
    params.push_back(static_cast<int64_t>(tensors > 2));
    return addOp(OpCode::Conv2d, ops, ValueKind::Tensor, loc, params);
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

void Tracer::maskInput(int mask) {
  // The input it views (mask.unsqueeze(1).unsqueeze(2)) too.
  for (const TraceOp *p = graph().producer(mask);
       p && (p->code == OpCode::Unsqueeze || p->code == OpCode::Squeeze ||
             p->code == OpCode::Reshape || p->code == OpCode::Expand ||
             p->code == OpCode::Transpose || p->code == OpCode::Permute ||
             p->code == OpCode::Slice);
       p = graph().producer(mask))
    mask = p->operands[0];
  if (GraphInput *in = inputOf(mask)) {
    in->preferredElement = ElementType::Bool;
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
  static const std::set<std::string> names = {
      "leaky_relu",  "elu",     "clamp",     "masked_fill", "lerp",
      "isnan",       "isinf",   "isfinite",  "logical_and", "logical_or",
      "logical_not", "sign",    "full_like", "zeros_like",  "ones_like",
      "empty_like",  "var",     "std",       "logsumexp",   "norm",
      "any",         "all",     "tril",      "triu",        "dropout",
      "bmm",         "addmm",   "baddbmm",   "narrow",      "select",
      "stack",       "one_hot", "eye",       "batch_norm"};
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
    auto range = [&](int64_t dim) {
      int size = addOp(OpCode::Dim, {*x}, ValueKind::I64, loc, {dim});
      return op(OpCode::Arange, {constant(0, ValueKind::I64, loc), size,
                                 constant(1, ValueKind::I64, loc)});
    };
    int rows =
        addOp(OpCode::Unsqueeze, {range(-2)}, ValueKind::Tensor, loc, {1});
    int offset = op(OpCode::Sub, {range(-1), rows});
    int keep = cmp(offset, wrapped(constant(*diagonal, ValueKind::I64, loc)),
                   name == "tril" ? LE : GE);
    return like(op(OpCode::Where,
                   {keep, *x, wrapped(constant(0, ValueKind::I64, loc))}),
                *x);
  }
  if (name == "dropout" && n >= 1) {
    // The identity at inference; p's range is still checked, as eager does.
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    if (n > 2 && constantInt(args[2]).value_or(1) != 0)
      return breakAt(args[2]->getExprLoc(),
                     "kiln::dropout in training mode (an error in eager) or "
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
    std::optional<int> x = tensor(0);
    if (!x)
      return x;
    std::optional<int64_t> dim = constantArg(1, 0, "dim");
    if (!dim)
      return std::nullopt;
    needsDim(*x, *dim);
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
    for (unsigned i = 1; i < 5 && i < n; ++i) {
      if (i >= 3 && isDefaultTensor(args[i])) {
        stats.push_back(-1);
        continue;
      }
      std::optional<int> t = tensor(i);
      if (!t)
        return t;
      if (GraphInput *in = inputOf(*t))
        in->preferredRank = 1;
      stats.push_back(*t);
    }
    if (n > 5 && constantInt(args[5]).value_or(1) != 0)
      return breakAt(args[5]->getExprLoc(),
                     "kiln::batch_norm in training mode (an error in eager) "
                     "or with a training flag known only at run time");
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
    std::optional<int> x = tensor(0);
    if (!x || !reductionArgs(*x, 1, 3, ints))
      return std::nullopt;
    std::optional<int> correction = scalar(2, absent);
    if (!correction && !absent)
      return correction;
    int c = absent ? number(1) : wrapped(*correction);
    int deviation = op(OpCode::Sub, {*x, reduce(OpCode::Mean, *x, ints, true)});
    int squares =
        reduce(OpCode::Sum, op(OpCode::Mul, {deviation, deviation}), ints);
    int count = reduce(OpCode::Sum, filled(*x, number(1)), ints);
    int variance = op(OpCode::Div, {squares, op(OpCode::Sub, {count, c})});
    return name == "var" ? variance : op(OpCode::Sqrt, {variance});
  }
  if (name == "logsumexp" && n >= 2) {
    std::optional<int> x = tensor(0);
    if (!x || !reductionArgs(*x, 1, 2, ints))
      return std::nullopt;
    auto finiteMax = [&](bool keep) {
      int m = reduce(OpCode::Amax, *x, ints, keep);
      int infinite =
          op(OpCode::Add, {cmp(m, number(inf), EQ), cmp(m, number(-inf), EQ)});
      return op(OpCode::Where, {infinite, number(0), m});
    };
    int shifted = op(OpCode::Exp, {op(OpCode::Sub, {*x, finiteMax(true)})});
    return op(OpCode::Add,
              {op(OpCode::Log, {reduce(OpCode::Sum, shifted, ints)}),
               finiteMax(ints[0] != 0)});
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
