//===- TraceModule.cpp - Translation units: parsing and compile roots -----===//
//
// Runs Clang on each file (ClangTool, with Kiln's own headers and clang's
// resource directory found by the tool itself), finds the compile roots,
// traces them and reports graph breaks in clang's diagnostic format; the
// caller gets each translation unit, its AST alive, with its roots.
//
//===----------------------------------------------------------------------===//
#include "AnnotationIndex.h"
#include "Tracer.h"

#include "kiln/Frontend/Frontend.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace clang;

namespace kiln::frontend {

bool FrontendOptions::logEnabled(const std::string &name) const {
  for (const std::string &l : logs)
    if (l == name || l == "all")
      return true;
  return false;
}

std::string formatPos(const SourcePos &pos) {
  return pos.file + ":" + std::to_string(pos.line) + ":" +
         std::to_string(pos.column);
}

std::optional<TemplateSpelling>
templateSpelling(const FunctionDecl *instantiation) {
  const FunctionDecl *pattern =
      instantiation->getTemplateInstantiationPattern();
  if (!pattern)
    return std::nullopt;
  PrintingPolicy policy(instantiation->getASTContext().getLangOpts());
  policy.SuppressScope = false;
  policy.FullyQualifiedName = true;
  std::vector<
      std::pair<const TemplateParameterList *, const TemplateArgumentList *>>
      levels;
  if (const auto *method = dyn_cast<CXXMethodDecl>(instantiation))
    if (const auto *spec =
            dyn_cast<ClassTemplateSpecializationDecl>(method->getParent())) {
      if (!isa<ClassTemplateDecl *>(spec->getSpecializedTemplateOrPartial()))
        return std::nullopt; // a partial specialization's parameters differ
      levels.push_back({spec->getSpecializedTemplate()->getTemplateParameters(),
                        &spec->getTemplateArgs()});
    }
  if (const FunctionTemplateDecl *t = pattern->getDescribedFunctionTemplate())
    levels.push_back({t->getTemplateParameters(),
                      instantiation->getTemplateSpecializationArgs()});
  if (levels.empty())
    return std::nullopt; // a member of a nested or local class template
  TemplateSpelling s;
  s.pattern = pattern;
  auto append = [](std::string &to, const std::string &item) {
    to += (to.empty() ? "" : ", ") + item;
  };
  for (auto [params, args] : levels) {
    if (!args || args->size() != params->size())
      return std::nullopt;
    for (unsigned i = 0; i < params->size(); ++i) {
      const NamedDecl *p = params->getParam(i);
      std::string name = p->getNameAsString();
      if (p->isParameterPack() || isa<TemplateTemplateParmDecl>(p) ||
          name.empty())
        return std::nullopt;
      if (const auto *value = dyn_cast<NonTypeTemplateParmDecl>(p))
        append(s.params, value->getType().getAsString(policy) + " " + name);
      else
        append(s.params, "typename " + name);
      append(s.args, name);
      // Builtin and kiln types are named before the source's own
      // declarations; the source's classes after them (userTypes), which
      // must be named from the file's scope: not local, not in an
      // anonymous namespace.
      const TemplateArgument &arg = args->get(i);
      if (arg.getKind() == TemplateArgument::Type) {
        QualType t = arg.getAsType().getCanonicalType();
        const auto *record = t->getAsCXXRecordDecl();
        const auto *ns = record
                             ? dyn_cast<NamespaceDecl>(record->getDeclContext())
                             : nullptr;
        bool early = t->isBuiltinType() || (ns && ns->getName() == "kiln");
        if (!early && (!record || record->isLambda() ||
                       record->isInAnonymousNamespace() ||
                       record->getParentFunctionOrMethod()))
          return std::nullopt;
        s.userTypes |= !early;
      } else if (arg.getKind() != TemplateArgument::Integral ||
                 arg.getIntegralType()->isEnumeralType()) {
        return std::nullopt;
      }
      std::string printed;
      llvm::raw_string_ostream os(printed);
      arg.print(policy, os, /*IncludeType=*/true);
      append(s.values, printed);
    }
  }
  return s;
}

namespace {

/// The instantiations of one template share one source text, which the
/// stitched code rewrites once, choosing each instantiation's graph by its
/// template arguments. That needs every instantiation to have traced the
/// same statements into segments, with the same inputs, outputs and
/// declared types; where they differ (or the template cannot be spelled),
/// every instantiation's statements stay eager, one break each.
void reconcileInstantiations(std::vector<Root> &roots) {
  std::map<const FunctionDecl *, std::vector<Root *>> groups;
  for (Root &r : roots)
    if (const FunctionDecl *pattern =
            r.function->getTemplateInstantiationPattern())
      groups[pattern].push_back(&r);
  // What the stitched text of a segment depends on.
  auto shape = [](const Segment &seg) {
    std::vector<std::string> parts;
    parts.push_back(
        std::to_string(seg.statements.front()->getBeginLoc().getRawEncoding()) +
        "-" +
        std::to_string(seg.statements.back()->getEndLoc().getRawEncoding()) +
        (seg.endsWithReturn ? " return" : "") + (seg.braced ? " braced" : ""));
    for (const GraphInput &in : seg.graph.inputs)
      parts.push_back("in " + in.expr);
    for (const GraphOutput &out : seg.graph.outputs)
      parts.push_back("out " + out.variable + " " +
                      std::to_string(out.returnPart));
    for (const Stmt *s : seg.statements)
      if (const auto *decl = dyn_cast<DeclStmt>(s))
        for (const Decl *d : decl->decls())
          if (const auto *var = dyn_cast<VarDecl>(d))
            parts.push_back("decl " + var->getType().getAsString());
    for (const Expr *part : seg.returnParts)
      parts.push_back("part " + part->getType().getAsString());
    return parts;
  };
  for (auto &[pattern, group] : groups) {
    bool same = true;
    for (Root *r : group) {
      same = same && templateSpelling(r->function).has_value() &&
             r->segments.size() == group[0]->segments.size();
      for (size_t i = 0; same && i < r->segments.size(); ++i)
        same = shape(r->segments[i]) == shape(group[0]->segments[i]) &&
               // The stitched code returns a struct of the root's type.
               (!r->segments[i].returnsRecord ||
                r->function->getReturnType().getCanonicalType() ==
                    group[0]->function->getReturnType().getCanonicalType());
    }
    if (same)
      continue;
    for (Root *r : group) {
      if (r->segments.empty())
        continue;
      r->segments.clear();
      GraphBreak b;
      b.reason = templateSpelling(r->function)
                     ? "a template whose instantiations trace differently "
                       "(one source text serves them all)"
                     : "a template the stitched code cannot name (a "
                       "parameter pack, a template template parameter or a "
                       "partial specialization)";
      b.pos = r->pos;
      b.rawLoc = r->function->getLocation().getRawEncoding();
      r->breaks.push_back(b);
    }
  }
}

/// Every function definition in the main file and the headers it includes.
class RootFinder : public RecursiveASTVisitor<RootFinder> {
public:
  std::vector<const FunctionDecl *> functions;
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *fn) {
    if (fn->doesThisDeclarationHaveABody() && !fn->isDependentContext())
      functions.push_back(fn);
    return true;
  }
};

/// Finds a translation unit's compile roots, traces them and reports their
/// graph breaks through its diagnostics.
class UnitTracer {
public:
  UnitTracer(const FrontendOptions &options, std::string file,
             const CallSites &elsewhere)
      : options_(options), file_(std::move(file)), elsewhere_(elsewhere) {}

