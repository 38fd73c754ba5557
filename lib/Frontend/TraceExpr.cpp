//===- TraceExpr.cpp - Expressions, Kiln's ops and host scalars -----------===//
//
// Tensor expressions become ops named as the runtime names them; shape
// queries and arithmetic on host scalars become scalar ops (symbolic values,
// not breaks); reads of variables and members defined outside the segment
// become graph inputs, spelled as the stitched code will name them.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>

using namespace clang;

namespace kiln::frontend {

//===----------------------------------------------------------------------===//
// Graph building helpers
//===----------------------------------------------------------------------===//

int Tracer::addInput(const std::string &expr, ValueKind kind,
                     const ValueDecl *decl) {
  auto it = segment_->inputsByExpr.find(expr);
  if (it != segment_->inputsByExpr.end())
    return it->second;
  int v = graph().addValue(kind);
  GraphInput in;
  in.value = v;
  in.expr = expr;
  auto evidence = decl ? evidence_.find(decl) : evidence_.end();
  if (auto stated = decl ? statedParams_.find(decl) : statedParams_.end();
      stated != statedParams_.end()) {
    in.statedRank = stated->second.rank;
    in.statedElement = stated->second.element;
    in.statedRecorded = stated->second.recorded;
  }
  if (evidence != evidence_.end()) {
    in.sourceFromCallSite = isa<ParmVarDecl>(decl);
    in.sourceUndefined = evidence->second.undefined;
    if (evidence->second.ranks.size() == 1)
      in.sourceRank = *evidence->second.ranks.begin();
    if (evidence->second.elements.size() == 1)
      in.sourceElement = *evidence->second.elements.begin();
    if (evidence->second.ranks.size() > 1)
      in.sourceRanks.assign(evidence->second.ranks.begin(),
                            evidence->second.ranks.end());
    if (evidence->second.elements.size() > 1)
      in.sourceElements.assign(evidence->second.elements.begin(),
                               evidence->second.elements.end());
  }
  // A local host code initializes from values that earlier graphs
  // compute, with no one type in the source: typed again when those graphs
  // are (typeGraphs), from its initializer (exactly, when nothing else
  // sets it; as the likely type on entry to a loop that assigns it).
  const auto *local = dyn_cast_or_null<VarDecl>(decl);
  bool initialized = local && kind == ValueKind::Tensor &&
                     local->hasLocalStorage() && !isa<ParmVarDecl>(local) &&
                     local->getInit();
  in.onlyInitialized = initialized && onlyInitialized(local);
  if (const VarDecl *var = local;
      initialized && (in.sourceRank < 0 || !in.sourceElement)) {
    ASTContext *context = &context_;
    std::shared_ptr<const TypeEvidence> evidence = evidenceOwner_;
    in.typeFromEarlierGraphs = [context, evidence,
                                var](const GraphInput::LeftTypes &leftIn) {
      return typeInitializerWith(
          *context, *evidence, var,
          [&](const VarDecl *read) { return leftIn(read->getNameAsString()); });
    };
  }
  graph().inputs.push_back(in);
  addBodyInput(graph(), graph().inputs.back());
  segment_->inputsByExpr[expr] = v;
  return v;
}

GraphInput *Tracer::inputOf(int value) {
  for (GraphInput &in : graph().inputs)
    if (in.value == value)
      return &in;
  return nullptr;
}

ValueKind Tracer::kindOf(int value) const {
  return segment_->segment.graph.values[value].kind;
}

std::optional<int64_t> Tracer::constantInt(const Expr *e) {
  Expr::EvalResult r;
  if (e->EvaluateAsRValue(r, context_) && r.Val.isInt())
    return r.Val.getInt().getSExtValue();
  return std::nullopt;
}

std::optional<double> Tracer::constantFloat(const Expr *e) {
  Expr::EvalResult r;
  if (!e->EvaluateAsRValue(r, context_))
    return std::nullopt;
  if (r.Val.isFloat())
    return r.Val.getFloat().convertToDouble();
  if (r.Val.isInt())
    return static_cast<double>(r.Val.getInt().getSExtValue());
  return std::nullopt;
}

const Expr *stripTemporaries(const Expr *e) {
  while (true) {
    // Parentheses may hold implicit nodes again: (a * b) binds a temporary.
    if (const Expr *inner = e->IgnoreImplicit()->IgnoreParens(); inner != e) {
      e = inner;
      continue;
    }
    if (const auto *d = dyn_cast<CXXDefaultArgExpr>(e)) {
      e = d->getExpr();
      continue;
    }
    if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = m->getSubExpr();
      continue;
    }
    return e;
  }
}

const Expr *stripArg(const Expr *e) {
  while (true) {
    e = stripTemporaries(e);
    if (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
      if (c->getNumArgs() == 1 &&
          !isa<CXXStdInitializerListExpr>(c->getArg(0))) {
        e = c->getArg(0);
        continue;
      }
    }
    if (const auto *f = dyn_cast<CXXFunctionalCastExpr>(e)) {
      if (!f->getType()->isArithmeticType()) {
        e = f->getSubExpr();
        continue;
      }
    }
    const Expr *stripped = stripTemporaries(e);
    if (stripped != e) {
      e = stripped;
      continue;
    }
    return e;
  }
}

