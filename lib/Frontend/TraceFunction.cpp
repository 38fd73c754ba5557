//===- TraceFunction.cpp - Roots, frames, inlining and segments -----------===//
//
// A root's body is a list of statements. Consecutive statements that trace
// form a segment (one graph); a statement that breaks stays host code,
// closes the segment, and the blocks it holds (an if's arms, a loop's body)
// are traced in turn. Callees with visible bodies are inlined into the
// segment when they trace whole.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace kiln::frontend {

namespace {
/// Every reference to a variable in a function body, with its location.
class References : public RecursiveASTVisitor<References> {
public:
  std::multimap<const ValueDecl *, SourceLocation> refs;
  bool VisitDeclRefExpr(DeclRefExpr *e) {
    refs.emplace(e->getDecl(), e->getLocation());
    // Calling a lambda reads the variables it captured (declared before
    // the graph call by reference to them: Stitch), there and then, and
    // those of the lambdas it captured in turn.
    std::set<const ValueDecl *> seen;
    captured(e->getDecl(), e->getLocation(), seen);
    return true;
  }

private:
  void captured(const ValueDecl *decl, SourceLocation at,
                std::set<const ValueDecl *> &seen) {
    const auto *var = dyn_cast<VarDecl>(decl);
    const auto *record = var ? var->getType()->getAsCXXRecordDecl() : nullptr;
    if (!record || !record->isLambda() || !seen.insert(var).second)
      return;
    for (const LambdaCapture &c : record->captures())
      if (c.capturesVariable()) {
        refs.emplace(c.getCapturedVar(), at);
        captured(c.getCapturedVar(), at, seen);
      }
  }
};

std::string sanitize(const std::string &name) {
  std::string out;
  for (char c : name)
    out += (isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}
} // namespace

Tracer::Tracer(ASTContext &context, const AnnotationIndex &annotations,
               const FrontendOptions &options,
               std::shared_ptr<const TypeEvidence> evidence)
    : context_(context), annotations_(annotations), options_(options),
      evidenceOwner_(std::move(evidence)), evidence_(*evidenceOwner_) {
  // (The driver has rejected malformed ones.) Stated ones override
  // recorded ones.
  for (const auto *texts : {&options.recordedSignatures, &options.signatures})
    for (const std::string &text : *texts) {
      llvm::Expected<StatedSignature> sig = parseSignature(text);
      if (!sig) {
        llvm::consumeError(sig.takeError());
        continue;
      }
      for (std::optional<StatedTensor> &p : sig->params)
        if (p)
          p->recorded = texts == &options.recordedSignatures;
      signatures_[sig->function] = *sig;
    }
}

void Tracer::warnUnknownSignatures() {
  if (signatures_.empty())
    return;
  // Functions declared here but compiled in another file are fine.
  struct Names : RecursiveASTVisitor<Names> {
    std::set<std::string> names;
    bool VisitFunctionDecl(FunctionDecl *fn) {
      names.insert(fn->getQualifiedNameAsString());
      return true;
    }
  } declared;
  declared.TraverseDecl(context_.getTranslationUnitDecl());
  DiagnosticsEngine &diags = context_.getDiagnostics();
  unsigned warning = diags.getCustomDiagID(
      DiagnosticsEngine::Warning,
      "--signature names '%0', which no function of this file is");
  SourceManager &sm = context_.getSourceManager();
  for (const auto &[name, sig] : signatures_)
    if (!declared.names.count(name))
      diags.Report(sm.getLocForStartOfFile(sm.getMainFileID()), warning)
          << name;
}

void Tracer::applySignature(const FunctionDecl *fn) {
  statedParams_.clear();
  auto it = signatures_.find(fn->getQualifiedNameAsString());
  if (it == signatures_.end())
    return;
  const StatedSignature &sig = it->second;
  DiagnosticsEngine &diags = context_.getDiagnostics();
  unsigned error = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  if (sig.params.size() != fn->getNumParams()) {
    diags.Report(fn->getLocation(), error)
        << "--signature gives " + std::to_string(sig.params.size()) +
               " parameter types for '" + sig.function + "', which takes " +
               std::to_string(fn->getNumParams());
    return;
  }
  for (unsigned i = 0; i < fn->getNumParams(); ++i) {
    const ParmVarDecl *p = fn->getParamDecl(i);
    if (!sig.params[i])
      continue;
    const StatedTensor &stated = *sig.params[i];
    std::string what = std::string(stated.recorded ? "--signatures (recorded)"
                                                   : "--signature") +
                       " states '" + p->getNameAsString() + "' of '" +
                       sig.function + "' as " + describe(stated);
    if (!isTensorType(p->getType())) {
      diags.Report(p->getLocation(), error)
          << what + ", but it is not a tensor";
      continue;
    }
    // The source, where it is unambiguous, must agree.
    auto evidence = evidence_.find(p);
    if (evidence != evidence_.end()) {
      const SourceTypes &source = evidence->second;
      if (source.ranks.size() == 1 && *source.ranks.begin() != stated.rank) {
        diags.Report(p->getLocation(), error)
            << what + ", but its callers pass a tensor of rank " +
                   std::to_string(*source.ranks.begin());
        continue;
      }
      if (source.elements.size() == 1 &&
          *source.elements.begin() != stated.element) {
        diags.Report(p->getLocation(), error)
            << what + ", but its callers pass " +
                   elementTypeName(*source.elements.begin()) + " tensors";
        continue;
      }
    }
    statedParams_[p] = stated;
  }
}

SourcePos Tracer::posOf(SourceLocation loc) const {
  const SourceManager &sm = context_.getSourceManager();
  PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
  if (p.isInvalid())
    return {};
  return {p.getFilename(), p.getLine(), p.getColumn()};
}

bool Tracer::errorModeHere() const {
  // fullgraph anywhere on the chain wins; otherwise the nearest guard or
  // KILN_ERROR_ON_GRAPH_BREAK, innermost first.
  for (const FrameState &f : frames_)
    if (f.annotations.compile && f.annotations.fullgraph)
      return true;
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) {
    if (!f->guards.empty())
      return f->guards.back();
    if (f->annotations.errorOnGraphBreak)
      return *f->annotations.errorOnGraphBreak;
  }
  return false;
}