  /// An --annotate NAME that names no function of the translation unit
  /// is most likely a typo: a warning (torch's annotations are attached to
  /// objects, so a mismatch cannot happen there).
  void warnUnmatchedAnnotations(ASTContext &context) {
    struct Names : RecursiveASTVisitor<Names> {
      std::set<std::string> names;
      bool shouldVisitTemplateInstantiations() const { return true; }
      bool VisitFunctionDecl(FunctionDecl *fn) {
        names.insert(fn->getQualifiedNameAsString());
        return true;
      }
    } visitor;
    std::vector<std::string> unmatched;
    for (const std::string &spec : options_.annotate) {
      std::string name =
          llvm::StringRef(spec).take_front(spec.find('=')).trim().str();
      unmatched.push_back(name);
    }
    for (const std::string &name : options_.disallowInGraph)
      unmatched.push_back(name);
    if (unmatched.empty())
      return;
    visitor.TraverseDecl(context.getTranslationUnitDecl());
    for (const std::string &name : unmatched)
      if (!visitor.names.count(name))
        llvm::errs() << "kiln: warning: " << file_ << ": no function named '"
                     << name << "' for --annotate or --disallow-in-graph\n";
  }

  /// The unit's roots, traced; false after a malformed annotation or an
  /// error-mode break (reported).
  bool trace(ASTContext &context, std::vector<Root> &roots) {
    DiagnosticsEngine &diags = context.getDiagnostics();
    AnnotationIndex index(options_);
    RootFinder finder;
    finder.TraverseDecl(context.getTranslationUnitDecl());
    auto evidence = std::make_shared<const TypeEvidence>(
        collectTypeEvidence(context, &elsewhere_));
    Tracer tracer(context, index, options_, evidence);
    std::set<const FunctionDecl *> traced;
    for (const FunctionDecl *fn : finder.functions) {
      Annotations a = index.of(fn, diags);
      if (a.compile && !a.disable && traced.insert(fn).second)
        roots.push_back(tracer.traceRoot(fn, a));
    }
    // Callees that break, and callees of KILN_DISABLE(recursive=false)
    // functions, are compiled as roots of their own.
    for (std::vector<const FunctionDecl *> work = tracer.takeDerivedRoots();
         !work.empty(); work = tracer.takeDerivedRoots()) {
      for (const FunctionDecl *fn : work) {
        Annotations a = index.of(fn, diags);
        if ((a.disable && a.disableRecursive) || !traced.insert(fn).second)
          continue;
        a.compile = true;
        a.disable = false;
        Root root = tracer.traceRoot(fn, a);
        root.derived = true;
        roots.push_back(std::move(root));
      }
    }
    bool writes = unitWritesInPlace(context);
    for (Root &root : roots) {
      root.unitWritesInPlace = writes;
      root.graphLocals = graphLocals(root);
    }
    tracer.warnUnknownSignatures();
    warnUnmatchedAnnotations(context);
    countBreaksOnce(roots);
    reconcileInstantiations(roots);
    roots.erase(std::remove_if(roots.begin(), roots.end(),
                               [](const Root &r) {
                                 return r.derived && r.segments.empty() &&
                                        r.breaks.empty() &&
                                        r.hostCalls.empty() &&
                                        r.hostLoops.empty();
                               }),
                roots.end());
    if (diags.hasErrorOccurred()) // malformed annotations
      return false;
    report(context, roots);
    return llvm::none_of(
        roots, [&](const Root &r) { return r.failed && options_.breakErrors; });
  }

private:
  /// A break is counted once, where it is caused: a break reached through
  /// a callee that is a root of its own is that root's, and the call in
  /// the caller is a host call (a consequence); a statement traced twice
  /// (speculatively, then as host code) records its break once.
  static void countBreaksOnce(std::vector<Root> &roots) {
    std::set<const FunctionDecl *> rootFunctions;
    for (const Root &r : roots)
      rootFunctions.insert(r.function->getCanonicalDecl());
    for (Root &r : roots) {
      std::set<std::tuple<unsigned, std::vector<unsigned>, std::string>> seen;
      std::set<unsigned> calls;
      std::vector<GraphBreak> own;
      for (GraphBreak &b : r.breaks) {
        if (!seen.insert({b.rawLoc, b.rawFrameLocs, b.reason}).second)
          continue;
        const Frame *outermost =
            b.inlinedFrom.empty() ? nullptr : &b.inlinedFrom.back();
        if (outermost && outermost->decl &&
            rootFunctions.count(outermost->decl->getCanonicalDecl())) {
          if (calls.insert(b.rawFrameLocs.back()).second)
            r.hostCalls.push_back({outermost->function, outermost->pos, b});
          continue;
        }
        if (b.hostLoop)
          r.hostLoops.push_back(std::move(b));
        else
          own.push_back(std::move(b));
      }
      r.breaks = std::move(own);
    }
  }