bool inNamespace(const Decl *d, llvm::StringRef name) {
  const DeclContext *ctx = d->getDeclContext();
  while (ctx && !isa<NamespaceDecl>(ctx))
    ctx = ctx->getParent();
  // Through inline namespaces and extern "C++" blocks to the top.
  while (ctx && isa<NamespaceDecl>(ctx) && cast<NamespaceDecl>(ctx)->isInline())
    ctx = ctx->getParent();
  const auto *ns = dyn_cast_or_null<NamespaceDecl>(ctx);
  return ns && ns->getName() == name &&
         ns->getParent()->getRedeclContext()->isTranslationUnit();
}

namespace {
/// The host function a <cmath> or <algorithm> function is (std::sqrt,
/// sqrtf and fabs too), if it is one.
std::optional<Tracer::HostMath> stdMathFunction(const FunctionDecl *fn) {
  if (!fn->getIdentifier())
    return std::nullopt;
  if (!inNamespace(fn, "std") && !fn->getDeclContext()->isTranslationUnit() &&
      !fn->getDeclContext()->isExternCContext())
    return std::nullopt;
  using M = Tracer::HostMath;
  static const std::map<std::string, M> functions = {
      {"sqrt", M::Sqrt}, {"sqrtf", M::Sqrt}, {"exp", M::Exp},
      {"expf", M::Exp},  {"log", M::Log},    {"logf", M::Log},
      {"tanh", M::Tanh}, {"pow", M::Pow},    {"abs", M::Abs},
      {"fabs", M::Abs},  {"min", M::Min},    {"max", M::Max}};
  auto it = functions.find(fn->getName().str());
  if (it == functions.end())
    return std::nullopt;
  return it->second;
}
} // namespace

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

std::optional<int> Tracer::traceExpr(const Expr *e) {
  e = e->IgnoreParens();
  // A scalar the compiler can evaluate (-INFINITY, a constexpr, a
  // numeric_limits value) is a constant of the graph.
  if (!isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr>(e) &&
      !e->isValueDependent() && e->getType()->isArithmeticType()) {
    Expr::EvalResult r;
    if (e->EvaluateAsRValue(r, context_) && !r.HasSideEffects) {
      std::optional<ValueKind> kind = valueKindOf(e->getType());
      if (kind && r.Val.isFloat())
        return constant(r.Val.getFloat().convertToDouble(), *kind,
                        e->getExprLoc());
      if (kind && r.Val.isInt())
        return constant(static_cast<double>(r.Val.getInt().getSExtValue()),
                        *kind, e->getExprLoc());
    }
  }
  if (const auto *c = dyn_cast<ExprWithCleanups>(e))
    return traceExpr(c->getSubExpr());
  if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e))
    return traceExpr(m->getSubExpr());
  if (const auto *b = dyn_cast<CXXBindTemporaryExpr>(e))
    return traceExpr(b->getSubExpr());
  if (const auto *d = dyn_cast<CXXDefaultArgExpr>(e))
    return traceExpr(d->getExpr());
  if (const auto *cast = dyn_cast<ImplicitCastExpr>(e)) {
    std::optional<int> v = traceExpr(cast->getSubExpr());
    if (!v)
      return v;
    std::optional<ValueKind> to = valueKindOf(cast->getType());
    if (to && *to != ValueKind::Tensor && kindOf(*v) != ValueKind::Tensor &&
        kindOf(*v) != *to)
      return scalarCast(*v, *to, cast->getExprLoc());
    return v;
  }
  if (const auto *cast = dyn_cast<ExplicitCastExpr>(e)) {
    // (void)width; marks a value unused: nothing to trace unless
    // evaluating it does something.
    if (cast->getType()->isVoidType() &&
        !cast->getSubExpr()->HasSideEffects(context_))
      return -2;
    std::optional<int> v = traceExpr(cast->getSubExpr());
    if (!v)
      return v;
    if (cast->getType()->isVoidType())
      return -2;
    std::optional<ValueKind> to = valueKindOf(cast->getType());
    if (!to)
      return breakAt(e->getExprLoc(),
                     "a cast to a type the tracer does not model");
    if (*to != ValueKind::Tensor && kindOf(*v) != *to)
      return scalarCast(*v, *to, cast->getExprLoc());
    return v;
  }
  if (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
    // Copies and moves of a Tensor, or a kiln::Scalar from a number.
    if (c->getNumArgs() == 1)
      return traceExpr(c->getArg(0));
    return breakAt(e->getExprLoc(), "a construction the tracer does not model");
  }
  if (const auto *lit = dyn_cast<IntegerLiteral>(e))
    return constant(static_cast<double>(lit->getValue().getSExtValue()),
                    ValueKind::I64, e->getExprLoc());
  if (const auto *lit = dyn_cast<FloatingLiteral>(e)) {
    std::optional<ValueKind> kind = valueKindOf(lit->getType());
    return constant(lit->getValueAsApproximateDouble(),
                    kind ? *kind : ValueKind::F64, e->getExprLoc());
  }
  if (const auto *lit = dyn_cast<CXXBoolLiteralExpr>(e))
    return constant(lit->getValue() ? 1 : 0, ValueKind::Bool, e->getExprLoc());
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    return traceDeclRef(ref->getDecl(), e);
  if (const auto *member = dyn_cast<MemberExpr>(e))
    return traceMember(member);
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(e))
    return traceOperator(op);
  if (const auto *call = dyn_cast<CallExpr>(e))
    return traceCall(call);
  if (const auto *op = dyn_cast<BinaryOperator>(e))
    return traceScalarBinary(op);
  if (const auto *op = dyn_cast<UnaryOperator>(e)) {
    std::optional<int> v = traceExpr(op->getSubExpr());
    if (!v)
      return v;
    if (op->getOpcode() == UO_Plus)
      return v;
    if (op->getOpcode() == UO_Minus && kindOf(*v) != ValueKind::Tensor)
      return hostNeg(*v, op->getExprLoc());
    if (op->getOpcode() == UO_LNot && kindOf(*v) != ValueKind::Tensor)
      return hostNot(*v, op->getExprLoc());
    return breakAt(op->getExprLoc(),
                   "a unary operator the tracer does not model");
  }
  if (const auto *cond = dyn_cast<ConditionalOperator>(e))
    return traceConditional(cond);
  if (isa<LambdaExpr>(e))
    return breakAt(e->getExprLoc(), "a lambda expression");
  if (isa<CXXThrowExpr>(e))
    return breakAt(e->getExprLoc(), "exceptions");
  return breakAt(e->getExprLoc(), std::string("an expression the tracer does "
                                              "not model (") +
                                      e->getStmtClassName() + ")");
}

