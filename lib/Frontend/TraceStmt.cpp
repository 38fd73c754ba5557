//===- TraceStmt.cpp - Statements: segments and host code -----------------===//
#include "Tracer.h"

#include "clang/AST/Decl.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace kiln::frontend {

void Tracer::traceBlock(const CompoundStmt *block) {
  std::vector<const Stmt *> body(block->body_begin(), block->body_end());
  traceStatements(body, /*braced=*/true);
}

void Tracer::traceStatements(const std::vector<const Stmt *> &body, bool braced) {
  size_t guards = frames_.back().guards.size();
  for (const Stmt *s : body) {
    // A nested block of the root is a scope of its own, not a break.
    if (const auto *nested = dyn_cast<CompoundStmt>(s)) {
      finishSegment();
      traceBlock(nested);
      continue;
    }
    if (!segment_) {
      startSegment();
      segment_->segment.braced = braced;
    }
    // Trace the statement speculatively: on a break, undo what it added.
    SegmentState saved = *segment_;
    pendingBreak_.reset();
    if (traceStmt(s)) {
      segment_->segment.statements.push_back(s);
      if (const auto *decl = dyn_cast<DeclStmt>(s))
        for (const Decl *d : decl->decls())
          if (const auto *var = dyn_cast<VarDecl>(d))
            if (!isErrorGuardType(var->getType()))
              segment_->segment.declared.push_back(var);
      if (isa<ReturnStmt>(s)) {
        segment_->segment.endsWithReturn = true;
        finishSegment();
      }
      continue;
    }
    *segment_ = std::move(saved);
    finishSegment();
    if (pendingBreak_) {
      root_->breaks.push_back(*pendingBreak_);
      pendingBreak_.reset();
    }
    traceHostStmt(s);
  }
  finishSegment();
  frames_.back().guards.resize(guards);
}

void Tracer::traceHostStmt(const Stmt *s) {
  // The blocks a host statement holds are traced on their own: a loop whose
  // trip count is unknown stays on the host and its body becomes graphs.
  auto block = [&](const Stmt *body) {
    if (!body)
      return;
    if (const auto *c = dyn_cast<CompoundStmt>(body))
      traceBlock(c);
    else
      traceStatements({body}, /*braced=*/false);
  };
  if (const auto *c = dyn_cast<CompoundStmt>(s)) {
    traceBlock(c);
  } else if (const auto *i = dyn_cast<IfStmt>(s)) {
    block(i->getThen());
    block(i->getElse());
  } else if (const auto *f = dyn_cast<ForStmt>(s)) {
    block(f->getBody());
  } else if (const auto *w = dyn_cast<WhileStmt>(s)) {
    block(w->getBody());
  } else if (const auto *d = dyn_cast<DoStmt>(s)) {
    block(d->getBody());
  } else if (const auto *r = dyn_cast<CXXForRangeStmt>(s)) {
    block(r->getBody());
  }
}