  void report(ASTContext &context, const std::vector<Root> &roots) {
    DiagnosticsEngine &diags = context.getDiagnostics();
    unsigned errorId =
        diags.getCustomDiagID(DiagnosticsEngine::Error, "graph break: %0");
    unsigned noteId =
        diags.getCustomDiagID(DiagnosticsEngine::Note, "inlined from '%0'");
    // A break reached along the same chain from two roots (a root inlined
    // into another) is reported once.
    std::set<std::pair<std::vector<unsigned>, std::string>> reported;
    // A derived root's break that was reported through a caller (with
    // that caller's chain) is not reported again without it.
    std::set<std::pair<unsigned, std::string>> sites;
    for (const Root &root : roots) {
      // (break, counted here): a host call's cause is reported as an error
      // where its chain's mode says so, and logged in the callee's root.
      std::vector<std::pair<const GraphBreak *, bool>> all;
      for (const GraphBreak &b : root.breaks)
        all.push_back({&b, true});
      for (const GraphBreak &b : root.hostLoops)
        all.push_back({&b, true});
      for (const HostCall &c : root.hostCalls) {
        if (options_.logEnabled("graph_breaks"))
          llvm::errs() << "kiln: in " << root.name << ", the call to "
                       << c.callee << " at " << formatPos(c.pos)
                       << " stays on the host: " << c.callee << " breaks\n";
        // Its break is counted in the callee's root; the mode in force
        // along this chain decides whether it is an error here.
        if (c.cause.isError)
          all.push_back({&c.cause, false});
      }
      for (const auto &[bp, own] : all) {
        const GraphBreak &b = *bp;
        if (own && options_.logEnabled("graph_breaks")) {
          llvm::errs() << "kiln: "
                       << (b.hostLoop ? "loop left on the host in "
                                      : "graph break in ")
                       << root.name << ": " << b.reason << " at "
                       << formatPos(b.pos) << "\n";
          for (const Frame &f : b.inlinedFrom)
            llvm::errs() << "  inlined from " << f.function << " at "
                         << formatPos(f.pos) << "\n";
        }
        std::vector<unsigned> chain = {b.rawLoc};
        chain.insert(chain.end(), b.rawFrameLocs.begin(), b.rawFrameLocs.end());
        if (!b.isError || !options_.breakErrors ||
            (root.derived && sites.count({b.rawLoc, b.reason})) ||
            !reported.insert({chain, b.reason}).second)
          continue;
        sites.insert({b.rawLoc, b.reason});
        diags.Report(SourceLocation::getFromRawEncoding(b.rawLoc), errorId)
            << b.reason;
        for (size_t i = 0; i < b.inlinedFrom.size(); ++i)
          diags.Report(SourceLocation::getFromRawEncoding(b.rawFrameLocs[i]),
                       noteId)
              << b.inlinedFrom[i].function;
      }
    }
  }

