//===- TypeEvidence.cpp - Ranks and dtypes of tensors the source shows ----===//
//
// A graph needs the rank and element type of each tensor it reads. Where
// the translation unit shows them, the source decides: a member
// initialized (by its struct's aggregate initialization or a constructor's
// arguments) or assigned with kiln::randn({C}, 1), a parameter whose
// callers pass kiln::zeros({B, T, C}), kiln::from_vector<int64_t>(v, {B, T})
// or a comparison, a local made that way, or a function (another compile
// root included) returning such a tensor. Ranks come from shapes written as
// braced lists; element types from the factories' dtype arguments (and their
// float32 default), from_vector's element type, comparisons (bool),
// Tensor::to(dtype), and the ops that keep their operand's type. Anything else
// says nothing.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace kiln::frontend {

namespace {

/// How a kiln op's result type follows from its input's, by the op's
/// definition in the dialect (its traits): elementwise in the input's type
/// (neg, relu, floor), a float of its shape (exp, gelu, softmax), or
/// otherwise.
enum class ResultRule { None, SameType, FloatResult };

ResultRule resultRule(llvm::StringRef name) {
  std::optional<mlir::RegisteredOperationName> op =
      mlir::RegisteredOperationName::lookup(("kiln." + name).str(),
                                            &graphContext());
  if (!op)
    return ResultRule::None;
  bool sameType = op->hasTrait<mlir::OpTrait::SameOperandsAndResultType>();
  if ((op->hasTrait<mlir::kiln::trait::PromotesToResult>() &&
       op->hasTrait<mlir::OpTrait::SameOperandsAndResultShape>()) ||
      (sameType && op->hasTrait<mlir::kiln::trait::FloatInput>()))
    return ResultRule::FloatResult;
  if (sameType && !op->hasInterface<mlir::kiln::DimsOpInterface>())
    return ResultRule::SameType;
  return ResultRule::None;
}

/// How many steps out of the expression at hand the evidence is followed:
/// into a called function's returns, from a parameter to the argument of
/// the call being typed, from a local to its initializer. An expression's
/// own operands take no step (each is typed once, so an expression costs
/// its size): a member stored from a helper that returns another root's
/// result (`alphas_bar(schedule(T))`, `schedule` returning
/// `cumulative(kiln::arange(T).to(kiln::kFloat64) * 0.01)`) is three steps
/// from the factory that shows its type, however deep the ops between.
constexpr int kMaxDepth = 6;

/// The element type a kiln::DType argument names, if it is a constant.
std::optional<ElementType> dtypeArgument(const Expr *e, ASTContext &ctx) {
  Expr::EvalResult r;
  if (!e->EvaluateAsRValue(r, ctx) || !r.Val.isInt())
    return std::nullopt;
  int64_t d = r.Val.getInt().getExtValue();
  if (d < 0 || d > 6)
    return std::nullopt;
  return elementOfDType(d);
}

/// The element type of a C++ type from_vector<T> stores.
std::optional<ElementType> elementOfCppType(QualType t) {
  t = t.getCanonicalType();
  if (t->isBooleanType())
    return ElementType::Bool;
  if (const auto *b = t->getAs<BuiltinType>()) {
    if (b->getKind() == BuiltinType::Float)
      return ElementType::F32;
    if (b->getKind() == BuiltinType::Double)
      return ElementType::F64;
  }
  if (t->isIntegerType())
    return t->getAs<BuiltinType>() &&
                   t->castAs<BuiltinType>()->getKind() == BuiltinType::Int
               ? ElementType::I32
               : ElementType::I64;
  return std::nullopt;
}

/// The variable, parameter or member `e` names, if it names one.
const ValueDecl *declOf(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    return ref->getDecl();
  if (const auto *member = dyn_cast<MemberExpr>(e))
    return member->getMemberDecl();
  return nullptr;
}

/// What the source says of one tensor expression.
struct ExprTypes {
  std::optional<int64_t> rank;
  std::optional<ElementType> element;
};

class ExprTyper {
public:
  /// `known`: what an earlier pass found for parameters and members.
  ExprTyper(ASTContext &ctx, const TypeEvidence &known)
      : ctx_(ctx), known_(known) {}

  ExprTypes of(const Expr *e, int depth = 0) {
    if (!e || depth > kMaxDepth)
      return {};
    e = stripTemporaries(e);
    if (const auto *c = dyn_cast<CXXConstructExpr>(e))
      return c->getNumArgs() == 1 ? of(c->getArg(0), depth) : ExprTypes{};
    if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
      // A parameter of the function whose call is being typed: the
      // argument of this call, typed where the call is (a helper called
      // with float64 here and float32 there returns each). What it has at
      // other calls says nothing of this one.
      if (const auto *parm = dyn_cast<ParmVarDecl>(ref->getDecl()))
        if (std::optional<ExprTypes> r = ofArgument(parm, depth))
          return *r;
      // A local: what the earlier pass found for it (all its
      // assignments), else its initializer.
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        if (var->getInit() && isTensorType(var->getType()) &&
            !isa<ParmVarDecl>(var) && !known_.count(var))
          return of(var->getInit(), depth + 1);
      return known(ref->getDecl());
    }
    if (const auto *member = dyn_cast<MemberExpr>(e))
      return known(member->getMemberDecl());
    if (const auto *cond = dyn_cast<ConditionalOperator>(e)) {
      // What both arms agree on.
      ExprTypes a = of(cond->getTrueExpr(), depth),
                b = of(cond->getFalseExpr(), depth);
      return {a.rank == b.rank ? a.rank : std::nullopt,
              a.element == b.element ? a.element : std::nullopt};
    }
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(e))
      return ofOperator(op, depth);
    if (const auto *call = dyn_cast<CallExpr>(e))
      return ofCall(call, depth);
    return {};
  }

  /// The items of a braced list, if e is one (`{}` has none).
  static std::optional<llvm::ArrayRef<const Expr *>> listItems(const Expr *e) {
    e = stripTemporaries(e);
    if (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
      // `{}`: a shape of no dims (a rank-0 tensor).
      if (c->getNumArgs() == 0 && c->isListInitialization())
        return llvm::ArrayRef<const Expr *>();
      if (c->getNumArgs() >= 1)
        e = stripTemporaries(c->getArg(0));
    }
    if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(e))
      e = stripTemporaries(il->getSubExpr());
    if (const auto *list = dyn_cast<InitListExpr>(e))
      return llvm::ArrayRef<const Expr *>(list->getInits(),
                                          list->getNumInits());
    return std::nullopt;
  }