std::optional<int> Tracer::traceInFrame(const Expr *e, size_t frame) {
  std::vector<FrameState> inner(
      std::make_move_iterator(frames_.begin() + frame + 1),
      std::make_move_iterator(frames_.end()));
  frames_.resize(frame + 1);
  std::optional<int> v = traceExpr(e);
  frames_.insert(frames_.end(), std::make_move_iterator(inner.begin()),
                 std::make_move_iterator(inner.end()));
  return v;
}

std::vector<int> *Tracer::listOf(const Expr *e) {
  const auto *ref = dyn_cast<DeclRefExpr>(stripTemporaries(e));
  if (!ref)
    return nullptr;
  return boundIn(&FrameState::lists, &SegmentState::lists, ref->getDecl(),
                 frames_.size() - 1);
}

std::optional<int> Tracer::traceListMethod(std::vector<int> &list,
                                           const CXXMethodDecl *method,
                                           const CXXMemberCallExpr *call) {
  std::string name = method->getNameAsString();
  SourceLocation loc = call->getExprLoc();
  if ((name == "push_back" || name == "emplace_back") &&
      call->getNumArgs() == 1) {
    std::optional<int> v = traceExpr(stripArg(call->getArg(0)));
    if (!v)
      return v;
    if (*v < 0 || kindOf(*v) != ValueKind::Tensor)
      return breakAt(loc, "std::vector<Tensor>::" + name +
                              " of a value that is not a tensor");
    list.push_back(*v);
    return -2;
  }
  if (name == "size" && call->getNumArgs() == 0)
    return constant(static_cast<double>(list.size()), ValueKind::I64, loc);
  if ((name == "back" || name == "front") && !list.empty())
    return name == "back" ? list.back() : list.front();
  if (name == "reserve" || name == "clear") {
    if (name == "clear")
      list.clear();
    return -2;
  }
  return breakAt(loc, "std::vector<Tensor>::" + name + " (not modeled yet)");
}

std::optional<int> Tracer::traceConditional(const ConditionalOperator *e) {
  std::optional<int> cond = traceExpr(e->getCond());
  if (!cond)
    return cond;
  if (kindOf(*cond) == ValueKind::Tensor)
    return breakAt(e->getQuestionLoc(), "a conditional expression on a tensor");
  // Known at compile time: one arm. Otherwise both arms are traced (graphs
  // are pure) and the condition selects, as for an if on host values.
  if (std::optional<double> known = graph().constantValue(*cond))
    return traceExpr(*known != 0 ? e->getTrueExpr() : e->getFalseExpr());
  std::optional<int> t = traceExpr(e->getTrueExpr());
  if (!t)
    return t;
  std::optional<int> f = traceExpr(e->getFalseExpr());
  if (!f)
    return f;
  std::optional<ValueKind> kind = valueKindOf(e->getType());
  if (!kind || *t < 0 || *f < 0)
    return breakAt(e->getQuestionLoc(),
                   "a conditional expression of a type the tracer does not "
                   "model");
  for (int *arm : {&*t, &*f})
    if (*kind != ValueKind::Tensor && kindOf(*arm) != *kind)
      *arm = scalarCast(*arm, *kind, e->getExprLoc());
  if (kindOf(*t) != kindOf(*f))
    return breakAt(
        e->getQuestionLoc(),
        "a conditional expression whose arms are of different kinds");
  return select(scalarCast(*cond, ValueKind::Bool, e->getQuestionLoc()), *t, *f,
                e->getQuestionLoc());
}