std::nullopt_t Tracer::breakAt(SourceLocation loc, const std::string &reason) {
  if (pendingBreak_)
    return std::nullopt; // the first cause of a statement's break counts
  GraphBreak b;
  b.reason = reason;
  b.pos = posOf(loc);
  b.isError = errorModeHere();
  b.rawLoc = loc.getRawEncoding();
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
    if (f->callSite.isValid()) {
      b.inlinedFrom.push_back({posOf(f->callSite),
                               f->function->getQualifiedNameAsString(),
                               f->function});
      b.rawFrameLocs.push_back(f->callSite.getRawEncoding());
    }
  pendingBreak_ = b;
  return std::nullopt;
}

std::optional<int> Tracer::inlineCall(const FunctionDecl *fn,
                                      const std::vector<int> &args,
                                      const std::vector<const Expr *> &argExprs,
                                      const std::string &thisPrefix,
                                      SourceLocation callSite) {
  const FunctionDecl *def = nullptr;
  if (!fn->hasBody(def) || !def)
    return breakAt(callSite, "call to '" + fn->getQualifiedNameAsString() +
                                 "', whose body is not visible");
  // Library code (system headers) is not traced into: its internals are
  // no model code.
  if (context_.getSourceManager().isInSystemHeader(
          context_.getSourceManager().getExpansionLoc(def->getLocation())))
    return breakAt(callSite, "call to '" + fn->getQualifiedNameAsString() +
                                 "', a library function");
  if (inlining_.count(def))
    return breakAt(callSite, "recursive call to '" +
                                 fn->getQualifiedNameAsString() + "'");
  if (def->getNumParams() != args.size())
    return breakAt(callSite, "call to '" + fn->getQualifiedNameAsString() +
                                 "' with default or variadic arguments");
  FrameState frame;
  frame.function = def;
  frame.callSite = callSite;
  frame.thisPrefix = thisPrefix;
  frame.annotations = annotations_.of(def, context_.getDiagnostics());
  for (unsigned i = 0; i < args.size(); ++i) {
    const ParmVarDecl *param = def->getParamDecl(i);
    if (isNamedParam(def, i))
      frame.aliases[param] = {argExprs[i], frames_.size() - 1};
    else
      frame.locals[param] = args[i];
  }
  // A lambda's body reads its by-copy captures as the lambda copied them;
  // what one made by host code copied is the variables' value only while
  // they never change.
  if (const auto *method = dyn_cast<CXXMethodDecl>(def);
      method && method->getParent()->isLambda()) {
    if (const auto *copies = lambdaCopiesOf(method->getParent())) {
      for (const auto &[captured, value] : *copies)
        frame.locals[captured] = value;
    } else if (const VarDecl *v = changedCopy(method->getParent())) {
      return breakAt(
          callSite,
          "a call of a lambda made outside the graph "
          "that copies '" +
              v->getNameAsString() +
              "', a variable that changes (the copy may differ from it)");
    }
  }
  frames_.push_back(std::move(frame));
  inlining_.insert(def);
  bool ok = true;
  if (const auto *body = dyn_cast_or_null<CompoundStmt>(def->getBody())) {
    ok = traceStmt(body); // up to its return, early returns included
  } else {
    ok = false;
    breakAt(callSite, "a function body that is not a block");
  }
  std::optional<int> result = frames_.back().returnValue;
  inlining_.erase(def);
  frames_.pop_back();
  if (!ok) {
    // The call stays host code; the callee is compiled as a root of its own.
    noteDerivedRoot(def);
    return std::nullopt;
  }
  if (!result && !def->getReturnType()->isVoidType())
    return breakAt(callSite, "call to '" + fn->getQualifiedNameAsString() +
                                 "', which does not end in a return");
  // A void callee yields no value: -2 stands for "nothing" (an expression
  // statement).
  return result ? *result : -2;
}