private:
  /// The length of a braced shape list, if e is one or names a parameter
  /// bound to one at the call being typed (a helper `w(kiln::Shape shape)`
  /// called as `w({C, 4 * C})`).
  std::optional<int64_t> shapeLength(const Expr *e) const {
    if (std::optional<int64_t> n = listLength(e))
      return n;
    e = stripTemporaries(e);
    if (const auto *c = dyn_cast<CXXConstructExpr>(e))
      if (c->getNumArgs() == 1)
        e = stripTemporaries(c->getArg(0));
    if (const auto *ref = dyn_cast<DeclRefExpr>(e))
      if (const auto *p = dyn_cast<ParmVarDecl>(ref->getDecl()))
        if (!frames_.empty())
          if (auto it = frames_.back().find(p); it != frames_.back().end())
            return listLength(it->second);
    return std::nullopt;
  }

  /// The length of a braced list, if e is one.
  static std::optional<int64_t> listLength(const Expr *e) {
    if (std::optional<llvm::ArrayRef<const Expr *>> items = listItems(e))
      return static_cast<int64_t>(items->size());
    return std::nullopt;
  }

  /// The element type a kiln::DType expression names: a constant, or a
  /// parameter of a function being typed for a call, bound to one there
  /// (a helper `grid(shape, seed, kiln::DType dtype)`).
  std::optional<ElementType> dtypeOf(const Expr *e) const {
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
      if (std::optional<ElementType> d = dtypeArgument(e, ctx_))
        return d;
      const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      const auto *parm = ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
      auto it = parm ? frame->find(parm) : frame->end();
      if (it == frame->end())
        return std::nullopt;
      e = it->second; // the caller's argument, in the caller's frame
    }
    return dtypeArgument(e, ctx_);
  }

  /// What the earlier pass found for `decl`, where it is unambiguous.
  ExprTypes known(const ValueDecl *decl) const {
    auto it = known_.find(decl);
    if (it == known_.end())
      return {};
    ExprTypes r;
    if (it->second.ranks.size() == 1)
      r.rank = *it->second.ranks.begin();
    if (it->second.elements.size() == 1)
      r.element = *it->second.elements.begin();
    return r;
  }

  ExprTypes ofOperator(const CXXOperatorCallExpr *op, int depth) {
    switch (op->getOperator()) {
    case OO_Less:
    case OO_LessEqual:
    case OO_Greater:
    case OO_GreaterEqual:
    case OO_EqualEqual:
    case OO_ExclaimEqual: {
      // A comparison: bool, of the broadcast rank of its tensors.
      return {broadcastRank(operandsOf(op, depth)), ElementType::Bool};
    }
    case OO_Call: // a functor or lambda: what its body returns
      return ofCall(op, depth);
    case OO_Subscript: // ws[i] of a std::vector<Tensor>: its elements'
      if (const ValueDecl *v = declOf(op->getArg(0));
          v && isTensorVectorType(v->getType()))
        return known(v);
      return {};
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash: {
      if (op->getNumArgs() != 2)
        return op->getNumArgs() == 1 ? of(op->getArg(0), depth) : ExprTypes{};
      Operands operands = operandsOf(op, depth);
      return {broadcastRank(operands),
              arithmeticElement(operands, op->getOperator() == OO_Slash)};
    }
    default:
      return {};
    }
  }

  /// The operands of an elementwise op: its tensors' types, in order, and
  /// whether a float number is among the rest.
  struct Operands {
    std::vector<ExprTypes> tensors;
    bool floatNumber = false;
  };

  /// Each operand typed once: typing it again for the element type would
  /// make a chain of n ops cost 2^n.
  Operands operandsOf(const CallExpr *call, int depth) {
    Operands r;
    for (const Expr *arg : call->arguments()) {
      if (isTensorType(arg->getType()))
        r.tensors.push_back(of(arg, depth));
      else if (isFloatNumber(arg))
        r.floatNumber = true;
    }
    return r;
  }

  /// The rank of an elementwise result: the largest of its tensor
  /// operands', when all of them are known.
  static std::optional<int64_t> broadcastRank(const Operands &operands) {
    std::optional<int64_t> rank;
    for (const ExprTypes &t : operands.tensors) {
      if (!t.rank)
        return std::nullopt;
      rank = std::max(rank.value_or(0), *t.rank);
    }
    return rank;
  }

  /// The types of the argument bound to parm at the call being typed (the
  /// innermost frame), in the caller's frame; nullopt when parm is not
  /// bound there.
  std::optional<ExprTypes> ofArgument(const ParmVarDecl *parm, int depth) {
    if (frames_.empty())
      return std::nullopt;
    auto it = frames_.back().find(parm);
    if (it == frames_.back().end())
      return std::nullopt;
    const Expr *arg = it->second;
    Frame callee = std::move(frames_.back());
    frames_.pop_back();
    ExprTypes r = of(arg, depth + 1);
    frames_.push_back(std::move(callee));
    return r;
  }

  /// An elementwise op of input x: x's types, its element type made a
  /// float where the op's result is.
  ExprTypes ofElementwise(ResultRule rule, const Expr *x, int depth) {
    ExprTypes r = of(x, depth);
    if (rule == ResultRule::FloatResult)
      r.element = floatResult(r.element);
    return r;
  }

  /// The element type of a float function (exp, tanh) of e: e's own when
  /// it is a float type (half types stay half, as in torch), float32 for
  /// integers and bools.
  static std::optional<ElementType> floatResult(std::optional<ElementType> e) {
    if (!e || *e == ElementType::F64 || *e == ElementType::F32 ||
        *e == ElementType::F16 || *e == ElementType::BF16)
      return e;
    return ElementType::F32;
  }

  /// A float or double, passed as is or converted to a kiln::Scalar (the
  /// operators' `Tensor - Scalar` and `Scalar - Tensor`).
  static bool isFloatNumber(const Expr *arg) {
    // Through its wrappers: Scalar(1.5), std::optional<Scalar>(Scalar(1.5)).
    const Expr *e = stripTemporaries(arg);
    while (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
      if (c->getNumArgs() != 1)
        break;
      e = stripTemporaries(c->getArg(0));
    }
    return e->IgnoreParenImpCasts()->getType()->isRealFloatingType();
  }

  /// torch's result type of tensor (op) tensor-or-number, when known.
  static std::optional<ElementType> arithmeticElement(const Operands &operands,
                                                      bool division) {
    std::optional<ElementType> tensor;
    std::optional<int64_t> tensorRank;
    for (ExprTypes t : operands.tensors) {
      if (!t.element)
        return std::nullopt;
      if (tensor && *tensor != *t.element) {
        // Mixed types promote as torch's do when both tensors have dims
        // (a 0-d tensor counts for less: not read here).
        if (!t.rank || *t.rank == 0 || !tensorRank || *tensorRank == 0)
          return std::nullopt;
        t.element = promoteTypes(*tensor, *t.element);
      }
      tensor = t.element;
      tensorRank = t.rank;
    }
    if (!tensor)
      return std::nullopt;
    // A float number, or a true division, makes integers float32.
    if ((operands.floatNumber || division) && !isFloat(*tensor))
      return ElementType::F32;
    return tensor;
  }

  ExprTypes ofCall(const CallExpr *call, int depth) {
    const FunctionDecl *fn = call->getDirectCallee();
    if (fn && !fn->getIdentifier() && !isKilnTensorMethod(fn) &&
        !isInKilnNamespace(fn))
      return ofUserFunction(fn, call, depth); // operator() of a lambda
    if (!fn || !fn->getIdentifier())
      return {};
    llvm::StringRef name = fn->getName();
    unsigned n = call->getNumArgs();
    // std::move(w), std::forward<T>(w): w itself (a constructor's
    // `weight(std::move(w))`).
    if (fn->isInStdNamespace() && (name == "move" || name == "forward") &&
        n == 1)
      return of(call->getArg(0), depth);
    bool method = isa<CXXMemberCallExpr>(call);
    if (method ? !isKilnTensorMethod(fn) : !isInKilnNamespace(fn))
      return ofUserFunction(fn, call, depth);
    // A kiln:: function or Tensor method, its arguments as the function
    // takes them (a method's object first): its rule by name, or, for an
    // elementwise op, its definition in the kiln dialect (its result takes
    // the input's type, or a float of its shape).
    KilnArgs a{fn, {}};
    if (method)
      a.args.push_back(
          cast<CXXMemberCallExpr>(call)->getImplicitObjectArgument());
    a.args.append(call->arg_begin(), call->arg_end());
    auto it = kilnRules().find(name);
    if (it != kilnRules().end())
      return (this->*(it->second))(a, depth);
    ResultRule rule = resultRule(name);
    if (rule != ResultRule::None && a.size() >= 1)
      return ofElementwise(rule, a.args[0], depth);
    return {};
  }

  /// A call of a kiln:: function or Tensor method: its arguments as the
  /// function takes them (a method's object first).
  struct KilnArgs {
    const FunctionDecl *fn;
    llvm::SmallVector<const Expr *, 6> args;
    unsigned size() const { return static_cast<unsigned>(args.size()); }
    /// Whether argument i is written, not left to its default.
    bool given(unsigned i) const {
      return i < args.size() && !isa<CXXDefaultArgExpr>(args[i]);
    }
  };
  /// What a call's result types are from its arguments'.
  using Rule = ExprTypes (ExprTyper::*)(const KilnArgs &, int depth);

  /// The rules of the kiln:: functions and Tensor methods that are not
  /// elementwise ops, by name: the factories, the views, and the ops the
  /// tracer composes (TraceOps.cpp's Tracer::Composite), from their first
  /// tensor x.
  static const std::map<llvm::StringRef, Rule> &kilnRules() {
    static const std::map<llvm::StringRef, Rule> rules = [] {
      std::map<llvm::StringRef, Rule> r;
      auto add = [&](std::initializer_list<llvm::StringRef> names, Rule rule) {
        for (llvm::StringRef name : names)
          r[name] = rule;
      };
      add({"contiguous", "clone", "transpose", "permute", "layer_norm",
           "rms_norm", "linear", "scaled_dot_product_attention", "tril", "triu",
           "leaky_relu", "elu", "masked_fill", "flip", "roll", "sign",
           "dropout", "narrow", "slice"},
          &ExprTyper::ofFirst);
      add({"isnan", "isinf", "isfinite", "logical_not", "logical_and",
           "logical_or"},
          &ExprTyper::ofPredicate);
      add({"any", "all"}, &ExprTyper::ofBoolReduction);
      add({"var", "std", "logsumexp", "norm"}, &ExprTyper::ofFloatReduction);
      add({"gather", "index_select", "repeat", "tile", "pad", "unflatten"},
          &ExprTyper::ofElementOfFirst);
      add({"clamp"}, &ExprTyper::ofClamp);
      add({"view", "reshape", "expand"}, &ExprTyper::ofReshape);
      add({"to"}, &ExprTyper::ofCast);
      add({"select", "squeeze"}, &ExprTyper::ofDimDropped);
      add({"unsqueeze"}, &ExprTyper::ofDimAdded);
      add({"zeros", "ones", "empty"}, &ExprTyper::ofFactory<1>);
      add({"randn", "rand", "full"}, &ExprTyper::ofFactory<2>);
      add({"randint"}, &ExprTyper::ofRandint);
      add({"from_vector"}, &ExprTyper::ofFromVector);
      add({"cat"}, &ExprTyper::ofJoin<false>);
      add({"stack"}, &ExprTyper::ofJoin<true>);
      add({"arange"}, &ExprTyper::ofArange);
      add({"cumsum", "cumprod"}, &ExprTyper::ofCumulative);
      add({"embedding"}, &ExprTyper::ofEmbedding);
      return r;
    }();
    return rules;
  }

  /// x's rank and element type (x, the first argument, a tensor).
  ExprTypes ofFirst(const KilnArgs &a, int depth) {
    if (a.size() < 1 || !isTensorType(a.args[0]->getType()))
      return {};
    return of(a.args[0], depth);
  }

  /// x's rank, bools: the predicates.
  ExprTypes ofPredicate(const KilnArgs &a, int depth) {
    if (a.size() < 1 || !isTensorType(a.args[0]->getType()))
      return {};
    return {of(a.args[0], depth).rank, ElementType::Bool};
  }

  /// A bool of rank that depends on dims and keepdim: any, all.
  ExprTypes ofBoolReduction(const KilnArgs &a, int) {
    if (a.size() < 1 || !isTensorType(a.args[0]->getType()))
      return {};
    return {std::nullopt, ElementType::Bool};
  }

  /// A float of x's type, its rank depending on dims and keepdim.
  ExprTypes ofFloatReduction(const KilnArgs &a, int depth) {
    return {std::nullopt, floatResult(ofFirst(a, depth).element)};
  }

  /// x's element type, its rank depending on other arguments.
  ExprTypes ofElementOfFirst(const KilnArgs &a, int depth) {
    return {std::nullopt, ofFirst(a, depth).element};
  }

  /// clamp: x's types, a float bound making integers float32.
  ExprTypes ofClamp(const KilnArgs &a, int depth) {
    ExprTypes r = ofFirst(a, depth);
    for (const Expr *arg : llvm::ArrayRef(a.args).drop_front())
      if (isFloatNumber(arg))
        r.element = floatResult(r.element);
    return r;
  }

  /// x.view(shape), x.reshape(shape), x.expand(shape): the shape's length,
  /// x's element type.
  ExprTypes ofReshape(const KilnArgs &a, int depth) {
    if (a.size() != 2)
      return {};
    return {shapeLength(a.args[1]), of(a.args[0], depth).element};
  }

  /// x.to(dtype): x's rank, the dtype a constant or a parameter bound to
  /// one names; else unknown (not x's).
  ExprTypes ofCast(const KilnArgs &a, int depth) {
    if (a.size() != 2)
      return {};
    ExprTypes r = of(a.args[0], depth);
    r.element = dtypeOf(a.args[1]);
    return r;
  }

  /// select(dim, index), squeeze(dim): one dim fewer than x (squeeze()
  /// drops as many as are 1 at run time).
  ExprTypes ofDimDropped(const KilnArgs &a, int depth) {
    if (a.size() < 2)
      return {};
    ExprTypes r = of(a.args[0], depth);
    r.rank = r.rank && *r.rank > 0 ? std::optional(*r.rank - 1) : std::nullopt;
    return r;
  }

  /// unsqueeze(dim): one dim more than x.
  ExprTypes ofDimAdded(const KilnArgs &a, int depth) {
    if (a.size() < 1)
      return {};
    ExprTypes r = of(a.args[0], depth);
    if (r.rank)
      ++*r.rank;
    return r;
  }

  /// The dtype argument at i, float32 (the factories' default) when left
  /// out.
  std::optional<ElementType> dtypeAt(const KilnArgs &a, unsigned i) const {
    if (a.given(i))
      return dtypeArgument(a.args[i], ctx_);
    return ElementType::F32;
  }

  /// zeros(shape, dtype), ones, empty; randn(shape, seed, dtype), rand,
  /// full(shape, value, dtype): the shape's length and the dtype at
  /// DTypeArg.
  template <unsigned DTypeArg> ExprTypes ofFactory(const KilnArgs &a, int) {
    if (a.size() < DTypeArg)
      return {};
    return {shapeLength(a.args[0]), dtypeAt(a, DTypeArg)};
  }

  /// randint([low,] high, shape, seed, dtype): int64 unless a dtype is
  /// given.
  ExprTypes ofRandint(const KilnArgs &a, int) {
    if (a.size() < 3)
      return {};
    unsigned shape = a.fn->getNumParams() == 5 ? 2 : 1;
    unsigned dtype = shape + 2;
    return {shapeLength(a.args[shape]),
            a.given(dtype) ? dtypeArgument(a.args[dtype], ctx_)
                           : std::optional<ElementType>(ElementType::I64)};
  }

  /// from_vector<T>(values, shape): the shape's length, T.
  ExprTypes ofFromVector(const KilnArgs &a, int) {
    if (a.size() != 2)
      return {};
    ExprTypes r{shapeLength(a.args[1]), std::nullopt};
    const FunctionDecl *fn = a.fn;
    if (const TemplateArgumentList *args = fn->getTemplateSpecializationArgs())
      if (args->size() == 1 && args->get(0).getKind() == TemplateArgument::Type)
        r.element = elementOfCppType(args->get(0).getAsType());
    if (!r.element && fn->getNumParams() == 2) // from_vector(vector<bool>)
      if (const auto *vec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
              fn->getParamDecl(0)
                  ->getType()
                  .getNonReferenceType()
                  ->getAsCXXRecordDecl());
          vec && vec->getTemplateArgs().size() >= 1 &&
          vec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
        r.element = elementOfCppType(vec->getTemplateArgs()[0].getAsType());
    return r;
  }

  /// cat and stack of a braced list: its first tensor's rank (torch
  /// requires the ranks to agree), one more for stack, and the element
  /// type all of them have (cat promotes mixed ones).
  template <bool Stack> ExprTypes ofJoin(const KilnArgs &a, int depth) {
    if (a.size() < 1)
      return {};
    std::optional<llvm::ArrayRef<const Expr *>> items = listItems(a.args[0]);
    if (!items || items->empty())
      return {};
    ExprTypes r = of(items->front(), depth);
    if (r.rank && Stack)
      ++*r.rank;
    for (const Expr *item : items->drop_front())
      if (r.element && of(item, depth).element != r.element)
        r.element.reset();
    return r;
  }

  /// arange: int64 when every bound is an integer, as the runtime's.
  ExprTypes ofArange(const KilnArgs &a, int) {
    bool integers = true;
    for (const Expr *arg : a.args)
      if (!isa<CXXDefaultArgExpr>(arg) && !numberType(arg)->isIntegerType())
        integers = false;
    return {1, integers ? ElementType::I64 : ElementType::F32};
  }

  /// cumsum, cumprod: x's rank; integers and bools accumulate in int64, as
  /// torch's do, unless a dtype is given.
  ExprTypes ofCumulative(const KilnArgs &a, int depth) {
    if (a.size() < 2)
      return {};
    ExprTypes r = of(a.args[0], depth);
    if (a.given(2))
      r.element = dtypeArgument(a.args[2], ctx_);
    else if (r.element && !isFloat(*r.element))
      r.element = ElementType::I64;
    return r;
  }

  /// embedding(ids, table): the table's rows, one per index (the ids' rank
  /// + 1).
  ExprTypes ofEmbedding(const KilnArgs &a, int depth) {
    if (a.size() != 2)
      return {};
    ExprTypes ids = of(a.args[0], depth);
    ExprTypes r{std::nullopt, of(a.args[1], depth).element};
    if (ids.rank)
      r.rank = *ids.rank + 1;
    return r;
  }

  /// A function of the user's with a visible body: what all its return
  /// statements agree on.
  ExprTypes ofUserFunction(const FunctionDecl *fn, const CallExpr *call,
                           int depth) {
    const FunctionDecl *def = fn->getDefinition();
    // The program's own functions only: a library's (std::get of a tuple
    // of tensors) returns what its templates make of their arguments,
    // which this reading does not follow. Each call at most once on the
    // way (recursion); the same function called again further in, with
    // other arguments, is typed there (`host_step(host_step(x))`).
    if (!def || !def->hasBody() || !isTensorType(def->getReturnType()) ||
        ctx_.getSourceManager().isInSystemHeader(def->getLocation()) ||
        !visiting_.insert(call).second)
      return {};
    // Its parameters bound to this call's arguments (for shapes).
    Frame frame;
    unsigned offset =
        isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(fn) ? 1 : 0;
    for (unsigned i = 0;
         i + offset < call->getNumArgs() && i < def->getNumParams(); ++i)
      frame[def->getParamDecl(i)] = call->getArg(i + offset);
    frames_.push_back(std::move(frame));
    std::vector<const ReturnStmt *> returns;
    collectReturns(def->getBody(), returns);
    ExprTypes r;
    bool first = true;
    for (const ReturnStmt *ret : returns) {
      ExprTypes t = of(ret->getRetValue(), depth + 1);
      if (first) {
        r = t;
        first = false;
        continue;
      }
      if (r.rank != t.rank)
        r.rank.reset();
      if (r.element != t.element)
        r.element.reset();
    }
    visiting_.erase(call);
    frames_.pop_back();
    // A function of tensors returns what its arguments make it return:
    // what it returned at other calls says nothing of this one.
    if (llvm::any_of(def->parameters(), [](const ParmVarDecl *p) {
          return isTensorType(p->getType());
        }))
      return r;
    // Beyond the depth this call reaches: what the earlier pass found for
    // its returns at every call.
    ExprTypes all = known(def);
    if (!r.rank)
      r.rank = all.rank;
    if (!r.element)
      r.element = all.element;
    return r;
  }

  /// The C++ type of a number argument, under its conversion to
  /// kiln::Scalar.
  static QualType numberType(const Expr *e) {
    e = stripTemporaries(e)->IgnoreParenImpCasts();
    if (const auto *c = dyn_cast<CXXConstructExpr>(e))
      if (c->getNumArgs() == 1)
        return numberType(c->getArg(0));
    return e->getType();
  }