bool Tracer::isOutParam(const FunctionDecl *fn, unsigned i) {
  if (i >= fn->getNumParams())
    return false;
  QualType type = fn->getParamDecl(i)->getType();
  return type->isLValueReferenceType() &&
         !type->getPointeeType().isConstQualified() &&
         valueKindOf(type).has_value();
}

bool Tracer::isNamedParam(const FunctionDecl *fn, unsigned i) {
  if (i >= fn->getNumParams())
    return false;
  if (isOutParam(fn, i))
    return true;
  // What the graph does not model (a module, a container, a name for
  // logging), passed so that the callee cannot change it: read, or named,
  // only where the callee uses it.
  QualType type = fn->getParamDecl(i)->getType();
  if (valueKindOf(type))
    return false;
  return (type->isLValueReferenceType() &&
          type->getPointeeType().isConstQualified()) ||
         (type->isPointerType() && type->getPointeeType().isConstQualified());
}

std::optional<int> Tracer::traceDeclRef(const ValueDecl *decl, const Expr *e) {
  auto defined = [&](int v) -> std::optional<int> {
    if (v == kUndefinedTensor)
      return breakAt(e->getExprLoc(),
                     "a read of a tensor that is not defined here (declared "
                     "without a value)");
    return v;
  };
  if (int *v = boundIn(&FrameState::locals, &SegmentState::env, decl,
                       frames_.size() - 1))
    return defined(*v);
  // A reference parameter reads what its argument names, now.
  for (const FrameState &f : frames_)
    if (auto alias = f.aliases.find(decl); alias != f.aliases.end())
      return traceInFrame(alias->second.first, alias->second.second);
  // A structured binding of the root bound by an earlier segment: an input.
  if (const auto *b = dyn_cast<BindingDecl>(decl)) {
    std::optional<ValueKind> kind = valueKindOf(b->getType());
    const DeclContext *ctx = b->getDeclContext();
    while (ctx && !isa<FunctionDecl>(ctx))
      ctx = ctx->getParent();
    if (kind && ctx == root_->function)
      return addInput(b->getNameAsString(), *kind, b);
  }
  const auto *var = dyn_cast<VarDecl>(decl);
  if (!var)
    return breakAt(e->getExprLoc(), "a reference to '" +
                                        decl->getNameAsString() +
                                        "', which the tracer does not model");
  std::optional<ValueKind> kind = valueKindOf(var->getType());
  if (!kind)
    return breakAt(e->getExprLoc(), "a variable of type '" +
                                        var->getType().getAsString() +
                                        "', which the tracer does not model");
  // A constant known at compile time is a constant of the graph.
  if (*kind != ValueKind::Tensor && var->getType().isConstQualified())
    if (std::optional<double> c = constantFloat(e))
      return constant(*c, *kind, e->getExprLoc());
  // Variables of the root (parameters, locals computed by host code) and
  // globals enter the graph as inputs.
  if (var->isLocalVarDeclOrParm()) {
    const DeclContext *ctx = var->getDeclContext();
    while (ctx && !isa<FunctionDecl>(ctx))
      ctx = ctx->getParent();
    if (ctx != root_->function)
      return breakAt(e->getExprLoc(), "a variable of an enclosing function");
    return addInput(var->getNameAsString(), *kind, var);
  }
  return addInput(var->getQualifiedNameAsString(), *kind, var);
}