const std::map<const ValueDecl *, int> *
Tracer::lambdaCopiesOf(const CXXRecordDecl *lambda) const {
  for (size_t f = frames_.size(); f-- > 0;)
    if (auto it = frames_[f].lambdaCopies.find(lambda);
        it != frames_[f].lambdaCopies.end())
      return &it->second;
  if (segment_)
    if (auto it = segment_->lambdaCopies.find(lambda);
        it != segment_->lambdaCopies.end())
      return &it->second;
  return nullptr; // made by host code: its copies are the graph's inputs
}

void Tracer::noteDerivedRoot(const FunctionDecl *fn) {
  // A lambda's body reads its enclosing function's variables: it is not a
  // function the stitched code could call as a root.
  if (const auto *method = dyn_cast_or_null<CXXMethodDecl>(fn))
    if (method->getParent()->isLambda())
      return;
  const SourceManager &sm = context_.getSourceManager();
  if (fn && fn->hasBody() &&
      sm.isInMainFile(sm.getExpansionLoc(fn->getLocation())))
    derivedRoots_.push_back(fn);
}

void Tracer::noteCalleesAsRoots(const FunctionDecl *fn) {
  // KILN_DISABLE(recursive=false): the body stays host code, the functions
  // it calls are compiled as roots of their own.
  class Calls : public RecursiveASTVisitor<Calls> {
  public:
    std::vector<const FunctionDecl *> callees;
    bool VisitCallExpr(CallExpr *call) {
      if (const FunctionDecl *callee = call->getDirectCallee())
        callees.push_back(callee);
      return true;
    }
  } calls;
  const FunctionDecl *def = nullptr;
  if (fn->hasBody(def) && def)
    calls.TraverseStmt(def->getBody());
  for (const FunctionDecl *callee : calls.callees) {
    const FunctionDecl *body = nullptr;
    if (callee->hasBody(body))
      noteDerivedRoot(body);
  }
}

