//===- TraceOps.cpp - Calls of Kiln's ops and Tensor methods --------------===//
//
// The kiln:: functions and kiln::Tensor methods of DESIGN section 2a, each
// as one traced op named as the runtime names it. Dims, flags and eps must
// be compile-time constants (they are attributes of the kiln dialect's
// ops); sizes and slice bounds may be symbolic host scalars.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

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
const char *const kDTypeOps[] = {"bool", "i32", "i64", "f16", "bf16", "f32", "f64"};
} // namespace

void Tracer::needsDim(int value, int64_t dim) {
  if (GraphInput *in = inputOf(value))
    in->minRank = std::max(in->minRank, dim >= 0 ? dim + 1 : -dim);
}

std::optional<int> Tracer::traceKilnCall(const FunctionDecl *fn,
                                         const CallExpr *call) {
  std::string name = fn->getNameAsString();
  SourceLocation loc = call->getExprLoc();
  unsigned n = call->getNumArgs();
  auto arg = [&](unsigned i) { return call->getArg(i); };
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
      breakAt(arg(i)->getExprLoc(),
              std::string("kiln::") + name + " with a " + what +
                  " that is not a compile-time constant");
    return c;
  };
  if (name == "graph_break")
    return breakAt(loc, "kiln::graph_break()");
  if (name == "allclose")
    return breakAt(loc, "kiln::allclose (a value that depends on tensor data)");

  static const char *const unary[] = {"abs",     "exp",  "log",  "sqrt",
                                      "rsqrt",   "tanh", "sigmoid", "relu",
                                      "silu",    "neg"};
  for (const char *u : unary)
    if (name == u && n == 1) {
      std::optional<int> x = tensorArg(0);
      if (!x)
        return x;
      return addOp(name, {*x}, ValueKind::Tensor, loc);
    }
  if (name == "gelu") {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::string approximate = "none";
    if (n > 1) {
      std::optional<std::string> s = stringArg(arg(1));
      if (!s)
        return breakAt(arg(1)->getExprLoc(),
                       "kiln::gelu with an approximation that is not a literal");
      approximate = *s;
    }
    return addOp("gelu", {*x}, ValueKind::Tensor, loc, {}, 0, approximate);
  }
  static const char *const binary[] = {"add", "sub", "mul", "div", "pow",
                                       "maximum", "minimum"};
  for (const char *b : binary)
    if (name == b && n == 2) {
      std::optional<int> l = tensorArg(0);
      if (!l)
        return l;
      std::optional<int> r = tensorArg(1);
      if (!r)
        return r;
      if (name == "add" || name == "sub" || name == "mul" || name == "div")
        preferBiasRank({*l, *r});
      return addOp(name, {*l, *r}, ValueKind::Tensor, loc);
    }
  if (name == "where" && n == 3) {
    std::vector<int> ops;
    if (!tensorArgs(3, -1, ops))
      return std::nullopt;
    return addOp("where", ops, ValueKind::Tensor, loc);
  }
  if (name == "sum" || name == "mean" || name == "amax" || name == "amin") {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::vector<int64_t> dims;
    if (n > 1 && !constantIntList(arg(1), dims))
      return breakAt(arg(1)->getExprLoc(),
                     "kiln::" + name + " over dims that are not constants");
    int64_t keepdim = 0;
    if (n > 2) {
      std::optional<int64_t> k = constArg(2, "keepdim");
      if (!k)
        return std::nullopt;
      keepdim = *k;
    }
    for (int64_t d : dims)
      needsDim(*x, d);
    std::vector<int64_t> ints = {keepdim};
    ints.insert(ints.end(), dims.begin(), dims.end());
    return addOp(name, {*x}, ValueKind::Tensor, loc, ints);
  }
  if (name == "softmax" || name == "log_softmax") {
    std::optional<int> x = tensorArg(0);
    if (!x)
      return x;
    std::optional<int64_t> dim = constArg(1, "dim");
    if (!dim)
      return std::nullopt;
    needsDim(*x, *dim);
    return addOp(name, {*x}, ValueKind::Tensor, loc, {*dim});
  }
  if (name == "layer_norm" || name == "rms_norm") {
    bool ln = name == "layer_norm";
    std::vector<int> ops;
    if (!tensorArgs(ln ? 3 : 2, ln ? 2 : -1, ops))
      return std::nullopt;
    for (size_t i = 1; i < ops.size(); ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->preferredRank = 1;
    double eps = ln ? 1e-5 : 1e-6;
    unsigned epsArg = ln ? 3 : 2;
    if (n > epsArg) {
      std::optional<double> e = constantFloat(arg(epsArg));
      if (!e)
        return breakAt(arg(epsArg)->getExprLoc(),
                       "kiln::" + name + " with an eps that is not a constant");
      eps = *e;
    }
    return addOp(name, ops, ValueKind::Tensor, loc, {}, eps);
  }
  if (name == "matmul" || name == "linear" || name == "embedding" ||
      name == "cross_entropy") {
    std::vector<int> ops;
    if (!tensorArgs(n, name == "linear" ? 2 : -1, ops))
      return std::nullopt;
    auto prefer = [&](size_t i, int64_t rank, ElementType element) {
      if (i < ops.size())
        if (GraphInput *in = inputOf(ops[i])) {
          in->preferredRank = rank;
          in->preferredElement = element;
        }
    };
    if (name == "matmul" || name == "linear")
      prefer(1, 2, ElementType::F32);
    if (name == "linear")
      prefer(2, 1, ElementType::F32);
    if (name == "embedding") {
      prefer(0, 2, ElementType::I64);
      prefer(1, 2, ElementType::F32);
    }
    if (name == "cross_entropy") {
      prefer(0, 2, ElementType::F32);
      prefer(1, 1, ElementType::I64);
    }
    return addOp(name, ops, ValueKind::Tensor, loc);
  }
  if (name == "conv2d") {
    std::vector<int> ops;
    if (!tensorArgs(std::min(n, 3u), 2, ops))
      return std::nullopt;
    for (size_t i = 0; i < ops.size(); ++i)
      if (GraphInput *in = inputOf(ops[i]))
        in->exactRank = i < 2 ? 4 : 1;
    std::vector<int64_t> stride = {1}, padding = {0};
    if (n > 3) {
      stride.clear();
      if (!constantIntList(arg(3), stride))
        return breakAt(arg(3)->getExprLoc(), "kiln::conv2d with a stride that is not a constant");
    }
    if (n > 4) {
      padding.clear();
      if (!constantIntList(arg(4), padding))
        return breakAt(arg(4)->getExprLoc(), "kiln::conv2d with a padding that is not a constant");
    }
    if (stride.size() == 1)
      stride.push_back(stride[0]);
    if (padding.size() == 1)
      padding.push_back(padding[0]);
    return addOp("conv2d", ops, ValueKind::Tensor, loc,
                 {stride[0], stride[1], padding[0], padding[1],
                  static_cast<int64_t>(ops.size() > 2)});
  }
  if (name == "cat") {
    const Expr *list = stripTemporaries(arg(0));
    if (const auto *c = dyn_cast<CXXConstructExpr>(list))
      if (c->getNumArgs() >= 1)
        list = stripTemporaries(c->getArg(0));
    if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(list))
      list = stripTemporaries(il->getSubExpr());
    const auto *init = dyn_cast<InitListExpr>(list);
    if (!init)
      return breakAt(loc, "kiln::cat of a list that is not a braced list");
    std::vector<int> ops;
    for (const Expr *e : init->inits()) {
      std::optional<int> v = traceExpr(e);
      if (!v)
        return v;
      ops.push_back(asTensor(*v, e->getExprLoc()));
    }
    int64_t dim = 0;
    if (n > 1) {
      std::optional<int64_t> d = constArg(1, "dim");
      if (!d)
        return std::nullopt;
      dim = *d;
    }
    return addOp("cat", ops, ValueKind::Tensor, loc, {dim});
  }
  if (name == "zeros" || name == "ones" || name == "full") {
    std::vector<int> sizes;
    if (!traceIntList(arg(0), sizes))
      return std::nullopt;
    double value = name == "ones" ? 1 : 0;
    unsigned dtypeArg = name == "full" ? 2 : 1;
    if (name == "full") {
      std::optional<double> v = constantFloat(arg(1));
      if (!v)
        return breakAt(arg(1)->getExprLoc(), "kiln::full with a value that is not a constant");
      value = *v;
    }
    int64_t dtype = 5; // f32
    if (n > dtypeArg) {
      std::optional<int64_t> d = constArg(dtypeArg, "dtype");
      if (!d)
        return std::nullopt;
      dtype = *d;
    }
    return addOp("full", sizes, ValueKind::Tensor, loc, {dtype}, value);
  }
  if (name == "arange" && (n == 1 || n == 2 || n == 3)) {
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
    return addOp("arange", bounds, ValueKind::Tensor, loc);
  }
  return breakAt(loc, "kiln::" + name + " is not traced yet");
}