std::string Tracer::spell(const Expr *e, size_t frame) {
  e = e->IgnoreParenImpCasts();
  const std::string &thisObject = frames_[frame].thisPrefix;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl())) {
      if (!var->isLocalVarDeclOrParm())
        return var->getQualifiedNameAsString();
      // A reference parameter of an inlined call names its argument.
      auto alias = frames_[frame].aliases.find(var);
      if (alias != frames_[frame].aliases.end())
        return spell(alias->second.first, alias->second.second);
      // Another local of an inlined callee has no name at the root's level.
      const DeclContext *ctx = var->getDeclContext();
      while (ctx && !isa<FunctionDecl>(ctx))
        ctx = ctx->getParent();
      return ctx == root_->function ? var->getNameAsString() : "";
    }
  if (const auto *m = dyn_cast<MemberExpr>(e)) {
    if (!isa<FieldDecl>(m->getMemberDecl()))
      return "";
    const Expr *b = m->getBase()->IgnoreParenImpCasts();
    std::string base;
    if (m->isArrow())
      base = isa<CXXThisExpr>(b) ? thisObject : "(*" + spell(b, frame) + ")";
    else
      base = spell(b, frame);
    if (base.empty() || base == "(*)")
      return "";
    return (base == "(*this)" ? std::string("this->") : base + ".") +
           m->getMemberDecl()->getNameAsString();
  }
  // An element of a container or array at an index known here (a
  // constant, or an unrolled loop's counter): `layers[2]`.
  const Expr *base = nullptr, *index = nullptr;
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(e);
      op && op->getOperator() == OO_Subscript && op->getNumArgs() == 2) {
    base = op->getArg(0);
    index = op->getArg(1);
  } else if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) {
    base = sub->getBase();
    index = sub->getIdx();
  }
  if (base && index) {
    std::string object = spell(base, frame);
    std::optional<int64_t> i = constantInt(index);
    // The counter of an unrolled loop is a constant of the graph.
    if (const auto *ref = dyn_cast<DeclRefExpr>(index->IgnoreParenImpCasts());
        ref && !i) {
      int *v = boundIn(&FrameState::locals, &SegmentState::env, ref->getDecl(),
                       frame);
      if (v && *v >= 0)
        if (std::optional<double> c = graph().constantValue(*v))
          i = static_cast<int64_t>(*c);
    }
    if (object.empty())
      return "";
    if (i)
      return object + "[" + std::to_string(*i) + "]";
    // A host loop's counter, which the graph inside the loop body reads as
    // the stitched code can: `this->blocks[l]`, as long as the segment has
    // not changed it.
    const auto *ref = dyn_cast<DeclRefExpr>(index->IgnoreParenImpCasts());
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var || !var->getType()->isIntegerType() ||
        segment_->assigned.count(var))
      return "";
    std::string name = spell(index, frame);
    return name.empty() ? "" : object + "[" + name + "]";
  }
  return "";
}

std::optional<int> Tracer::traceMember(const MemberExpr *e) {
  bool handled = false;
  if (std::optional<int> v = traceRecordMember(e, handled); handled)
    return v;
  const auto *field = dyn_cast<FieldDecl>(e->getMemberDecl());
  if (!field)
    return breakAt(e->getExprLoc(), "a member the tracer does not model");
  std::optional<ValueKind> kind = valueKindOf(field->getType());
  if (!kind)
    return breakAt(e->getExprLoc(), "a member of type '" +
                                        field->getType().getAsString() +
                                        "', which the tracer does not model");
  std::string name = spell(e, frames_.size() - 1);
  if (name.empty())
    return breakAt(e->getExprLoc(),
                   "a member of an object the stitched code cannot name");
  // A member the segment assigned reads its new value.
  auto assigned = segment_->members.find(name);
  if (assigned != segment_->members.end())
    return assigned->second;
  return addInput(name, *kind, field);
}

std::optional<int> Tracer::traceScalarBinary(const BinaryOperator *op) {
  std::optional<int> l = traceExpr(op->getLHS());
  if (!l)
    return l;
  std::optional<int> r = traceExpr(op->getRHS());
  if (!r)
    return r;
  if (kindOf(*l) == ValueKind::Tensor || kindOf(*r) == ValueKind::Tensor)
    return breakAt(op->getExprLoc(), "an operator the tracer does not model");
  if (op->isComparisonOp()) {
    // Compared in the common type, as C++'s usual conversions do.
    auto rank = [](ValueKind k) {
      return k == ValueKind::F64   ? 3
             : k == ValueKind::F32 ? 2
             : k == ValueKind::I64 ? 1
                                   : 0;
    };
    ValueKind common =
        rank(kindOf(*l)) >= rank(kindOf(*r)) ? kindOf(*l) : kindOf(*r);
    if (common == ValueKind::Bool)
      common = ValueKind::I64;
    for (int *v : {&*l, &*r})
      *v = scalarCast(*v, common, op->getExprLoc());
    return hostBinary(op->getOpcode(), *l, *r, op->getExprLoc());
  }
  if (op->getOpcode() == BO_LAnd || op->getOpcode() == BO_LOr) {
    for (int *v : {&*l, &*r})
      *v = scalarCast(*v, ValueKind::Bool, op->getExprLoc());
    return hostBinary(op->getOpcode(), *l, *r, op->getExprLoc());
  }
  std::optional<ValueKind> kind = valueKindOf(op->getType());
  if (!kind)
    return breakAt(op->getExprLoc(),
                   "an operator on types the tracer does not model");
  switch (op->getOpcode()) {
  case BO_Add:
  case BO_Sub:
  case BO_Mul:
  case BO_Div:
  case BO_Rem:
    break;
  default:
    return breakAt(op->getExprLoc(),
                   "a scalar operator the tracer does not model");
  }
  // Both sides in the result's type, as C++'s usual conversions do.
  for (int *v : {&*l, &*r})
    *v = scalarCast(*v, *kind, op->getExprLoc());
  return hostBinary(op->getOpcode(), *l, *r, op->getExprLoc());
}