public:
  static void collectReturns(const Stmt *s,
                             std::vector<const ReturnStmt *> &out) {
    if (!s || isa<LambdaExpr>(s))
      return;
    if (const auto *ret = dyn_cast<ReturnStmt>(s)) {
      out.push_back(ret);
      return;
    }
    for (const Stmt *child : s->children())
      collectReturns(child, out);
  }

  static bool isInKilnNamespace(const FunctionDecl *fn) {
    const auto *ns = dyn_cast<NamespaceDecl>(fn->getDeclContext());
    return ns && ns->getName() == "kiln" &&
           ns->getDeclContext()->isTranslationUnit();
  }

  static bool isKilnTensorMethod(const FunctionDecl *fn) {
    const auto *record = dyn_cast<CXXRecordDecl>(fn->getDeclContext());
    return record && record->getName() == "Tensor" &&
           isa<NamespaceDecl>(record->getDeclContext()) &&
           cast<NamespaceDecl>(record->getDeclContext())->getName() == "kiln";
  }

  ASTContext &ctx_;
  const TypeEvidence &known_;
  /// The user functions' calls being typed.
  std::set<const CallExpr *> visiting_;
  /// Per user function being typed for a call: its parameters' arguments.
  using Frame = std::map<const ParmVarDecl *, const Expr *>;
  std::vector<Frame> frames_;
};