  const FrontendOptions &options_;
  std::string file_;
  const CallSites &elsewhere_;
};

/// Gathers the call sites of another source of the program (--call-sites):
/// what it passes to the functions it declares and this file defines.
class CallSitesConsumer : public ASTConsumer {
public:
  explicit CallSitesConsumer(CallSites &out) : out_(out) {}
  void HandleTranslationUnit(ASTContext &context) override {
    if (context.getDiagnostics().hasErrorOccurred())
      return;
    exportCallSites(context, collectTypeEvidence(context), out_);
  }

private:
  CallSites &out_;
};

class CallSitesActionFactory : public tooling::FrontendActionFactory {
public:
  explicit CallSitesActionFactory(CallSites &out) : out_(out) {}
  std::unique_ptr<FrontendAction> create() override {
    struct Action : ASTFrontendAction {
      explicit Action(CallSites &out) : out(out) {}
      std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                     llvm::StringRef) override {
        return std::make_unique<CallSitesConsumer>(out);
      }
      CallSites &out;
    };
    return std::make_unique<Action>(out_);
  }

private:
  CallSites &out_;
};

} // namespace

std::vector<const FunctionDecl *>
recursivelyDisabled(ASTContext &context, const FrontendOptions &options) {
  AnnotationIndex index(options);
  RootFinder finder;
  finder.TraverseDecl(context.getTranslationUnitDecl());
  std::vector<const FunctionDecl *> out;
  for (const FunctionDecl *fn : finder.functions) {
    Annotations a = index.of(fn, context.getDiagnostics());
    if (a.disable && a.disableRecursive)
      out.push_back(fn);
  }
  return out;
}