std::optional<int> Tracer::traceScalarMath(HostMath fn, const CallExpr *call) {
  std::string name = call->getDirectCallee()->getNameAsString();
  std::vector<int> args;
  for (const Expr *a : call->arguments()) {
    std::optional<int> v = traceExpr(a);
    if (!v)
      return v;
    if (kindOf(*v) == ValueKind::Tensor)
      return breakAt(call->getExprLoc(), "std::" + name + " of a tensor");
    args.push_back(*v);
  }
  std::optional<ValueKind> kind = valueKindOf(call->getType());
  if (!kind)
    return breakAt(call->getExprLoc(), "std::" + name + " of this type");
  for (int &v : args)
    v = scalarCast(v, *kind, call->getExprLoc());
  if (args.size() !=
      (fn == HostMath::Pow || fn == HostMath::Min || fn == HostMath::Max ? 2u
                                                                         : 1u))
    return breakAt(call->getExprLoc(), "std::" + name + " of " +
                                           std::to_string(args.size()) +
                                           " arguments");
  bool isFloat = *kind == ValueKind::F32 || *kind == ValueKind::F64;
  if (!isFloat && fn != HostMath::Abs && fn != HostMath::Min &&
      fn != HostMath::Max)
    return breakAt(call->getExprLoc(), "std::" + name + " of an integer");
  return hostMath(fn, args, call->getExprLoc());
}

bool Tracer::constantIntList(const Expr *e, std::vector<int64_t> &values) {
  std::vector<int> traced;
  BodyMark before = markBody(graph());
  bool ok = traceIntList(e, traced);
  if (!ok)
    return false;
  for (int v : traced) {
    std::optional<double> c = graph().constantValue(v);
    if (!c)
      return false;
    values.push_back(static_cast<int64_t>(*c));
  }
  // The constants were only needed as attributes (what added an input is
  // kept: the graph's inputs and arguments stay one for one).
  if (markBody(graph()).arguments == before.arguments)
    cutBody(graph(), before);
  return true;
}

bool Tracer::traceIntList(const Expr *e, std::vector<int> &values) {
  e = stripArg(e);
  if (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
    if (c->getNumArgs() == 0)
      return true; // {} or a default argument
    if (c->getNumArgs() >= 1 &&
        isa<CXXStdInitializerListExpr>(c->getArg(0)->IgnoreImplicit()))
      return traceIntList(c->getArg(0), values);
  }
  if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(e))
    return traceIntList(il->getSubExpr(), values);
  if (const auto *list = dyn_cast<InitListExpr>(e)) {
    // A braced integer (an int64_t parameter passed {}): value-initialized,
    // 0, not an empty list.
    if (list->getNumInits() == 0 && list->getType()->isIntegerType()) {
      values.push_back(constant(0.0, ValueKind::I64, e->getExprLoc()));
      return true;
    }
    for (const Expr *element : list->inits()) {
      std::optional<int> v = traceExpr(element);
      if (!v)
        return false;
      v = scalarCast(*v, ValueKind::I64, element->getExprLoc());
      values.push_back(*v);
    }
    return true;
  }
  if (isa<IntegerLiteral>(e) || e->getType()->isIntegerType()) {
    std::optional<int> v = traceExpr(e);
    if (!v)
      return false;
    values.push_back(*v);
    return true;
  }
  breakAt(e->getExprLoc(), "a shape or dim list that is not a braced list");
  return false;
}

std::optional<int> Tracer::traceCall(const CallExpr *call) {
  const FunctionDecl *fn = call->getDirectCallee();
  if (!fn)
    return breakAt(call->getExprLoc(), "an indirect call");
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    const auto *method = cast<CXXMethodDecl>(fn);
    if (std::vector<int> *list = listOf(member->getImplicitObjectArgument()))
      return traceListMethod(*list, method, member);
    if (isTensorRecord(method->getParent()))
      return traceTensorMethod(method, member);
    if (method->isVirtual()) {
      // A final class or method, or an object whose dynamic type is its
      // static one (not a reference or pointer): the overrider is known.
      method = method->getDevirtualizedMethod(
          member->getImplicitObjectArgument(), /*IsAppleKext=*/false);
      if (!method)
        return breakAt(call->getExprLoc(), "a virtual call");
      fn = method;
    }
  }
  bool handled = false;
  if (std::optional<int> v = traceRecordCall(fn, call, handled); handled)
    return v;
  Annotations a = annotations_.of(fn, context_.getDiagnostics());
  std::string name = fn->getQualifiedNameAsString();
  if (a.disable) {
    if (!a.disableRecursive)
      noteCalleesAsRoots(fn);
    return breakAt(call->getExprLoc(),
                   "call to '" + name + "', which is marked KILN_DISABLE(" +
                       (a.disableRecursive ? "" : "recursive=false") + ")");
  }
  if (a.disallowInGraph)
    return breakAt(call->getExprLoc(),
                   "call to '" + name + "', which is disallowed in graphs");
  if (a.allowInGraph)
    return traceOpaqueCall(fn, call);
  if (inNamespace(fn, "kiln"))
    return traceKilnCall(fn, call);
  if (std::optional<HostMath> math = stdMathFunction(fn))
    return traceScalarMath(*math, call);
  if (!fn->hasBody())
    return breakAt(call->getExprLoc(),
                   "call to '" + name +
                       "', whose body is not visible (I/O or "
                       "an opaque function)");
  // A visible callee is inlined: its arguments first.
  // (An argument bound to a non-const reference is read where the callee
  // reads it: it may be an output the call defines.)
  std::vector<int> args;
  std::vector<const Expr *> argExprs;
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const Expr *arg = call->getArg(i);
    std::optional<int> v =
        isNamedParam(fn, i) ? std::optional<int>(-1) : traceExpr(arg);
    if (!v)
      return v;
    args.push_back(*v);
    argExprs.push_back(arg);
  }
  std::string thisObject;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    const auto *callee =
        dyn_cast<MemberExpr>(member->getCallee()->IgnoreParens());
    thisObject = spellObject(member->getImplicitObjectArgument(),
                             callee && callee->isArrow());
    if (thisObject.empty())
      return breakAt(call->getExprLoc(), "a method call on an object the "
                                         "stitched code cannot name");
  }
  return inlineCall(fn, args, argExprs, thisObject, call->getExprLoc());
}