/// `Tensor()` or `{}`: a default-constructed, undefined tensor.
bool isUndefinedTensor(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  while (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e))
    e = m->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *b = dyn_cast<CXXBindTemporaryExpr>(e))
    e = b->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *f = dyn_cast<CXXFunctionalCastExpr>(e))
    e = f->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *list = dyn_cast<InitListExpr>(e))
    return list->getNumInits() == 0;
  if (const auto *c = dyn_cast<CXXConstructExpr>(e))
    return c->getNumArgs() == 0 ||
           (c->getNumArgs() == 1 && isUndefinedTensor(c->getArg(0)) &&
            c->getConstructor()->isCopyOrMoveConstructor());
  return false;
}

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &ctx, const TypeEvidence &known, TypeEvidence &out)
      : typer_(ctx, known), known_(known), out_(out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  /// What storing `e` in `decl` shows of decl's type: a tensor's own, a
  /// std::vector<Tensor>'s elements'.
  void note(const ValueDecl *decl, const Expr *e) {
    if (!decl || !e)
      return;
    if (isTensorVectorType(decl->getType()))
      noteElements(decl, e);
    else if (isTensorType(decl->getType()))
      noteElement(decl, e);
  }

  /// The elements of a std::vector<Tensor> are typed under the vector's
  /// declaration: its braced items, or the vector it is copied from.
  void noteElements(const ValueDecl *decl, const Expr *e) {
    if (std::optional<llvm::ArrayRef<const Expr *>> items =
            ExprTyper::listItems(e)) {
      for (const Expr *item : *items)
        noteElement(decl, item);
      return;
    }
    e = stripTemporaries(e);
    if (const auto *c = dyn_cast<CXXConstructExpr>(e);
        c && c->getNumArgs() == 1)
      e = stripTemporaries(c->getArg(0));
    if (const ValueDecl *from = declOf(e); from && from != decl)
      merge(decl, from);
  }

  /// decl's evidence gains what the earlier pass found for `from`.
  void merge(const ValueDecl *decl, const ValueDecl *from) {
    auto it = known_.find(from);
    if (it == known_.end())
      return;
    SourceTypes &out = out_[decl];
    out.ranks.insert(it->second.ranks.begin(), it->second.ranks.end());
    out.elements.insert(it->second.elements.begin(), it->second.elements.end());
    out.undefined |= it->second.undefined;
  }

  void noteElement(const ValueDecl *decl, const Expr *e) {
    if (isUndefinedTensor(e)) {
      out_[decl].undefined = true;
      return;
    }
    ExprTypes t = typer_.of(e);
    if (t.rank)
      out_[decl].ranks.insert(*t.rank);
    if (t.element)
      out_[decl].elements.insert(*t.element);
  }

  /// What an aggregate initialization stores in `record`'s fields, from
  /// its inits in the semantic order (the bases', then one per named
  /// field, as CodeGen reads them).
  void noteFields(const CXXRecordDecl *record,
                  llvm::ArrayRef<const Expr *> inits) {
    if (!record || record->isUnion() || isTensorRecord(record))
      return;
    size_t i = std::min<size_t>(record->getNumBases(), inits.size());
    for (const FieldDecl *field : record->fields()) {
      if (field->isUnnamedBitField())
        continue;
      const Expr *init = i < inits.size() ? inits[i++] : nullptr;
      if (!init) {
        // Left out: value-initialized, an undefined tensor.
        if (isTensorType(field->getType()))
          out_[field].undefined = true;
        continue;
      }
      // Left out for its default member initializer: noted at the field.
      if (!isa<CXXDefaultInitExpr>(init))
        note(field, init);
    }
  }

  // Aggregate initialisation: Block b{randn({C}, 1), ...}, Sampler
  // s{w, schedule(10)}. The visitor sees the list as written; its semantic
  // form has one init per field (designators and brace elision resolved,
  // left-out fields value- or default-initialized).
  bool VisitInitListExpr(InitListExpr *list) {
    const InitListExpr *semantic =
        list->isSemanticForm() ? list : list->getSemanticForm();
    if (!semantic)
      return true;
    noteFields(semantic->getType()->getAsCXXRecordDecl(),
               llvm::ArrayRef<const Expr *>(semantic->getInits(),
                                            semantic->getNumInits()));
    return true;
  }
  // C++20's aggregate initialization with parentheses: Block b(w, bias).
  bool VisitCXXParenListInitExpr(CXXParenListInitExpr *list) {
    noteFields(list->getType()->getAsCXXRecordDecl(),
               llvm::ArrayRef<const Expr *>(list->getInitExprs().data(),
                                            list->getInitExprs().size()));
    return true;
  }
  // Arguments of constructors of the user's: `Sampler s(w, schedule(10))`
  // shows the parameters that its member initializers store.
  bool VisitCXXConstructExpr(CXXConstructExpr *construct) {
    const CXXConstructorDecl *ctor = construct->getConstructor();
    if (ctor && !ctor->isCopyOrMoveConstructor() &&
        !isTensorRecord(ctor->getParent()))
      noteArguments(ctor, llvm::ArrayRef<const Expr *>(
                              construct->getArgs(), construct->getNumArgs()));
    return true;
  }
  // Constructors' member initializers.
  bool VisitCXXConstructorDecl(CXXConstructorDecl *ctor) {
    for (const CXXCtorInitializer *init : ctor->inits())
      if (init->isMemberInitializer())
        note(init->getMember(), init->getInit());
    return true;
  }
  // Default member initializers.
  bool VisitFieldDecl(FieldDecl *field) {
    if (field->hasInClassInitializer())
      note(field, field->getInClassInitializer());
    return true;
  }
  // A function's returns (what its callers' results are, beyond the
  // depth one call is typed to).
  bool VisitFunctionDecl(FunctionDecl *fn) {
    if (!fn->doesThisDeclarationHaveABody() || fn->isDependentContext() ||
        !isTensorType(fn->getReturnType()))
      return true;
    std::vector<const ReturnStmt *> returns;
    ExprTyper::collectReturns(fn->getBody(), returns);
    for (const ReturnStmt *ret : returns)
      if (ret->getRetValue()) {
        ExprTypes t = typer_.of(ret->getRetValue());
        SourceTypes &out = out_[fn];
        if (t.rank)
          out.ranks.insert(*t.rank);
        if (t.element)
          out.elements.insert(*t.element);
      }
    return true;
  }
  // Locals: Tensor h = ...; std::vector<Tensor> ws{a, b};
  bool VisitVarDecl(VarDecl *var) {
    if (!isa<ParmVarDecl>(var) && var->getInit())
      note(var, var->getInit());
    return true;
  }
  // for (const Tensor &w : ws): w is what ws's elements are; over a braced
  // list, what its items are.
  bool VisitCXXForRangeStmt(CXXForRangeStmt *loop) {
    const VarDecl *var = loop->getLoopVariable();
    const Expr *range = loop->getRangeInit();
    if (!var || !range || !isTensorType(var->getType()))
      return true;
    if (std::optional<llvm::ArrayRef<const Expr *>> items =
            ExprTyper::listItems(range)) {
      for (const Expr *item : *items)
        noteElement(var, item);
    } else if (const ValueDecl *vector = declOf(range);
               vector && isTensorVectorType(vector->getType())) {
      merge(var, vector);
    }
    return true;
  }
  // ws.push_back(x), ws.emplace_back(x): one more element.
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *call) {
    const CXXMethodDecl *method = call->getMethodDecl();
    const ValueDecl *vector = declOf(call->getImplicitObjectArgument());
    if (method && vector && method->getIdentifier() &&
        (method->getName() == "push_back" ||
         method->getName() == "emplace_back") &&
        call->getNumArgs() == 1 && isTensorVectorType(vector->getType()))
      noteElement(vector, call->getArg(0));
    return true;
  }
  // obj.field = ...; and x = ...; on tensors.
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *op) {
    if (op->getOperator() != OO_Equal || op->getNumArgs() != 2)
      return true;
    const Expr *lhs = op->getArg(0)->IgnoreParenImpCasts();
    if (const auto *m = dyn_cast<MemberExpr>(lhs))
      note(m->getMemberDecl(), op->getArg(1));
    else if (const auto *ref = dyn_cast<DeclRefExpr>(lhs))
      note(ref->getDecl(), op->getArg(1));
    return true;
  }
  // Arguments of calls: a parameter's callers show its type.
  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *fn = call->getDirectCallee();
    if (!fn)
      return true;
    unsigned offset =
        isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(fn) ? 1 : 0;
    noteArguments(
        fn, llvm::ArrayRef<const Expr *>(call->getArgs(), call->getNumArgs())
                .drop_front(offset));
    return true;
  }
  /// fn's parameters, each shown what `args` passes for it.
  void noteArguments(const FunctionDecl *fn,
                     llvm::ArrayRef<const Expr *> args) {
    for (unsigned i = 0; i < args.size() && i < fn->getNumParams(); ++i) {
      note(fn->getParamDecl(i), args[i]);
      // Every redeclaration's parameter is the same parameter.
      if (const FunctionDecl *def = fn->getDefinition())
        if (def != fn && i < def->getNumParams())
          note(def->getParamDecl(i), args[i]);
    }
  }

