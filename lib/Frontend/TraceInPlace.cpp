//===- TraceInPlace.cpp - In-place ops written as their functional ops ---===//
//
// `h.add_(b)`, `h += b`, `h.mul_(g).add_(1)`, `h.zero_()` on a tensor the
// graph made and no other variable sees: the functional op's result, given
// the tensor's shape (kiln.expand_as: the other operand broadcasts to it,
// never it to more) and dtype (a cast typing refuses where torch would
// not cast), bound to the variable instead, as torch's functionalization
// writes them. Where another binding may share the tensor's elements (a
// view of it, a copy of its handle, an input, a view it is), the op stays
// host code (a graph break), where it changes them all.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/Support/Path.h"

using namespace clang;
namespace ko = mlir::kiln;

namespace kiln::frontend {

namespace {

/// The functional op an in-place method or compound assignment computes,
/// or empty.
std::string functionalOf(llvm::StringRef name) {
  static const std::map<std::string, std::string, std::less<>> ops = {
      {"add_", "add"},         {"operator+=", "add"},   {"sub_", "sub"},
      {"operator-=", "sub"},   {"mul_", "mul"},         {"operator*=", "mul"},
      {"div_", "div"},         {"operator/=", "div"},   {"addcmul_", "addcmul"},
      {"addcdiv_", "addcdiv"}, {"zero_", "zeros_like"}, {"fill_", "full_like"},
      {"clamp_", "clamp"},     {"copy_", "copy"}};
  auto it = ops.find(name);
  return it == ops.end() ? "" : it->second;
}

/// The in-place call e is, if one: its name and the tensor it modifies.
std::optional<std::pair<std::string, const Expr *>> inPlaceCall(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *call = dyn_cast<CXXMemberCallExpr>(e))
    if (const CXXMethodDecl *m = call->getMethodDecl();
        m && isTensorRecord(m->getParent()) &&
        !functionalOf(m->getNameAsString()).empty())
      return std::make_pair(m->getNameAsString(),
                            call->getImplicitObjectArgument());
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(e))
    if (const auto *fn = op->getDirectCallee();
        fn && inNamespace(fn, "kiln") && op->getNumArgs() == 2 &&
        !functionalOf(fn->getNameAsString()).empty())
      return std::make_pair(fn->getNameAsString(), op->getArg(0));
  return std::nullopt;
}

} // namespace

bool isInPlaceCall(const Expr *e) { return inPlaceCall(e).has_value(); }

