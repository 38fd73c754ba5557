//===- TraceStmt.cpp - Statements: segments and host code -----------------===//
#include "Tracer.h"

#include "clang/AST/Decl.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;

namespace kiln::frontend {

void Tracer::traceBlock(const CompoundStmt *block) {
  std::vector<const Stmt *> body(block->body_begin(), block->body_end());
  traceStatements(body, /*braced=*/true);
}

void Tracer::bind(const ValueDecl *var, int value) {
  if (frames_.size() > 1)
    frames_.back().locals[var] = value;
  else
    segment_->env.set(var, value);
}

void Tracer::unbind(const ValueDecl *var) {
  if (frames_.size() > 1)
    frames_.back().locals.erase(var);
  else
    segment_->env.erase(var);
}

Tracer::SegmentCheckpoint Tracer::checkpoint() {
  Segment &seg = segment_->segment;
  BodyMark body = markBody(seg.graph);
  std::vector<TraceValue> values = std::move(seg.graph.values);
  std::vector<const Stmt *> statements = std::move(seg.statements);
  auto env = std::move(segment_->env);
  auto assigned = std::move(segment_->assigned);
  SegmentCheckpoint c{*segment_,         body,       values.size(),
                      statements.size(), env.mark(), assigned.mark()};
  seg.graph.values = std::move(values);
  seg.statements = std::move(statements);
  segment_->env = std::move(env);
  segment_->assigned = std::move(assigned);
  return c;
}

void Tracer::restore(const SegmentCheckpoint &c) {
  Segment &seg = segment_->segment;
  assert(seg.graph.values.size() >= c.values &&
         seg.statements.size() >= c.statements);
  cutBody(seg.graph, c.body);
  std::vector<TraceValue> values = std::move(seg.graph.values);
  std::vector<const Stmt *> statements = std::move(seg.statements);
  auto env = std::move(segment_->env);
  auto assigned = std::move(segment_->assigned);
  env.undoTo(c.env);
  assigned.undoTo(c.assigned);
  values.erase(values.begin() + c.values, values.end());
  statements.erase(statements.begin() + c.statements, statements.end());
  *segment_ = c.rest;
  seg.graph.values = std::move(values);
  seg.statements = std::move(statements);
  segment_->env = std::move(env);
  segment_->assigned = std::move(assigned);
}

void Tracer::traceStatements(const std::vector<const Stmt *> &body,
                             bool braced) {
  size_t guards = frames_.back().guards.size();
  // The std::vector<Tensor> locals the current segment declared: the
  // statement declaring each and the segment before it.
  std::map<const ValueDecl *, std::pair<size_t, SegmentCheckpoint>> lists;
  // Before the segment ends: a list that code after it reads must be the
  // host's; tracing goes back to its declaration, which then breaks.
  auto escapes = [&](size_t &index) {
    if (!segment_ || segment_->segment.statements.empty())
      return false;
    SourceLocation begin = segment_->segment.statements.front()->getBeginLoc();
    SourceLocation end = segment_->segment.statements.back()->getEndLoc();
    const std::pair<size_t, SegmentCheckpoint> *back = nullptr;
    for (auto &[var, at] : lists)
      if (isLiveOut(var, begin, end)) {
        hostLists_.insert(var);
        if (!back || at.first < back->first)
          back = &at;
      }
    if (!back)
      return false;
    restore(back->second);
    index = back->first;
    lists.clear();
    return true;
  };
  for (size_t i = 0; i < body.size(); ++i) {
    const Stmt *s = body[i];
    // A nested block of the root is a scope of its own, not a break.
    if (const auto *nested = dyn_cast<CompoundStmt>(s)) {
      if (escapes(i)) {
        --i;
        continue;
      }
      finishSegment();
      lists.clear();
      traceBlock(nested);
      continue;
    }
    if (!segment_) {
      startSegment();
      segment_->segment.braced = braced;
    }
    // Trace the statement speculatively: on a break, undo what it added.
    SegmentCheckpoint saved = checkpoint();
    pendingBreak_.reset();
    topLevelStmt_ = s;
    declaredLists_.clear();
    // An early return (`if (t == 0) return x;` and more statements): the
    // if and everything after it are one segment that returns the value
    // the condition chooses; if that does not trace, the if alone breaks.
    if (frames_.size() == 1 && isEarlyReturn(s) && i + 1 < body.size()) {
      frames_.back().returnValue.reset();
      if (traceIf(cast<IfStmt>(s), llvm::ArrayRef(body).drop_front(i + 1)) &&
          frames_.back().returnValue) {
        graph().outputs.push_back({*frames_.back().returnValue, ""});
        frames_.back().returnValue.reset();
        segment_->segment.statements.insert(segment_->segment.statements.end(),
                                            body.begin() + i, body.end());
        segment_->segment.endsWithReturn = true;
        finishSegment();
        lists.clear();
        i = body.size();
        break;
      }
      frames_.back().returnValue.reset();
      restore(saved);
      pendingBreak_.reset();
      declaredLists_.clear();
    }
    if (traceStmt(s)) {
      for (const ValueDecl *var : declaredLists_)
        lists.emplace(var, std::make_pair(i, saved));
      segment_->segment.statements.push_back(s);
      if (isa<ReturnStmt>(s)) {
        segment_->segment.endsWithReturn = true;
        if (escapes(i)) {
          --i;
          continue;
        }
        finishSegment();
        lists.clear();
      }
      continue;
    }
    restore(saved);
    if (escapes(i)) {
      --i;
      continue;
    }
    finishSegment();
    lists.clear();
    if (pendingBreak_) {
      root_->breaks.push_back(*pendingBreak_);
      pendingBreak_.reset();
    }
    traceHostStmt(s);
  }
  size_t end = body.size();
  if (escapes(end)) { // read after the block (a loop's next iteration)
    traceStatements(std::vector<const Stmt *>(body.begin() + end, body.end()),
                    braced);
    frames_.back().guards.resize(guards);
    return;
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
  auto loopBody = [&](const Stmt *body) {
    hostLoops_.push_back(s);
    block(body);
    hostLoops_.pop_back();
  };
  if (const auto *c = dyn_cast<CompoundStmt>(s)) {
    traceBlock(c);
  } else if (const auto *i = dyn_cast<IfStmt>(s)) {
    block(i->getThen());
    block(i->getElse());
  } else if (const auto *f = dyn_cast<ForStmt>(s)) {
    loopBody(f->getBody());
  } else if (const auto *w = dyn_cast<WhileStmt>(s)) {
    loopBody(w->getBody());
  } else if (const auto *d = dyn_cast<DoStmt>(s)) {
    loopBody(d->getBody());
  } else if (const auto *r = dyn_cast<CXXForRangeStmt>(s)) {
    loopBody(r->getBody());
  }
}

bool Tracer::traceOverList(const CXXForRangeStmt *r, std::vector<int> values) {
  // Over a std::vector<Tensor> the graph built: unrolled.
  const VarDecl *var = r->getLoopVariable();
  for (int v : values) {
    bind(var, v);
    std::optional<int> returnBefore = frames_.back().returnValue;
    if (!traceStmt(r->getBody()))
      return false;
    if (frames_.back().returnValue != returnBefore)
      break; // the function returned in this iteration
  }
  unbind(var);
  return true;
}

bool declaresNamesOnly(const Decl *decl) {
  return isa<UsingDecl, UsingDirectiveDecl, UsingEnumDecl, TypedefNameDecl,
             NamespaceAliasDecl, StaticAssertDecl>(decl);
}

const LambdaExpr *lambdaOf(const VarDecl *var) {
  return var->getInit() ? dyn_cast<LambdaExpr>(stripTemporaries(var->getInit()))
                        : nullptr;
}

bool Tracer::traceStmt(const Stmt *s) {
  if (const auto *decl = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : decl->decls()) {
      if (declaresNamesOnly(d))
        continue; // Clang has resolved the names it introduces
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
    if (std::vector<const Expr *> parts;
        frames_.size() == 1 && returnedBraces(value, parts)) {
      if (s != topLevelStmt_) {
        breakAt(ret->getBeginLoc(), "a return inside a branch or a loop");
        return false;
      }
      return traceBracedReturn(parts);
    }
    // A struct: a callee's `return {a, b};` or `return o;`. One the root
    // did not build here (a local of an earlier segment) is returned by
    // host code.
    QualType returnType = frames_.back().function->getReturnType();
    if (frames_.size() == 1 && recordModelOf(returnType) &&
        !holdsRecord(value, 0))
      return false;
    std::optional<int> v =
        recordModelOf(returnType) && !returnType->isReferenceType()
            ? traceRecordInit(returnType, value, ret->getBeginLoc())
            : traceExpr(value);
    if (!v)
      return false;
    if (isRecordValue(*v) && frames_.size() == 1) {
      // The root returns a struct it holds (`return block(x);`): each
      // field is an output, returned in a struct of the same type.
      if (s != topLevelStmt_ || rootReturnArms_ > 0) {
        breakAt(ret->getBeginLoc(), "a struct returned inside a branch or a "
                                    "loop");
        return false;
      }
      std::optional<RecordModel> model = recordModelOf(returnType);
      for (size_t i = 0; i < fieldsOf(*v).size(); ++i) {
        if (fieldsOf(*v)[i] == kUndefinedTensor) {
          breakAt(ret->getBeginLoc(), "a returned struct with a tensor field "
                                      "that is not defined");
          return false;
        }
        graph().outputs.push_back({fieldsOf(*v)[i],
                                   model->spellField("kiln_record_", i),
                                   static_cast<int>(i)});
      }
      segment_->segment.returnsRecord = true;
      return true;
    }
    if (frames_.size() > 1 ||
        (rootReturnArms_ > 0 && kindOf(*v) == ValueKind::Tensor)) {
      frames_.back().returnValue = *v;
      return true;
    }
    // The root's return ends its segment; one inside a branch or an
    // unrolled loop would be a second, conditional output of the graph,
    // which graphs cannot express: the statement holding it runs on the
    // host, its blocks traced on their own.
    if (s != topLevelStmt_) {
      breakAt(ret->getBeginLoc(), "a return inside a branch or a loop");
      return false;
    }
    // A host scalar (a size, a flag) is returned by host code: the
    // statement stays on the host without breaking anything.
    if (kindOf(*v) != ValueKind::Tensor)
      return false;
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
    size_t guards = frames_.back().guards.size();
    bool ok = true;
    std::vector<const Stmt *> body(c->body_begin(), c->body_end());
    std::optional<int> returnBefore = frames_.back().returnValue;
    for (size_t k = 0; k < body.size() && ok; ++k) {
      if (isEarlyReturn(body[k]) && k + 1 < body.size()) {
        ok = traceIf(cast<IfStmt>(body[k]),
                     llvm::ArrayRef(body).drop_front(k + 1));
        break;
      }
      ok = traceStmt(body[k]);
      // What follows a return (here or in an unrolled loop) never runs.
      if (frames_.back().returnValue != returnBefore)
        break;
    }
    frames_.back().guards.resize(guards);
    return ok;
  }
  if (isa<NullStmt>(s))
    return true;
  if (const auto *i = dyn_cast<IfStmt>(s))
    return traceIf(i);
  if (const auto *f = dyn_cast<ForStmt>(s))
    return traceFor(f);
  if (const auto *w = dyn_cast<WhileStmt>(s)) {
    // A condition on tensor data breaks where it reads the data (item()).
    if (traceExpr(w->getCond()))
      hostLoopAt(s->getBeginLoc());
    return false;
  }
  if (const auto *r = dyn_cast<CXXForRangeStmt>(s);
      r && isPiecesCall(r->getRangeInit())) {
    // for (const Tensor &part : x.chunk(4, 1)): over the pieces, unrolled.
    std::vector<int> pieces;
    if (!tracePieces(r->getRangeInit(), -1, pieces))
      return false;
    return traceOverList(r, pieces);
  }
  if (const auto *r = dyn_cast<CXXForRangeStmt>(s))
    if (std::vector<int> *list = listOf(r->getRangeInit()))
      return traceOverList(r, *list); // a copy: the body may change it
  if (isa<DoStmt, CXXForRangeStmt>(s)) {
    hostLoopAt(s->getBeginLoc());
    return false;
  }
  if (isa<BreakStmt, ContinueStmt>(s)) {
    breakAt(s->getBeginLoc(), "break or continue in an unrolled loop");
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
  breakAt(s->getBeginLoc(),
          std::string("a statement the tracer does not model (") +
              s->getStmtClassName() + ")");
  return false;
}

bool Tracer::isEarlyReturn(const Stmt *s) {
  const auto *i = dyn_cast<IfStmt>(s);
  if (!i || i->getElse())
    return false;
  const Stmt *last = i->getThen();
  if (const auto *c = dyn_cast<CompoundStmt>(last))
    last = c->body_empty() ? nullptr : c->body_back();
  return last && isa<ReturnStmt>(last);
}

bool Tracer::traceIf(const IfStmt *i, llvm::ArrayRef<const Stmt *> rest) {
  if (i->getInit() || i->getConditionVariable() || i->isConsteval()) {
    breakAt(i->getIfLoc(), "an if with an initializer or a condition variable");
    return false;
  }
  // A condition on tensor data breaks where it reads the data (item()).
  std::optional<int> cond = traceExpr(i->getCond());
  if (!cond)
    return false;
  if (kindOf(*cond) == ValueKind::Tensor) {
    breakAt(i->getIfLoc(), "a branch on a tensor");
    return false;
  }
  // A condition known at compile time takes one arm.
  auto traceRest = [&]() {
    std::optional<int> returnBefore = frames_.back().returnValue;
    for (size_t k = 0; k < rest.size(); ++k) {
      if (isEarlyReturn(rest[k]) && k + 1 < rest.size())
        return traceIf(cast<IfStmt>(rest[k]), rest.drop_front(k + 1));
      if (!traceStmt(rest[k]))
        return false;
      if (frames_.back().returnValue != returnBefore)
        return true; // what follows a return never runs
    }
    return true;
  };
  if (std::optional<double> known = graph().constantValue(*cond)) {
    if (*known == 0 && !rest.empty())
      return traceRest();
    const Stmt *arm = *known != 0 ? i->getThen() : i->getElse();
    return !arm || traceStmt(arm);
  }
  cond = scalarCast(*cond, ValueKind::Bool, i->getIfLoc());
  // A condition on host values: both arms are traced (graphs are pure) and
  // each variable either assigns is chosen by the condition.
  using Bindings = std::vector<std::map<const ValueDecl *, int>>;
  using Lists = std::vector<std::map<const ValueDecl *, std::vector<int>>>;
  // Each frame's map of one kind, then the segment's.
  auto snapshot = [&](auto inFrame, auto inSegment) {
    std::vector<std::decay_t<decltype(frames_.front().*inFrame)>> all;
    for (const FrameState &f : frames_)
      all.push_back(f.*inFrame);
    if constexpr (std::is_same_v<decltype(inSegment),
                                 decltype(&SegmentState::env)>)
      all.push_back(segment_->env.get());
    else
      all.push_back((*segment_).*inSegment);
    return all;
  };
  auto bindings = [&]() {
    return snapshot(&FrameState::locals, &SegmentState::env);
  };
  auto lists = [&]() {
    return snapshot(&FrameState::lists, &SegmentState::lists);
  };
  const Lists listsBefore = lists();
  auto restore = [&](const Bindings &b) {
    for (size_t f = 0; f < frames_.size(); ++f) {
      frames_[f].locals = b[f];
      frames_[f].lists = listsBefore[f];
    }
    segment_->env.assign(b.back());
    segment_->lists = listsBefore.back();
  };
  Bindings before = bindings();
  std::optional<int> returnBefore = frames_.back().returnValue;
  std::optional<int> returned[2];
  auto traceArm = [&](const Stmt *arm, Bindings &after) {
    restore(before);
    bool elseIsRest = arm == nullptr && !rest.empty();
    bool returns = elseIsRest || arm == i->getThen() ? !rest.empty() : false;
    frames_.back().returnValue = returnBefore;
    if (elseIsRest ? !traceRest() : arm && !traceStmt(arm))
      return false;
    if (frames_.back().returnValue != returnBefore) {
      if (!returns) {
        breakAt(arm ? arm->getBeginLoc() : i->getIfLoc(),
                "a return inside a branch");
        return false;
      }
      returned[elseIsRest ? 1 : 0] = frames_.back().returnValue;
      frames_.back().returnValue = returnBefore;
    } else if (returns) {
      breakAt(i->getIfLoc(), "a function that returns on some paths only");
      return false;
    }
    if (lists() != listsBefore) {
      breakAt(arm->getBeginLoc(),
              "a branch that changes a std::vector<Tensor>");
      return false;
    }
    after = bindings();
    return true;
  };
  Bindings afterThen, afterElse;
  if (!rest.empty() && frames_.size() == 1)
    ++rootReturnArms_;
  bool traced =
      traceArm(i->getThen(), afterThen) && traceArm(i->getElse(), afterElse);
  if (!rest.empty() && frames_.size() == 1)
    --rootReturnArms_;
  if (!traced)
    return false;
  restore(before);
  if (!rest.empty()) {
    // Both arms returned: the value returned is chosen, and nothing after
    // the if runs (its bindings need no merging).
    frames_.back().returnValue = choose(*cond, *returned[0], *returned[1],
                                        i->getIfLoc(), "the returned value");
    return frames_.back().returnValue.has_value();
  }
  for (size_t f = 0; f < afterThen.size(); ++f) {
    for (auto &[var, v] : afterThen[f]) {
      auto other = afterElse[f].find(var);
      if (other == afterElse[f].end())
        continue; // declared inside an arm: out of scope now
      std::optional<int> chosen = choose(*cond, v, other->second, i->getIfLoc(),
                                         "'" + var->getNameAsString() + "'");
      if (!chosen)
        return false;
      if (f < frames_.size())
        frames_[f].locals[var] = *chosen;
      else
        segment_->env.set(var, *chosen);
    }
  }
  return true;
}

bool Tracer::traceFor(const ForStmt *f) {
  // for (int i = A; i < B; ++i) with A and B compile-time constants is
  // unrolled, i a constant in each copy of the body.
  auto fail = [&]() {
    hostLoopAt(f->getForLoc());
    return false;
  };
  const auto *init = dyn_cast_or_null<DeclStmt>(f->getInit());
  const VarDecl *var = init && init->isSingleDecl()
                           ? dyn_cast<VarDecl>(init->getSingleDecl())
                           : nullptr;
  if (!var || !var->getType()->isIntegerType() || !var->getInit())
    return fail();
  std::optional<int64_t> start = constantInt(var->getInit());
  const auto *cond = dyn_cast_or_null<BinaryOperator>(f->getCond());
  if (!start || !cond || !cond->isComparisonOp())
    return fail();
  const auto *lhs =
      dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts());
  std::optional<int64_t> bound = constantInt(cond->getRHS());
  if (!lhs || lhs->getDecl() != var || !bound)
    return fail();
  int64_t step = 0;
  const Expr *inc = f->getInc() ? f->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *u = dyn_cast_or_null<UnaryOperator>(inc)) {
    if (u->isIncrementOp())
      step = 1;
    else if (u->isDecrementOp())
      step = -1;
  } else if (const auto *c = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
    if (std::optional<int64_t> k = constantInt(c->getRHS()))
      step = c->getOpcode() == BO_AddAssign   ? *k
             : c->getOpcode() == BO_SubAssign ? -*k
                                              : 0;
  }
  if (step == 0)
    return fail();
  auto holds = [&](int64_t i) {
    switch (cond->getOpcode()) {
    case BO_LT:
      return i < *bound;
    case BO_LE:
      return i <= *bound;
    case BO_GT:
      return i > *bound;
    case BO_GE:
      return i >= *bound;
    case BO_NE:
      return i != *bound;
    default:
      return false;
    }
  };
  constexpr int64_t kMaxTrips = 256;
  int64_t trips = 0;
  for (int64_t i = *start; holds(i); i += step) {
    if (++trips > kMaxTrips) {
      breakAt(f->getForLoc(),
              "a loop of more than 256 iterations (not unrolled)");
      return false;
    }
    bind(var, constant(static_cast<double>(i), ValueKind::I64, f->getForLoc()));
    std::optional<int> returnBefore = frames_.back().returnValue;
    if (!traceStmt(f->getBody()))
      return false;
    if (frames_.back().returnValue != returnBefore)
      break; // the function returned in this iteration
  }
  unbind(var);
  return true;
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
  if (const auto *record = var->getType()->getAsCXXRecordDecl();
      record && record->isLambda()) {
    // A lambda is traced where it is called, its body reading what it
    // captured by copy as it was when the lambda was made.
    const LambdaExpr *lambda = lambdaOf(var);
    if (!lambda) {
      breakAt(var->getLocation(),
              "a lambda bound in a way the tracer does not model");
      return false;
    }
    return traceLambdaDecl(var, lambda);
  }
  if (isTensorVectorType(var->getType()) &&
      !var->getType()->isReferenceType()) {
    // std::vector<Tensor> parts;: a list of traced values, filled by
    // push_back; one that code outside the graph reads stays on the host.
    const auto *c =
        var->getInit()
            ? dyn_cast<CXXConstructExpr>(stripTemporaries(var->getInit()))
            : nullptr;
    if (hostLists_.count(var)) {
      breakAt(var->getLocation(), "a std::vector<Tensor> that code outside "
                                  "the graph reads");
      return false;
    }
    // Empty, a braced list of tensors ({a, b}: the initializer_list
    // constructor, its allocator defaulted) or a copy of another list.
    std::vector<int> initial;
    auto defaulted = [&](unsigned from) {
      for (unsigned i = from; c && i < c->getNumArgs(); ++i)
        if (!isa<CXXDefaultArgExpr>(c->getArg(i)))
          return false;
      return true;
    };
    const Expr *first =
        c && c->getNumArgs() > 0 ? stripTemporaries(c->getArg(0)) : nullptr;
    if (const auto *il = dyn_cast_or_null<CXXStdInitializerListExpr>(first);
        il && defaulted(1)) {
      const auto *list =
          dyn_cast<InitListExpr>(stripTemporaries(il->getSubExpr()));
      for (const Expr *e : list ? list->inits() : ArrayRef<Expr *>()) {
        std::optional<int> v = traceExpr(e);
        if (!v)
          return false;
        initial.push_back(asTensor(*v, e->getExprLoc()));
      }
    } else if (std::vector<int> *other = first ? listOf(first) : nullptr;
               other && defaulted(1)) {
      initial = *other;
    } else if (isPiecesCall(var->getInit())) {
      // auto heads = qkv.split(C, -1);
      if (!tracePieces(var->getInit(), piecesRead(var), initial))
        return false;
    } else if (!c || !defaulted(0) ||
               (first && !isa<CXXDefaultArgExpr>(first))) {
      breakAt(var->getLocation(), "a std::vector<Tensor> with an initial "
                                  "value other than a braced list or a "
                                  "copy (a size, say)");
      return false;
    }
    if (frames_.size() > 1) {
      frames_.back().lists[var] = initial;
    } else {
      segment_->lists[var] = initial;
      declaredLists_.push_back(var);
    }
    return true;
  }
  if (const auto *d = dyn_cast<DecompositionDecl>(var))
    return traceDecomposition(d);
  // Out o = block(x);: a struct of traced values (or a reference that
  // cannot change one: `const Out &o = block(x);`).
  if (QualType type = var->getType();
      recordModelOf(type) && !var->isStaticLocal() &&
      (!type->isReferenceType() ||
       ((type->isRValueReferenceType() ||
         type->getPointeeType().isConstQualified()) &&
        var->getInit() && holdsRecord(var->getInit(), frames_.size() - 1)))) {
    std::optional<int> v =
        traceRecordInit(var->getType(), var->getInit(), var->getLocation());
    if (!v)
      return false;
    bindLocal(var, *v);
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
  if (var->getType()->isLValueReferenceType() &&
      !var->getType()->getPointeeType().isConstQualified()) {
    breakAt(var->getLocation(), "a local reference through which the variable "
                                "it names could be assigned");
    return false;
  }
  const Expr *init = var->getInit();
  if (!init) {
    breakAt(var->getLocation(), "a local without an initial value");
    return false;
  }
  // `Tensor h;`: undefined until assigned (a read before then breaks).
  std::optional<int> v;
  if (const auto *c = dyn_cast<CXXConstructExpr>(stripTemporaries(init));
      c && *kind == ValueKind::Tensor && c->getNumArgs() == 0)
    v = kUndefinedTensor;
  else
    v = traceExpr(init);
  if (!v)
    return false;
  if (*kind != ValueKind::Tensor && kindOf(*v) != *kind)
    v = scalarCast(*v, *kind, var->getLocation());
  bindLocal(var, *v);
  return true;
}

const VarDecl *Tracer::changedCopy(const CXXRecordDecl *lambda) {
  std::optional<ExprMutationAnalyzer> mutations;
  for (const LambdaCapture &c : lambda->captures()) {
    const auto *v =
        c.capturesVariable() ? dyn_cast<VarDecl>(c.getCapturedVar()) : nullptr;
    if (!v || c.getCaptureKind() != LCK_ByCopy || v->isInitCapture() ||
        !v->isLocalVarDeclOrParm() || v->getType().isConstQualified())
      continue;
    if (!mutations)
      mutations.emplace(*root_->function->getBody(), context_);
    if (mutations->isMutated(v))
      return v;
  }
  return nullptr;
}

bool Tracer::traceLambdaDecl(const VarDecl *var, const LambdaExpr *lambda) {
  // At the root's level the stitched code makes the lambda before the
  // graph call, its copies of what the segment computes made references
  // to the variables the call (or its fallback) then sets (Stitch): the
  // same values as long as no variable it copies changes.
  if (frames_.size() == 1)
    if (const VarDecl *v = changedCopy(lambda->getLambdaClass())) {
      breakAt(lambda->getBeginLoc(),
              "a lambda capturing by copy '" + v->getNameAsString() +
                  "', a variable that changes (the copy may differ from it)");
      return false;
    }
  std::map<const ValueDecl *, int> copies;
  for (const LambdaCapture &c : lambda->captures()) {
    if (!c.capturesVariable() || c.getCaptureKind() != LCK_ByCopy)
      continue;
    const auto *captured = dyn_cast<VarDecl>(c.getCapturedVar());
    if (!captured)
      continue;
    if (captured->isInitCapture()) {
      // [n = x.size(0)]: made before the graph call, where what the
      // initializer reads is not computed yet.
      if (frames_.size() == 1) {
        breakAt(c.getLocation(), "a lambda's init-capture '" +
                                     captured->getNameAsString() + "'");
        return false;
      }
      continue;
    }
    // The body reads the copy as it is now (one the graph does not bind
    // is an input, which the function does not change). In an inlined
    // callee, a copy of what is not a bound value (a std::vector<Tensor>
    // list, a reference parameter) could change after it is made.
    if (int *v = boundIn(&FrameState::locals, &SegmentState::env, captured,
                         frames_.size() - 1)) {
      copies[captured] = *v;
    } else if (frames_.size() > 1 && captured->isLocalVarDeclOrParm()) {
      breakAt(c.getLocation(), "a lambda capturing by copy '" +
                                   captured->getNameAsString() +
                                   "', which the tracer cannot copy");
      return false;
    }
  }
  (frames_.size() > 1 ? frames_.back().lambdaCopies
                      : segment_->lambdaCopies)[lambda->getLambdaClass()] =
      std::move(copies);
  return true;
}

void Tracer::bindLocal(const ValueDecl *var, int v) {
  if (frames_.size() > 1) {
    frames_.back().locals[var] = v;
  } else {
    segment_->env.set(var, v);
    segment_->assigned.set(var, true);
  }
}

bool Tracer::traceAssignment(const Expr *lhs, const Expr *rhs,
                             SourceLocation loc) {
  std::optional<int> v = recordModelOf(lhs->getType())
                             ? traceRecordInit(lhs->getType(), rhs, loc)
                             : traceExpr(rhs);
  if (!v)
    return false;
  return assignTo(lhs, *v, loc, frames_.size() - 1);
}

bool Tracer::assignTo(const Expr *lhs, int v, SourceLocation loc,
                      size_t frame) {
  lhs = lhs->IgnoreParenImpCasts();
  auto converted = [&](QualType type) {
    ValueKind kind = *valueKindOf(type);
    return kind != ValueKind::Tensor && kindOf(v) != kind
               ? scalarCast(v, kind, loc)
               : v;
  };
  if (const auto *member = dyn_cast<MemberExpr>(lhs);
      member && !member->isArrow() && isa<FieldDecl>(member->getMemberDecl()) &&
      recordModelOf(member->getBase()->getType()) &&
      holdsRecord(member->getBase(), frame)) {
    // `o.y = ...` of a struct held as a record: a new record for `o`.
    std::optional<int> record = traceInFrame(member->getBase(), frame);
    if (!record)
      return false;
    if (!isRecordValue(*record)) {
      breakAt(loc, "an assignment to a struct the tracer does not model");
      return false;
    }
    const auto *field = cast<FieldDecl>(member->getMemberDecl());
    std::vector<int> fields = fieldsOf(*record);
    fields[field->getFieldIndex()] = converted(field->getType());
    return assignTo(member->getBase(), makeRecord(std::move(fields)), loc,
                    frame);
  }
  if (const auto *member = dyn_cast<MemberExpr>(lhs)) {
    // A member: its new value is a graph output (the object outlives the
    // call), and later reads in the segment see it.
    const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
    std::string name =
        field && valueKindOf(field->getType()) ? spell(member, frame) : "";
    if (name.empty()) {
      breakAt(loc, "an assignment to a member of an object the stitched code "
                   "cannot name");
      return false;
    }
    if (!segment_->members.count(name))
      segment_->memberOrder.push_back(name);
    segment_->members[name] = converted(field->getType());
    return true;
  }
  const auto *ref = dyn_cast<DeclRefExpr>(lhs);
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  // A struct variable takes a record (`o = block(x);`).
  bool record = var && isRecordValue(v) && recordModelOf(var->getType());
  if (!var || (!valueKindOf(var->getType()) && !record)) {
    breakAt(loc,
            "an assignment to something other than a variable or a member");
    return false;
  }
  if (!record)
    v = converted(var->getType());
  // A by-copy capture of a mutable lambda is the lambda's own copy.
  if (const auto *method = dyn_cast<CXXMethodDecl>(frames_[frame].function))
    if (method->getParent()->isLambda())
      for (const LambdaCapture &c : method->getParent()->captures())
        if (c.capturesVariable() && c.getCapturedVar() == var &&
            c.getCaptureKind() == LCK_ByCopy) {
          breakAt(loc, "an assignment to a lambda's copy of '" +
                           var->getNameAsString() + "'");
          return false;
        }
  for (size_t f = frame + 1; f-- > 0;) {
    FrameState &state = frames_[f];
    auto alias = state.aliases.find(var);
    if (alias != state.aliases.end()) // a reference parameter
      return assignTo(alias->second.first, v, loc, alias->second.second);
    if (state.locals.count(var)) {
      state.locals[var] = v;
      return true;
    }
  }
  if (var->isLocalVarDeclOrParm()) {
    const DeclContext *ctx = var->getDeclContext();
    while (ctx && !isa<FunctionDecl>(ctx))
      ctx = ctx->getParent();
    if (ctx != root_->function) {
      breakAt(loc, "an assignment to a variable of another scope");
      return false;
    }
  }
  segment_->env.set(var, v);
  segment_->assigned.set(var, true);
  return true;
}

bool Tracer::returnedBraces(const Expr *value,
                            std::vector<const Expr *> &parts) {
  const Expr *e = stripTemporaries(value);
  if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(e)) // Out{a, b}
    e = stripTemporaries(cast->getSubExpr());
  if (isTensorType(e->getType()) || !e->getType()->isRecordType())
    return false;
  if (const auto *list = dyn_cast<InitListExpr>(e)) { // an aggregate
    if (list->isSemanticForm() && list->getSyntacticForm())
      list = list->getSyntacticForm();
    parts.assign(list->inits().begin(), list->inits().end());
    return true;
  }
  // std::pair, std::tuple or a class with a constructor, braced.
  if (const auto *c = dyn_cast<CXXConstructExpr>(e);
      c && c->isListInitialization() && c->getNumArgs() > 0) {
    parts.assign(c->arguments().begin(), c->arguments().end());
    return true;
  }
  return false;
}

bool Tracer::traceBracedReturn(const std::vector<const Expr *> &elements) {
  // Each element is an output; the stitched code returns the same braces
  // around the graph's results.
  std::vector<GraphOutput> parts;
  bool tensor = false;
  for (size_t i = 0; i < elements.size(); ++i) {
    std::optional<int> v = traceExpr(elements[i]);
    if (!v)
      return false;
    if (*v < 0 || !valueKindOf(elements[i]->getType())) {
      breakAt(elements[i]->getExprLoc(),
              "a returned element of a type the tracer does not model");
      return false;
    }
    tensor |= kindOf(*v) == ValueKind::Tensor;
    parts.push_back({*v, "", static_cast<int>(i)});
  }
  // Only host scalars: host code returns them, nothing breaks.
  if (!tensor)
    return false;
  for (const GraphOutput &part : parts)
    graph().outputs.push_back(part);
  segment_->segment.returnParts = elements;
  return true;
}

void Tracer::hostLoopAt(SourceLocation loc) {
  if (pendingBreak_)
    return; // something in its header broke first
  breakAt(loc, "a loop whose trip count is not a compile-time constant");
  pendingBreak_->hostLoop = true;
}

} // namespace kiln::frontend