private:
  ExprTyper typer_;
  const TypeEvidence &known_;
  TypeEvidence &out_;
};

} // namespace

namespace {
/// Finds writes to one local other than its initializer.
class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  explicit WriteFinder(const VarDecl *var) : var_(var) {}
  bool found = false;

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *op) {
    if (op->isAssignmentOp() && op->getNumArgs() >= 1 && names(op->getArg(0)))
      found = true;
    return !found;
  }
  bool VisitBinaryOperator(BinaryOperator *op) {
    if (op->isAssignmentOp() && names(op->getLHS()))
      found = true;
    return !found;
  }
  bool VisitUnaryOperator(UnaryOperator *op) {
    if (op->getOpcode() == UO_AddrOf && names(op->getSubExpr()))
      found = true;
    return !found;
  }
  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *fn = call->getDirectCallee();
    unsigned offset =
        fn && isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(fn) ? 1 : 0;
    for (unsigned i = 0; i + offset < call->getNumArgs(); ++i) {
      if (!names(call->getArg(i + offset)))
        continue;
      // Unknown callees and non-const references may write it.
      if (!fn || i >= fn->getNumParams()) {
        found = !fn || !fn->isVariadic();
      } else {
        QualType t = fn->getParamDecl(i)->getType();
        found =
            t->isReferenceType() && !t.getNonReferenceType().isConstQualified();
      }
      if (found)
        return false;
    }
    // A non-const method called on it.
    if (const auto *m = dyn_cast<CXXMemberCallExpr>(call))
      if (names(m->getImplicitObjectArgument()))
        if (const CXXMethodDecl *method = m->getMethodDecl();
            !method || !method->isConst())
          found = true;
    return !found;
  }
  bool VisitLambdaExpr(LambdaExpr *lambda) {
    for (const LambdaCapture &c : lambda->captures())
      if (c.capturesVariable() && c.getCaptureKind() == LCK_ByRef &&
          c.getCapturedVar() == var_)
        found = true;
    return !found;
  }

