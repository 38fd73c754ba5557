//===- RankEvidence.cpp - Ranks of tensors the source shows ---------------===//
//
// A graph needs the rank of each tensor it reads. Where the translation unit
// shows it, the source decides: a member initialized or assigned with
// kiln::randn({C}, 1), a parameter whose callers pass kiln::zeros({B, T, C})
// or a local made that way. Only shapes written as braced lists count;
// anything else says nothing.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace kiln::frontend {

namespace {

/// The length of a braced shape list, if e is one.
std::optional<int64_t> listLength(const Expr *e) {
  e = stripTemporaries(e);
  if (const auto *c = dyn_cast<CXXConstructExpr>(e))
    if (c->getNumArgs() >= 1)
      e = stripTemporaries(c->getArg(0));
  if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(e))
    e = stripTemporaries(il->getSubExpr());
  if (const auto *list = dyn_cast<InitListExpr>(e))
    return static_cast<int64_t>(list->getNumInits());
  return std::nullopt;
}

/// The rank of a tensor expression when the source spells it.
std::optional<int64_t> staticRank(const Expr *e, int depth = 0) {
  if (depth > 4)
    return std::nullopt;
  e = stripTemporaries(e);
  if (const auto *c = dyn_cast<CXXConstructExpr>(e))
    if (c->getNumArgs() == 1)
      return staticRank(c->getArg(0), depth + 1);
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      if (var->getInit() && isTensorType(var->getType()))
        return staticRank(var->getInit(), depth + 1);
  if (const auto *call = dyn_cast<CallExpr>(e)) {
    const FunctionDecl *fn = call->getDirectCallee();
    if (!fn || !fn->getIdentifier())
      return std::nullopt;
    llvm::StringRef name = fn->getName();
    if (const auto *m = dyn_cast<CXXMemberCallExpr>(e)) {
      if ((name == "reshape" || name == "view") && m->getNumArgs() == 1)
        return listLength(m->getArg(0));
      if (name == "to" || name == "contiguous" || name == "clone")
        return staticRank(m->getImplicitObjectArgument(), depth + 1);
      return std::nullopt;
    }
    if ((name == "randn" || name == "zeros" || name == "ones" ||
         name == "full" || name == "empty") &&
        call->getNumArgs() >= 1)
      return listLength(call->getArg(0));
    if (name == "from_vector" && call->getNumArgs() == 2)
      return listLength(call->getArg(1));
  }
  return std::nullopt;
}

class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(RankEvidence &out) : out_(out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  void note(const ValueDecl *decl, const Expr *e) {
    if (decl && e && isTensorType(decl->getType()))
      if (std::optional<int64_t> r = staticRank(e))
        out_[decl].insert(*r);
  }

  // Aggregate initialisation: Block b{randn({C}, 1), ...}.
  bool VisitInitListExpr(InitListExpr *list) {
    const auto *record = list->getType()->getAsCXXRecordDecl();
    if (!record || isTensorType(list->getType()))
      return true;
    unsigned i = 0;
    for (const FieldDecl *field : record->fields()) {
      if (i >= list->getNumInits())
        break;
      note(field, list->getInit(i++));
    }
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
  // obj.field = ...; and x = ... on tensors.
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *op) {
    if (op->getOperator() != OO_Equal || op->getNumArgs() != 2)
      return true;
    const Expr *lhs = op->getArg(0)->IgnoreParenImpCasts();
    if (const auto *m = dyn_cast<MemberExpr>(lhs))
      note(m->getMemberDecl(), op->getArg(1));
    return true;
  }
  // Arguments of calls: a parameter's callers show its rank.
  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *fn = call->getDirectCallee();
    if (!fn)
      return true;
    unsigned offset =
        isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(fn) ? 1 : 0;
    for (unsigned i = 0;
         i + offset < call->getNumArgs() && i < fn->getNumParams(); ++i) {
      const ParmVarDecl *p = fn->getParamDecl(i);
      note(p, call->getArg(i + offset));
      // Every redeclaration's parameter is the same parameter.
      if (const FunctionDecl *def = fn->getDefinition())
        if (def != fn && i < def->getNumParams())
          note(def->getParamDecl(i), call->getArg(i + offset));
    }
    return true;
  }

private:
  RankEvidence &out_;
};

} // namespace

RankEvidence collectRankEvidence(ASTContext &context) {
  RankEvidence evidence;
  Collector collector(evidence);
  collector.TraverseDecl(context.getTranslationUnitDecl());
  return evidence;
}

} // namespace kiln::frontend