std::string Tracer::spellObject(const Expr *object, bool arrow) {
  object = object->IgnoreParenImpCasts();
  std::string base;
  if (arrow)
    base = isa<CXXThisExpr>(object)
               ? frames_.back().thisPrefix
               : "(*" + spell(object, frames_.size() - 1) + ")";
  else if (isa<CXXThisExpr>(object)) // (*this)(x)
    base = frames_.back().thisPrefix;
  else
    base = spell(object, frames_.size() - 1);
  return base == "(*)" ? "" : base;
}

std::optional<int> Tracer::traceOpaqueCall(const FunctionDecl *fn,
                                           const CallExpr *call) {
  // The function runs inside the graph, untraced, through a callback: its
  // tensors in, its tensor out (kiln.opaque_call).
  std::string name = fn->getQualifiedNameAsString();
  if (isa<CXXMethodDecl>(fn) && !cast<CXXMethodDecl>(fn)->isStatic())
    return breakAt(call->getExprLoc(), "call to '" + name +
                                           "': allow_in_graph member functions "
                                           "are not supported yet");
  if (!isTensorType(fn->getReturnType()))
    return breakAt(call->getExprLoc(), "call to '" + name +
                                           "': an allow_in_graph function must "
                                           "return a tensor");
  std::vector<int> args;
  for (const Expr *arg : call->arguments()) {
    std::optional<int> v = traceExpr(arg);
    if (!v)
      return v;
    if (kindOf(*v) != ValueKind::Tensor)
      return breakAt(arg->getExprLoc(), "call to '" + name +
                                            "': an allow_in_graph function "
                                            "takes tensors only");
    args.push_back(*v);
  }
  // Spelled from the file's scope, where the stitched adapters live.
  std::string spelling = name;
  for (std::string anon = "(anonymous namespace)::";
       spelling.find(anon) != std::string::npos;)
    spelling.erase(spelling.find(anon), anon.size());
  return opaqueCall("::" + spelling, args, call->getExprLoc());
}