private:
  bool names(const Expr *e) const {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == var_;
  }
  const VarDecl *var_;
};

/// The locals an expression reads by name.
class LocalReads : public RecursiveASTVisitor<LocalReads> {
public:
  std::set<const VarDecl *> vars;
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      if (var->hasLocalStorage())
        vars.insert(var);
    return true;
  }
};
} // namespace

bool onlyInitialized(const VarDecl *var) {
  const auto *fn =
      dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
  if (!fn || !fn->getBody() || !var->getInit())
    return false;
  WriteFinder finder(var);
  finder.TraverseStmt(fn->getBody());
  return !finder.found;
}

std::pair<int64_t, std::optional<ElementType>> typeInitializerWith(
    ASTContext &context, const TypeEvidence &evidence, const VarDecl *var,
    const std::function<std::optional<std::pair<int64_t, ElementType>>(
        const VarDecl *)> &given) {
  TypeEvidence known = evidence;
  // The locals it reads, and those that host locals between read
  // (`t5 = host_step(t4)` where `t4 = host_step(t3)` and an earlier graph
  // left t3): each given type stated, each host local that only its
  // declaration sets and that the source leaves untyped followed to its
  // initializer.
  LocalReads reads;
  reads.TraverseStmt(const_cast<Expr *>(var->getInit()));
  std::vector<const VarDecl *> work(reads.vars.begin(), reads.vars.end());
  std::set<const VarDecl *> seen{var};
  while (!work.empty()) {
    const VarDecl *read = work.back();
    work.pop_back();
    if (!seen.insert(read).second)
      continue;
    if (std::optional<std::pair<int64_t, ElementType>> t = given(read)) {
      SourceTypes &types = known[read];
      types.ranks = {t->first};
      types.elements = {t->second};
      continue;
    }
    auto it = known.find(read);
    bool typed = it != known.end() && it->second.ranks.size() == 1 &&
                 it->second.elements.size() == 1;
    if (typed || isa<ParmVarDecl>(read) || !read->getInit() ||
        !onlyInitialized(read))
      continue;
    if (it != known.end())
      known.erase(it);
    LocalReads more;
    more.TraverseStmt(const_cast<Expr *>(read->getInit()));
    work.insert(work.end(), more.vars.begin(), more.vars.end());
  }
  ExprTypes t = ExprTyper(context, known).of(var->getInit());
  return {t.rank ? *t.rank : -1, t.element};
}