std::optional<int> Tracer::traceInPlace(const Expr *call,
                                        llvm::ArrayRef<const Expr *> args,
                                        SourceLocation loc) {
  auto [name, object] = *inPlaceCall(call);
  std::string what = "Tensor::" + name;
  // The variable it modifies, under any in-place calls on it
  // (`h.mul_(g).add_(1)`), which run first.
  const Expr *target = object->IgnoreParenImpCasts();
  while (std::optional<std::pair<std::string, const Expr *>> inner =
             inPlaceCall(target))
    target = inner->second->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(target);
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !isTensorType(var->getType().getNonReferenceType()))
    return breakAt(loc, what + " on something other than a tensor variable");
  // (Its value: the variable's after the inner calls rebound it.)
  std::optional<int> self = traceExpr(object);
  if (!self)
    return self;
  for (const FrameState &f : frames_)
    if (f.aliases.count(var))
      return breakAt(loc, what + " on a reference parameter ('" +
                              var->getNameAsString() +
                              "' names the caller's tensor)");
  // The tensor must be one the graph made (not an input, not a view: a
  // view's base would change too, an expanded one holds an element many
  // times), which no other binding holds.
  mlir::Value tensor = val(*self);
  llvm::SmallPtrSet<mlir::Value, 4> bases;
  aliasBases(tensor, bases);
  if (bases.size() != 1 || *bases.begin() != tensor ||
      llvm::isa<mlir::BlockArgument>(tensor))
    return breakAt(loc, what + " on '" + var->getNameAsString() +
                            "', an input or a view (its elements are "
                            "another tensor's too)");
  std::function<bool(int)> shares = [&](int v) {
    if (isRecordValue(v))
      return llvm::any_of(fieldsOf(v), shares);
    if (v < 0 || kindOf(v) != ValueKind::Tensor || !val(v))
      return false;
    llvm::SmallPtrSet<mlir::Value, 4> of;
    aliasBases(val(v), of);
    return of.contains(tensor);
  };
  std::string sharer; // the first other binding that holds it
  auto check = [&](const std::string &who, int v) {
    if (sharer.empty() && shares(v))
      sharer = who;
  };
  auto checkDecl = [&](const ValueDecl *d, int v) {
    if (d != var)
      check("'" + d->getNameAsString() + "'", v);
  };
  for (const FrameState &f : frames_) {
    for (const auto &[d, v] : f.locals)
      checkDecl(d, v);
    for (const auto &[d, list] : f.lists)
      for (int v : list)
        checkDecl(d, v);
    for (const auto &[lambda, copies] : f.lambdaCopies)
      for (const auto &[d, v] : copies)
        check("a lambda's copy of '" + d->getNameAsString() + "'", v);
    if (f.returnValue)
      check("a returned value", *f.returnValue);
  }
  for (const auto &[d, v] : segment_->env.get())
    checkDecl(d, v);
  for (const auto &[d, list] : segment_->lists)
    for (int v : list)
      checkDecl(d, v);
  for (const auto &[lambda, copies] : segment_->lambdaCopies)
    for (const auto &[d, v] : copies)
      check("a lambda's copy of '" + d->getNameAsString() + "'", v);
  for (const auto &[member, v] : segment_->members)
    check("'" + member + "'", v);
  for (const std::vector<int> &fields : segment_->records)
    for (int v : fields)
      check("a struct's field", v);
  for (const GraphOutput &out : graph().outputs)
    check("an output", out.value);
  if (!sharer.empty())
    return breakAt(loc, what + " on '" + var->getNameAsString() +
                            "', whose elements " + sharer +
                            " shares (it would change too)");

  // The functional op, on the variable as it is now.
  std::string functional = functionalOf(name);
  std::vector<const Expr *> operands{ref};
  operands.insert(operands.end(), args.begin(), args.end());
  std::optional<int> result;
  auto tensorArg = [&](size_t i) -> std::optional<int> {
    std::optional<int> v = traceExpr(stripArg(args[i]));
    if (!v)
      return v;
    return asTensor(*v, args[i]->getExprLoc());
  };
  if (functional == "add" || functional == "sub") {
    // self + other * alpha (alpha 1: self + other), as the runtime's.
    std::optional<int> other = tensorArg(0);
    if (!other)
      return other;
    if (args.size() > 1) {
      std::optional<double> alpha = constantFloat(stripArg(args[1]));
      if (!alpha || *alpha != 1) {
        std::optional<int> scale = tensorArg(1);
        if (!scale)
          return scale;
        other = apply<ko::MulOp>(loc, *other, *scale);
      }
    }
    result = functional == "add" ? apply<ko::AddOp>(loc, *self, *other)
                                 : apply<ko::SubOp>(loc, *self, *other);
  } else if (functional == "mul" || functional == "div") {
    std::optional<int> other = tensorArg(0);
    if (!other)
      return other;
    result = functional == "mul" ? apply<ko::MulOp>(loc, *self, *other)
                                 : apply<ko::DivOp>(loc, *self, *other);
  } else if (functional == "addcmul" || functional == "addcdiv") {
    // self + t1 * t2 * value (t1 / t2 for addcdiv), as the runtime's.
    std::optional<int> t1 = tensorArg(0);
    std::optional<int> t2 = t1 ? tensorArg(1) : std::nullopt;
    if (!t2)
      return std::nullopt;
    int term = functional == "addcmul" ? apply<ko::MulOp>(loc, *t1, *t2)
                                       : apply<ko::DivOp>(loc, *t1, *t2);
    if (args.size() > 2) {
      std::optional<int> value = tensorArg(2);
      if (!value)
        return value;
      term = apply<ko::MulOp>(loc, term, *value);
    }
    result = apply<ko::AddOp>(loc, *self, term);
  } else if (functional == "copy") {
    result = tensorArg(0);
  } else {
    result = traceKilnOp(functional, operands, loc);
  }
  if (!result)
    return result;
  // The tensor's shape and dtype: what the other operand does not
  // broadcast to, or a dtype torch would not cast to, fails the call (the
  // eager op then raises) or typing.
  int shaped = *result;
  if (functional != "zeros_like" && functional != "full_like")
    shaped = apply<ko::ExpandAsOp>(loc, *result, *self);
  mlir::OpBuilder b = bodyBuilder();
  auto cast =
      buildOpen<ko::CastLikeOp>(b, opLoc(loc, what), val(shaped), tensor);
  cast->setAttr(kConversion, b.getUnitAttr());
  cast->setAttr(kInPlaceResult, b.getUnitAttr());
  if (functional != "copy" && functional != "full_like")
    cast->setAttr(kInPlaceCast, b.getUnitAttr());
  int updated = number(cast.getResult());
  if (!assignTo(ref, updated, loc, frames_.size() - 1))
    return std::nullopt;
  if (graph().inPlace.empty()) {
    SourcePos pos = posOf(loc);
    graph().inPlace =
        what + " at " + llvm::sys::path::filename(pos.file).str() + ":" +
        std::to_string(pos.line) + ":" + std::to_string(pos.column);
  }
  return updated;
}

} // namespace kiln::frontend