std::vector<std::string> kilnIncludeDirs() {
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&kilnIncludeDirs));
  llvm::SmallString<256> installed(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(installed, "include");
  llvm::SmallString<256> header(installed);
  llvm::sys::path::append(header, "kiln", "kiln.h");
  if (llvm::sys::fs::exists(header))
    return {std::string(installed)};
  return {KILN_SOURCE_INCLUDE_DIR, KILN_BINARY_INCLUDE_DIR};
}

namespace {
/// What clang prints when a file is done: "2 warnings and 1 error
/// generated."
void printDiagnosticStats(const DiagnosticConsumer &printer) {
  unsigned warnings = printer.getNumWarnings(), errors = printer.getNumErrors();
  if (!warnings && !errors)
    return;
  llvm::raw_ostream &os = llvm::errs();
  if (warnings)
    os << warnings << " warning" << (warnings == 1 ? "" : "s");
  if (warnings && errors)
    os << " and ";
  if (errors)
    os << errors << " error" << (errors == 1 ? "" : "s");
  os << " generated.\n";
}
} // namespace

TranslationUnit::TranslationUnit(
    std::unique_ptr<clang::ASTUnit> ast,
    std::unique_ptr<clang::DiagnosticConsumer> printer)
    : printer_(std::move(printer)), ast_(std::move(ast)) {
  // The diagnostics made after parsing (the tracer's, the driver's) go
  // where the parser's went, counted with them.
  printer_->BeginSourceFile(ast_->getLangOpts(), &ast_->getPreprocessor());
}

TranslationUnit::~TranslationUnit() {
  printer_->EndSourceFile();
  printDiagnosticStats(*printer_);
  ast_.reset(); // before the printer it reports to
}

ASTContext &TranslationUnit::context() { return ast_->getASTContext(); }

std::string TranslationUnit::file() const {
  return ast_->getMainFileName().str();
}

void TranslationUnit::report(const Root &root, bool error,
                             const std::string &message) {
  DiagnosticsEngine &diags = ast_->getDiagnostics();
  unsigned id = diags.getCustomDiagID(
      error ? DiagnosticsEngine::Error : DiagnosticsEngine::Warning, "%0");
  // A root left as host code is said, whatever -w or -Werror make of the
  // source's own warnings: it is Kiln's report, and the build succeeds.
  bool werror = diags.getWarningsAsErrors(),
       quiet = diags.getIgnoreAllWarnings();
  diags.setWarningsAsErrors(false);
  diags.setIgnoreAllWarnings(false);
  llvm::scope_exit restore([&] {
    diags.setWarningsAsErrors(werror);
    diags.setIgnoreAllWarnings(quiet);
  });
  diags.Report(root.function ? root.function->getLocation() : SourceLocation(),
               id)
      << message;
}