std::string callSiteKey(const FunctionDecl *fn) {
  PrintingPolicy policy(fn->getASTContext().getLangOpts());
  policy.FullyQualifiedName = true;
  std::string key = fn->getQualifiedNameAsString() + "(";
  for (unsigned i = 0; i < fn->getNumParams(); ++i)
    key +=
        (i ? ", " : "") +
        fn->getParamDecl(i)->getType().getCanonicalType().getAsString(policy);
  key += ")";
  if (const auto *method = dyn_cast<CXXMethodDecl>(fn);
      method && method->isConst())
    key += " const";
  return key;
}

namespace {
/// The functions of a translation unit, declared or defined, outside
/// system headers (the program's own: a library's callers are no evidence
/// of the program's types, and keying each of its functions would cost).
class Functions : public RecursiveASTVisitor<Functions> {
public:
  explicit Functions(const SourceManager &sm) : sm_(sm) {}
  std::vector<const FunctionDecl *> all;
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *fn) {
    if (!sm_.isInSystemHeader(sm_.getExpansionLoc(fn->getLocation())))
      all.push_back(fn);
    return true;
  }

private:
  const SourceManager &sm_;
};

void unite(SourceTypes &into, const SourceTypes &from) {
  into.ranks.insert(from.ranks.begin(), from.ranks.end());
  into.elements.insert(from.elements.begin(), from.elements.end());
  into.undefined |= from.undefined;
}
} // namespace