std::optional<int> Tracer::traceOperator(const CXXOperatorCallExpr *call) {
  OverloadedOperatorKind kind = call->getOperator();
  const FunctionDecl *fn = call->getDirectCallee();
  if (kind == OO_Call) {
    // A lambda called directly: its body is inlined, its captures being
    // the enclosing variables themselves.
    // An object's operator() (a module called as `ln_1(x)`) is inlined as
    // a method of the object.
    const auto *method = dyn_cast_or_null<CXXMethodDecl>(fn);
    if (!method)
      return breakAt(call->getExprLoc(), "a call through operator() of an "
                                         "object the tracer does not model");
    if (method->isVirtual()) { // devirtualized where the overrider is known
      method = method->getDevirtualizedMethod(call->getArg(0),
                                              /*IsAppleKext=*/false);
      if (!method)
        return breakAt(call->getExprLoc(), "a virtual call");
      fn = method;
    }
    std::string thisObject = frames_.back().thisPrefix;
    if (!method->getParent()->isLambda()) {
      Annotations a = annotations_.of(method, context_.getDiagnostics());
      if (a.disable || a.disallowInGraph || a.allowInGraph)
        return traceCall(call);
      thisObject = spellObject(call->getArg(0), false);
      if (thisObject.empty())
        return breakAt(call->getExprLoc(), "a call through operator() of an "
                                           "object the stitched code cannot "
                                           "name");
    }
    std::vector<int> args;
    std::vector<const Expr *> argExprs;
    for (unsigned i = 1; i < call->getNumArgs(); ++i) {
      std::optional<int> v = isNamedParam(method, i - 1)
                                 ? std::optional<int>(-1)
                                 : traceExpr(call->getArg(i));
      if (!v)
        return v;
      args.push_back(*v);
      argExprs.push_back(call->getArg(i));
    }
    return inlineCall(method, args, argExprs, thisObject, call->getExprLoc());
  }
  if (kind == OO_Subscript && call->getNumArgs() == 2 &&
      isPiecesCall(call->getArg(0))) {
    // x.chunk(3, -1)[1]
    std::optional<int64_t> i = constantInt(call->getArg(1));
    if (!i || *i < 0)
      return breakAt(call->getExprLoc(),
                     "a piece of chunk or split at an index not known at "
                     "compile time");
    std::vector<int> pieces;
    if (!tracePieces(call->getArg(0), *i + 1, pieces))
      return std::nullopt;
    if (*i >= static_cast<int64_t>(pieces.size()))
      return breakAt(call->getExprLoc(),
                     "a piece of chunk past its count (an error in eager)");
    return pieces[*i];
  }
  if (kind == OO_Subscript && call->getNumArgs() == 2)
    if (std::vector<int> *list = listOf(call->getArg(0))) {
      std::optional<int64_t> i = constantInt(call->getArg(1));
      if (const auto *ref =
              dyn_cast<DeclRefExpr>(call->getArg(1)->IgnoreParenImpCasts());
          ref && !i) // an unrolled loop's counter
        if (std::optional<int> v = traceDeclRef(ref->getDecl(), ref);
            v && *v >= 0)
          if (std::optional<double> c = graph().constantValue(*v))
            i = static_cast<int64_t>(*c);
      if (!i || *i < 0 || *i >= static_cast<int64_t>(list->size()))
        return breakAt(call->getExprLoc(),
                       "an element of a std::vector<Tensor> at an index not "
                       "known at compile time");
      return (*list)[*i];
    }
  if (isInPlaceCall(call))
    return traceInPlace(call, {call->getArg(1)}, call->getOperatorLoc());
  if (!fn || !inNamespace(fn, "kiln") || !isTensorType(call->getType()))
    return breakAt(
        call->getExprLoc(),
        std::string("operator") + getOperatorSpelling(kind) +
            (kind == OO_LessLess ? " (I/O)" : " on non-tensor values"));
  std::vector<int> args;
  for (const Expr *a : call->arguments()) {
    std::optional<int> v = traceExpr(stripArg(a));
    if (!v)
      return v;
    args.push_back(asTensor(*v, a->getExprLoc()));
  }
  SourceLocation loc = call->getOperatorLoc();
  if (args.size() == 1) {
    if (kind == OO_Minus)
      return build<mlir::kiln::NegOp>(loc, val(args[0]));
    return breakAt(loc, "a unary tensor operator the tracer does not model");
  }
  using mlir::kiln::CmpPredicate;
  int l = args[0], r = args[1];
  switch (kind) {
  case OO_Plus:
    preferBiasRank(args);
    return build<mlir::kiln::AddOp>(loc, val(l), val(r));
  case OO_Minus:
    preferBiasRank(args);
    return build<mlir::kiln::SubOp>(loc, val(l), val(r));
  case OO_Star:
    preferBiasRank(args);
    return build<mlir::kiln::MulOp>(loc, val(l), val(r));
  case OO_Slash:
    preferBiasRank(args);
    return build<mlir::kiln::DivOp>(loc, val(l), val(r));
  case OO_Less:
    return compare(CmpPredicate::lt, l, r, loc);
  case OO_LessEqual:
    return compare(CmpPredicate::le, l, r, loc);
  case OO_Greater:
    return compare(CmpPredicate::gt, l, r, loc);
  case OO_GreaterEqual:
    return compare(CmpPredicate::ge, l, r, loc);
  case OO_EqualEqual:
    return compare(CmpPredicate::eq, l, r, loc);
  case OO_ExclaimEqual:
    return compare(CmpPredicate::ne, l, r, loc);
  default:
    return breakAt(loc, "a tensor operator the tracer does not model");
  }
}

void Tracer::preferBiasRank(const std::vector<int> &operands) {
  // x @ w + b (or x + x @ w + b): an input combined with a product's
  // result, or with a sum holding one, is a bias (rank 1) unless its uses
  // say otherwise.
  std::function<bool(mlir::Value, int)> isProduct = [&](mlir::Value v,
                                                        int depth) {
    mlir::Operation *op = depth > 8 || !v ? nullptr : v.getDefiningOp();
    if (!op)
      return false;
    if (mlir::isa<mlir::kiln::MatmulOp, mlir::kiln::LinearOp>(op))
      return true;
    if (mlir::isa<mlir::kiln::AddOp, mlir::kiln::SubOp>(op))
      for (mlir::Value o : op->getOperands())
        if (isProduct(o, depth + 1))
          return true;
    return false;
  };
  if (operands.size() != 2)
    return;
  for (int i = 0; i < 2; ++i)
    if (isProduct(graph().body->values[operands[i]], 0))
      if (GraphInput *in = inputOf(operands[1 - i]))
        if (in->preferredRank < 0)
          in->preferredRank = 1;
}

} // namespace kiln::frontend