std::vector<const FunctionDecl *> Tracer::takeDerivedRoots() {
  std::vector<const FunctionDecl *> out;
  out.swap(derivedRoots_);
  return out;
}

void Tracer::startSegment() {
  segment_.emplace();
  segment_->segment.graph.name =
      "kiln_" + sanitize(root_->name) + "_" + std::to_string(graphCounter_++);
  startBody(segment_->segment.graph,
            options_.context ? *options_.context : graphContext());
}

void Tracer::finishSegment() {
  if (!segment_)
    return;
  SegmentState state = std::move(*segment_);
  segment_.reset();
  Segment &seg = state.segment;
  if (seg.statements.empty() || seg.graph.tensorOpCount() == 0) {
    --graphCounter_; // nothing captured: the statements stay host code
    return;
  }
  // Outputs: the variables the segment assigns that code outside it can
  // observe, then the members it assigns.
  SourceLocation begin = seg.statements.front()->getBeginLoc();
  SourceLocation end = seg.statements.back()->getEndLoc();
  // In declaration order, so that the stitched call reads the same on
  // every run.
  const SourceManager &sm = context_.getSourceManager();
  std::vector<const ValueDecl *> assigned;
  for (const auto &entry : state.assigned.get())
    assigned.push_back(entry.first);
  std::sort(assigned.begin(), assigned.end(),
            [&](const ValueDecl *a, const ValueDecl *b) {
              return sm.isBeforeInTranslationUnit(a->getLocation(),
                                                  b->getLocation());
            });
  for (const ValueDecl *var : assigned) {
    if (!state.env.count(var) || state.env.at(var) == kUndefinedTensor)
      continue; // declared in a branch's arm (out of scope), or undefined
    if (!isLiveOut(var, begin, end))
      continue;
    const auto *v = dyn_cast<VarDecl>(var);
    if (v && v->isUsableInConstantExpressions(context_))
      continue; // a constant the stitched code keeps as it is (Stitch)
    std::string name = !v || v->isLocalVarDeclOrParm()
                           ? var->getNameAsString()
                           : v->getQualifiedNameAsString();
    int value = state.env.at(var);
    if (!isRecordValue(value)) {
      seg.graph.outputs.push_back({value, name});
      continue;
    }
    // A struct: each defined field.
    std::optional<RecordModel> model = recordModelOf(var->getType());
    const std::vector<int> &fields = state.records[kRecordBase - value];
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i] != kUndefinedTensor)
        seg.graph.outputs.push_back({fields[i], model->spellField(name, i)});
  }
  for (const std::string &member : state.memberOrder)
    seg.graph.outputs.push_back({state.members.at(member), member});
  for (const Stmt *loop : hostLoops_)
    seg.graph.hostLoops.push_back(loop->getBeginLoc().getRawEncoding());
  root_->segments.push_back(std::move(seg));
}

bool Tracer::isLiveOut(const ValueDecl *var, SourceLocation begin,
                       SourceLocation end) const {
  // A structured binding lives as long as the object it names.
  const auto *binding = dyn_cast<BindingDecl>(var);
  const auto *v = cast<VarDecl>(binding ? binding->getDecomposedDecl() : var);
  // The caller sees what a reference parameter names; a global or static
  // outlives the call.
  if (v->hasGlobalStorage())
    return true;
  if (isa<ParmVarDecl>(v) && v->getType()->isReferenceType())
    return true;
  const SourceManager &sm = context_.getSourceManager();
  // In a loop left on the host, a variable declared outside the loop is
  // read again by the next iteration.
  if (!hostLoops_.empty() &&
      sm.isBeforeInTranslationUnit(v->getLocation(),
                                   hostLoops_.back()->getBeginLoc()))
    return true;
  auto range = rootRefs_.equal_range(var);
  for (auto it = range.first; it != range.second; ++it)
    if (sm.isBeforeInTranslationUnit(it->second, begin) ||
        sm.isBeforeInTranslationUnit(end, it->second))
      return true;
  return false;
}