bool TranslationUnit::failed() const {
  return ast_->getDiagnostics().hasErrorOccurred();
}

int parseAndTrace(const FrontendOptions &options,
                  std::vector<std::unique_ptr<TranslationUnit>> &units) {
  std::unique_ptr<tooling::CompilationDatabase> database;
  std::string error;
  if (!options.buildDir.empty()) {
    database = tooling::CompilationDatabase::loadFromDirectory(options.buildDir,
                                                               error);
    if (!database) {
      llvm::errs() << "kiln: error: " << error << "\n";
      return 2;
    }
  } else {
    std::vector<std::string> args = {"-std=c++17"};
    database = std::make_unique<tooling::FixedCompilationDatabase>(".", args);
  }
  std::vector<std::string> extra = {"-resource-dir=" KILN_CLANG_RESOURCE_DIR,
                                    "-fsyntax-only",
                                    "-Wno-unused-command-line-argument"};
  for (const std::string &dir : kilnIncludeDirs())
    extra.push_back("-I" + dir);
  extra.insert(extra.end(), options.clangArgs.begin(), options.clangArgs.end());
  auto adjust = [&](tooling::ClangTool &tool) {
    tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        extra, tooling::ArgumentInsertPosition::END));
    tool.appendArgumentsAdjuster(tooling::getClangStripOutputAdjuster());
    tool.appendArgumentsAdjuster(
        tooling::getClangStripDependencyFileAdjuster());
  };
  // Clang's own diagnostics, the driver's included (an unknown argument
  // after --): any error fails the command.
  static DiagnosticOptions diagOptions;
  TextDiagnosticPrinter printer(llvm::errs(), diagOptions);
  // Clang's located errors say it all: no "Error while processing FILE."
  auto report = [&](tooling::ClangTool &tool, DiagnosticConsumer &to) {
    tool.setDiagnosticConsumer(&to);
    tool.setPrintErrorMessage(false);
  };
  // The program's other sources first: their calls of this file's
  // functions are call sites too.
  CallSites elsewhere;
  if (!options.callSiteFiles.empty()) {
    tooling::ClangTool others(*database, options.callSiteFiles);
    adjust(others);
    report(others, printer);
    CallSitesActionFactory callSites(elsewhere);
    if (others.run(&callSites) != 0 || printer.getNumErrors() > 0)
      return 1;
  }
  // Each file with a printer of its own, which its unit keeps: the
  // diagnostics of parsing, tracing and compiling it are counted together.
  bool failed = false;
  for (const std::string &file : options.files) {
    tooling::ClangTool tool(*database, {file});
    adjust(tool);
    auto unitPrinter =
        std::make_unique<TextDiagnosticPrinter>(llvm::errs(), diagOptions);
    report(tool, *unitPrinter);
    std::vector<std::unique_ptr<ASTUnit>> asts;
    // (An error of Clang's driver, an unknown flag, is counted there. A
    // file the compile database lists under several commands is traced
    // for the first.)
    if (tool.buildASTs(asts) != 0 || asts.empty() ||
        unitPrinter->getNumErrors() > 0) {
      printDiagnosticStats(*unitPrinter);
      failed = true;
      continue;
    }
    auto unit = std::make_unique<TranslationUnit>(std::move(asts.front()),
                                                  std::move(unitPrinter));
    UnitTracer tracer(options, unit->file(), elsewhere);
    if (!tracer.trace(unit->context(), unit->roots))
      failed = true;
    units.push_back(std::move(unit));
  }
  return failed ? 1 : 0;
}

} // namespace kiln::frontend