std::optional<int> Tracer::traceTensorMethod(const CXXMethodDecl *method,
                                             const CXXMemberCallExpr *call) {
  std::string name = method->getNameAsString();
  SourceLocation loc = call->getExprLoc();
  unsigned n = call->getNumArgs();
  if (name == "item" || name == "data" || name == "itemAsDouble")
    return breakAt(loc, "Tensor::" + name +
                            "() (a value that depends on tensor data)");
  std::optional<int> self = traceExpr(call->getImplicitObjectArgument());
  if (!self)
    return self;
  auto constArg = [&](unsigned i) -> std::optional<int64_t> {
    std::optional<int64_t> c = constantInt(call->getArg(i));
    if (!c)
      breakAt(call->getArg(i)->getExprLoc(),
              "Tensor::" + name + " with a dim that is not a compile-time constant");
    return c;
  };
  if (name == "size" && n == 1) {
    std::optional<int64_t> d = constArg(0);
    if (!d)
      return std::nullopt;
    needsDim(*self, *d);
    return addOp("dim", {*self}, ValueKind::I64, loc, {*d});
  }
  if (name == "dim" && n == 0)
    return addOp("rank", {*self}, ValueKind::I64, loc);
  if (name == "numel" && n == 0)
    return addOp("numel", {*self}, ValueKind::I64, loc);
  if ((name == "contiguous" || name == "clone") && n == 0)
    return self; // graphs are pure: every result is a fresh tensor already
  if ((name == "reshape" || name == "view") && n == 1) {
    std::vector<int> sizes = {*self};
    std::vector<int> list;
    if (!traceIntList(call->getArg(0), list))
      return std::nullopt;
    sizes.insert(sizes.end(), list.begin(), list.end());
    return addOp("reshape", sizes, ValueKind::Tensor, loc);
  }
  if (name == "transpose" && n == 2) {
    std::optional<int64_t> a = constArg(0), b = a ? constArg(1) : std::nullopt;
    if (!a || !b)
      return std::nullopt;
    needsDim(*self, *a);
    needsDim(*self, *b);
    return addOp("transpose", {*self}, ValueKind::Tensor, loc, {*a, *b});
  }
  if (name == "permute" && n == 1) {
    std::vector<int64_t> dims;
    if (!constantIntList(call->getArg(0), dims))
      return breakAt(loc, "Tensor::permute with dims that are not constants");
    if (GraphInput *in = inputOf(*self))
      in->exactRank = static_cast<int64_t>(dims.size());
    return addOp("permute", {*self}, ValueKind::Tensor, loc, dims);
  }
  if ((name == "unsqueeze" || name == "squeeze") && n == 1) {
    std::optional<int64_t> d = constArg(0);
    if (!d)
      return std::nullopt;
    if (name == "squeeze")
      needsDim(*self, *d);
    return addOp(name, {*self}, ValueKind::Tensor, loc, {*d});
  }
  if (name == "slice" && (n == 3 || n == 4)) {
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
    return addOp("slice", {*self, *start, *end}, ValueKind::Tensor, loc, {*d, step});
  }
  if (name == "to" && n == 1) {
    QualType t = call->getArg(0)->getType().getCanonicalType();
    if (const auto *e = t->getAs<EnumType>())
      if (e->getDecl()->getName() == "DType") {
        std::optional<int64_t> d = constantInt(call->getArg(0));
        if (!d || *d < 0 || *d > 6)
          return breakAt(loc, "Tensor::to with a dtype that is not a constant");
        return addOp("cast", {*self}, ValueKind::Tensor, loc, {*d}, 0,
                     kDTypeOps[*d]);
      }
    return breakAt(loc, "Tensor::to(Device) (devices are not traced yet)");
  }
  return breakAt(loc, "Tensor::" + name + " is not traced yet");
}

} // namespace kiln::frontend