namespace {
/// Whether calling callee modifies a tensor in place (Kiln's in-place ops,
/// an optimizer's step or zero_grad, clip_grad_norm_); its name, without
/// "kiln::", in `what`.
bool writesInPlace(const FunctionDecl *callee, std::string &what) {
  std::string name = callee->getNameAsString();
  std::string owner;
  if (const auto *m = dyn_cast<CXXMethodDecl>(callee))
    owner = m->getParent()->getQualifiedNameAsString();
  static const std::set<std::string> tensorOps = {
      "add_",       "sub_",       "mul_",       "div_",      "addcmul_",
      "addcdiv_",   "zero_",      "fill_",      "copy_",     "clamp_",
      "operator+=", "operator-=", "operator*=", "operator/="};
  bool mutates =
      (owner == "kiln::Tensor" && tensorOps.count(name)) ||
      (llvm::StringRef(owner).starts_with("kiln::optim::") &&
       (name == "step" || name == "zero_grad")) ||
      callee->getQualifiedNameAsString() == "kiln::nn::utils::clip_grad_norm_";
  if (!mutates)
    return false;
  what =
      owner.empty() ? callee->getQualifiedNameAsString() : owner + "::" + name;
  if (llvm::StringRef(what).starts_with("kiln::"))
    what = what.substr(6);
  return true;
}

/// Whether any function of a translation unit (outside system headers and
/// kiln's own code, which modifies nothing the caller sees: InPlaceFinder)
/// modifies a tensor in place.
class UnitWriteFinder : public RecursiveASTVisitor<UnitWriteFinder> {
public:
  explicit UnitWriteFinder(const SourceManager &sm) : sm_(sm) {}
  bool TraverseDecl(Decl *d) {
    if (found ||
        (d && !isa<TranslationUnitDecl>(d) &&
         (sm_.isInSystemHeader(d->getLocation()) || inNamespace(d, "kiln"))))
      return true;
    return RecursiveASTVisitor::TraverseDecl(d);
  }
  bool VisitCallExpr(CallExpr *call) {
    std::string what;
    if (const FunctionDecl *callee = call->getDirectCallee())
      found = found || writesInPlace(callee, what);
    return true;
  }
  bool found = false;

private:
  const SourceManager &sm_;
};

/// Finds the first call that modifies a tensor in place in a body and in
/// the bodies it calls (each function once).
class InPlaceFinder : public RecursiveASTVisitor<InPlaceFinder> {
public:
  explicit InPlaceFinder(const SourceManager &sm) : sm_(sm) {}

  void scan(const FunctionDecl *fn) {
    if (!found.empty() || !fn)
      return;
    const FunctionDecl *def = fn->getDefinition();
    if (!def || !def->hasBody() || !seen_.insert(def).second)
      return;
    TraverseStmt(def->getBody());
  }

  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || !found.empty())
      return true;
    std::string qualified;
    if (writesInPlace(callee, qualified)) {
      PresumedLoc p = sm_.getPresumedLoc(call->getBeginLoc());
      found = qualified + " at " +
              (p.isValid() ? llvm::sys::path::filename(p.getFilename()).str() +
                                 ":" + std::to_string(p.getLine()) + ":" +
                                 std::to_string(p.getColumn())
                           : std::string("?"));
      return true;
    }
    // The runtime's own functions modify nothing the caller sees.
    if (!llvm::StringRef(callee->getQualifiedNameAsString())
             .starts_with("kiln::"))
      scan(callee);
    return true;
  }

  std::string found;

private:
  const SourceManager &sm_;
  std::set<const FunctionDecl *> seen_;
};
} // namespace