void exportCallSites(ASTContext &context, const TypeEvidence &evidence,
                     CallSites &out) {
  Functions functions(context.getSourceManager());
  functions.TraverseDecl(context.getTranslationUnitDecl());
  for (const FunctionDecl *fn : functions.all) {
    if (fn->getDefinition() || fn->getNumParams() == 0)
      continue; // defined here: its call sites are this file's own
    std::vector<SourceTypes> params(fn->getNumParams());
    bool any = false;
    for (unsigned i = 0; i < fn->getNumParams(); ++i)
      if (auto it = evidence.find(fn->getParamDecl(i)); it != evidence.end()) {
        params[i] = it->second;
        any = true;
      }
    if (!any)
      continue;
    std::vector<SourceTypes> &entry = out[callSiteKey(fn)];
    entry.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i)
      unite(entry[i], params[i]);
  }
}

TypeEvidence collectTypeEvidence(ASTContext &context,
                                 const CallSites *elsewhere) {
  // The parameters of the functions defined here that other sources call.
  std::vector<std::pair<const ParmVarDecl *, const SourceTypes *>> called;
  if (elsewhere && !elsewhere->empty()) {
    Functions functions(context.getSourceManager());
    functions.TraverseDecl(context.getTranslationUnitDecl());
    for (const FunctionDecl *fn : functions.all) {
      if (!fn->doesThisDeclarationHaveABody())
        continue;
      auto it = elsewhere->find(callSiteKey(fn));
      if (it == elsewhere->end() || it->second.size() != fn->getNumParams())
        continue;
      for (unsigned i = 0; i < fn->getNumParams(); ++i)
        called.push_back({fn->getParamDecl(i), &it->second[i]});
    }
  }
  // Each pass reads what the one before found for parameters and members
  // (a local initialized from a parameter, a parameter passed on through a
  // chain of calls), until nothing changes.
  constexpr int kMaxPasses = 8;
  TypeEvidence known;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    TypeEvidence next;
    Collector(context, known, next)
        .TraverseDecl(context.getTranslationUnitDecl());
    for (const auto &[param, types] : called)
      if (!types->ranks.empty() || !types->elements.empty() || types->undefined)
        unite(next[param], *types);
    bool same = next == known;
    known = std::move(next);
    if (same)
      break;
  }
  return known;
}

} // namespace kiln::frontend