bool Tracer::traceStmt(const Stmt *s) {
  if (const auto *decl = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : decl->decls()) {
      const auto *var = dyn_cast<VarDecl>(d);
      if (!var) {
        breakAt(d->getLocation(), "a declaration the tracer does not model");
        return false;
      }
      if (!traceDecl(var))
        return false;
    }
    return true;
  }
  if (const auto *ret = dyn_cast<ReturnStmt>(s)) {
    const Expr *value = ret->getRetValue();
    if (!value) {
      breakAt(ret->getBeginLoc(), "a return without a value");
      return false;
    }
    std::optional<int> v = traceExpr(value);
    if (!v)
      return false;
    if (frames_.size() > 1) {
      frames_.back().returnValue = *v;
      return true;
    }
    if (kindOf(*v) != ValueKind::Tensor) {
      breakAt(ret->getBeginLoc(), "a return of a host scalar");
      return false;
    }
    graph().outputs.push_back({*v, ""});
    return true;
  }
  if (const auto *e = dyn_cast<Expr>(s)) {
    const Expr *inner = e->IgnoreImplicit();
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(inner))
      if (op->getOperator() == OO_Equal)
        return traceAssignment(op->getArg(0), op->getArg(1), op->getExprLoc());
    if (const auto *op = dyn_cast<BinaryOperator>(inner))
      if (op->getOpcode() == BO_Assign)
        return traceAssignment(op->getLHS(), op->getRHS(), op->getExprLoc());
    // A call for its effect: kiln::graph_break(), a disabled or opaque
    // function (each a break), or an inlined callee.
    std::optional<int> v = traceExpr(inner);
    return v.has_value();
  }
  if (const auto *c = dyn_cast<CompoundStmt>(s)) {
    if (frames_.size() > 1) {
      for (const Stmt *child : c->body())
        if (!traceStmt(child))
          return false;
      return true;
    }
    breakAt(s->getBeginLoc(), "a nested block");
    return false;
  }
  if (isa<NullStmt>(s))
    return true;
  if (const auto *i = dyn_cast<IfStmt>(s)) {
    // A condition on tensor data breaks where it reads the data (item());
    // one on host values stays a host branch for now.
    if (traceExpr(i->getCond()))
      breakAt(i->getIfLoc(), "an if statement (branches on host values are "
                             "not traced into graphs yet)");
    return false;
  }
  if (const auto *w = dyn_cast<WhileStmt>(s)) {
    if (traceExpr(w->getCond()))
      breakAt(s->getBeginLoc(),
              "a loop whose trip count is not a compile-time constant");
    return false;
  }
  if (isa<ForStmt, DoStmt, CXXForRangeStmt>(s)) {
    breakAt(s->getBeginLoc(),
            "a loop whose trip count is not a compile-time constant");
    return false;
  }
  if (isa<CXXTryStmt, CXXThrowExpr>(s)) {
    breakAt(s->getBeginLoc(), "exceptions");
    return false;
  }
  if (isa<GotoStmt, LabelStmt>(s)) {
    breakAt(s->getBeginLoc(), "goto");
    return false;
  }
  if (isa<AsmStmt>(s)) {
    breakAt(s->getBeginLoc(), "inline assembly");
    return false;
  }
  breakAt(s->getBeginLoc(), std::string("a statement the tracer does not model (") +
                                s->getStmtClassName() + ")");
  return false;
}

bool Tracer::traceDecl(const VarDecl *var) {
  if (isErrorGuardType(var->getType())) {
    // kiln::error_on_graph_break guard(b): the mode until the block ends.
    const Expr *init = var->getInit();
    const auto *construct =
        init ? dyn_cast<CXXConstructExpr>(init->IgnoreImplicit()) : nullptr;
    std::optional<int64_t> value;
    if (construct && construct->getNumArgs() == 1) {
      bool b;
      if (construct->getArg(0)->EvaluateAsBooleanCondition(b, context_))
        value = b;
    }
    if (!value) {
      breakAt(var->getLocation(),
              "error_on_graph_break with a value that is not a constant");
      return false;
    }
    frames_.back().guards.push_back(*value != 0);
    return true;
  }
  std::optional<ValueKind> kind = valueKindOf(var->getType());
  if (!kind) {
    breakAt(var->getLocation(), "a local of type '" +
                                    var->getType().getAsString() +
                                    "', which the tracer does not model");
    return false;
  }
  if (var->isStaticLocal()) {
    breakAt(var->getLocation(), "a static local");
    return false;
  }
  const Expr *init = var->getInit();
  if (!init) {
    breakAt(var->getLocation(), "a local without an initial value");
    return false;
  }
  std::optional<int> v = traceExpr(init);
  if (!v)
    return false;
  if (*kind != ValueKind::Tensor && kindOf(*v) != *kind)
    v = addOp("scalar.cast", {*v}, *kind, var->getLocation());
  if (frames_.size() > 1) {
    frames_.back().locals[var] = *v;
  } else {
    segment_->env[var] = *v;
    segment_->assigned.insert(var);
  }
  return true;
}

bool Tracer::traceAssignment(const Expr *lhs, const Expr *rhs, SourceLocation loc) {
  const auto *ref = dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts());
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !valueKindOf(var->getType())) {
    breakAt(loc, "an assignment to something other than a local variable");
    return false;
  }
  std::optional<int> v = traceExpr(rhs);
  if (!v)
    return false;
  ValueKind kind = *valueKindOf(var->getType());
  if (kind != ValueKind::Tensor && kindOf(*v) != kind)
    v = addOp("scalar.cast", {*v}, kind, loc);
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) {
    if (f->locals.count(var)) {
      f->locals[var] = *v;
      return true;
    }
  }
  if (frames_.size() > 1 && !segment_->env.count(var) &&
      var->getDeclContext() != root_->function) {
    breakAt(loc, "an assignment to a variable of another scope");
    return false;
  }
  segment_->env[var] = *v;
  segment_->assigned.insert(var);
  return true;
}

} // namespace kiln::frontend