bool unitWritesInPlace(ASTContext &context) {
  UnitWriteFinder finder(context.getSourceManager());
  finder.TraverseDecl(context.getTranslationUnitDecl());
  return finder.found;
}

std::set<std::string> graphLocals(const Root &root) {
  std::set<std::string> locals;
  const FunctionDecl *fn = root.function;
  if (!fn || !fn->getBody())
    return locals;
  const SourceManager &sm = fn->getASTContext().getSourceManager();
  std::vector<std::pair<SourceLocation, SourceLocation>> ranges;
  for (const Segment &seg : root.segments)
    for (const Stmt *s : seg.statements)
      ranges.emplace_back(sm.getExpansionLoc(s->getBeginLoc()),
                          sm.getExpansionLoc(s->getEndLoc()));
  auto inGraph = [&](SourceLocation at) {
    at = sm.getExpansionLoc(at);
    return llvm::any_of(ranges, [&](const auto &r) {
      return !sm.isBeforeInTranslationUnit(at, r.first) &&
             !sm.isBeforeInTranslationUnit(r.second, at);
    });
  };
  References refs;
  refs.TraverseStmt(fn->getBody());
  std::map<std::string, int> declared; // locals per name (shadowing)
  std::set<const VarDecl *> tensors;
  for (const auto &[decl, at] : refs.refs) {
    const auto *var = dyn_cast<VarDecl>(decl);
    if (!var || !var->hasLocalStorage() || isa<ParmVarDecl>(var) ||
        var->getParentFunctionOrMethod() != fn || tensors.count(var))
      continue;
    ++declared[var->getNameAsString()];
    const CXXRecordDecl *record = var->getType()->getAsCXXRecordDecl();
    if (record && record->getQualifiedNameAsString() == "kiln::Tensor")
      tensors.insert(var);
  }
  for (const VarDecl *var : tensors) {
    auto [begin, end] = refs.refs.equal_range(var);
    if (declared[var->getNameAsString()] == 1 && inGraph(var->getLocation()) &&
        std::all_of(begin, end,
                    [&](const auto &r) { return inGraph(r.second); }))
      locals.insert(var->getNameAsString());
  }
  return locals;
}

Root Tracer::traceRoot(const FunctionDecl *fn, const Annotations &a) {
  Root root;
  root.function = fn;
  root.name = fn->getQualifiedNameAsString();
  if (fn->getTemplateInstantiationPattern()) { // scale<float>, Block<4>::f
    root.name.clear();
    llvm::raw_string_ostream os(root.name);
    fn->getNameForDiagnostic(os, context_.getPrintingPolicy(),
                             /*Qualified=*/true);
  }
  root.backend = a.backend.value_or(options_.backend);
  root.fullgraph = a.fullgraph;
  root.pos = posOf(fn->getLocation());
  root_ = &root;
  applySignature(fn);
  // Where the root's body reads each variable: which values segments hand
  // back (finishSegment).
  References refs;
  refs.TraverseStmt(fn->getBody());
  rootRefs_ = std::move(refs.refs);
  FrameState frame;
  frame.function = fn;
  frame.annotations = a;
  frame.thisPrefix =
      isa<CXXMethodDecl>(fn) && !cast<CXXMethodDecl>(fn)->isStatic() ? "(*this)"
                                                                     : "";
  frames_.push_back(std::move(frame));
  // An instantiation of a template is traced like any function; the
  // instantiations are reconciled afterwards (reconcileInstantiations), as
  // one source text serves them all.
  if (const auto *body = dyn_cast_or_null<CompoundStmt>(fn->getBody()))
    traceBlock(body);
  frames_.pop_back();
  root_ = nullptr;
  statedParams_.clear();
  for (const GraphBreak &b : root.breaks)
    if (b.isError)
      root.failed = true;
  InPlaceFinder inPlace(context_.getSourceManager());
  inPlace.scan(fn);
  root.inPlace = inPlace.found;
  return root;
}

} // namespace kiln::frontend
