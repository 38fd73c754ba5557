//===- kiln/Frontend/Frontend.h - C++ sources to traced graphs --*- C++ -*-===//
//
// The frontend of `kiln compile` and `kiln explain`: parses C++ sources with
// Clang (LibTooling), finds the compile roots, traces each root's tensor work
// into graphs (kiln/Frontend/Graph.h) and records every graph break with
// its reason, location and inline chain. What is done with the result
// (explain's report, code generation and stitching) is the caller's: each
// translation unit comes back with its AST alive.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_FRONTEND_H
#define KILN_FRONTEND_FRONTEND_H

#include "kiln/Frontend/Graph.h"
#include "kiln/Pipelines/Backend.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace clang {
class ASTContext;
class ASTUnit;
class Decl;
class DiagnosticConsumer;
class Rewriter;
class Stmt;
class Expr;
class FunctionDecl;
class VarDecl;
class LambdaExpr;
} // namespace clang

namespace kiln::frontend {

struct FrontendOptions {
  std::vector<std::string> files;
  /// Arguments for clang after `--` (and those of a compile database).
  std::vector<std::string> clangArgs;
  std::string buildDir;              // -p: where compile_commands.json is
  std::vector<std::string> annotate; // NAME=ANNOTATION
  std::vector<std::string> disallowInGraph; // qualified names
  /// --signature: 'NAME(f32[?,?], _)' (kiln/Frontend/Signature.h), and
  /// those of a --signatures file (a KILN_RECORD run), which --signature
  /// overrides.
  std::vector<std::string> signatures, recordedSignatures;
  /// --call-sites: other sources of the program, whose calls of the
  /// functions `files` define count as their call sites (kiln_compile
  /// passes a target's other sources).
  std::vector<std::string> callSiteFiles;
  mlir::kiln::Backend backend =
      mlir::kiln::Backend::Cpu; // the default per root
  bool suppressErrors = false;
  /// Breaks in error mode are compile errors (compile); explain only
  /// reports them.
  bool breakErrors = true;
  /// KILN_LOGS-style names: graph_breaks, graph_code, guards.
  std::vector<std::string> logs;
  bool logEnabled(const std::string &name) const;
  /// The context the graphs' ops are built in (the one they are compiled
  /// in); null: graphContext().
  mlir::MLIRContext *context = nullptr;
};

/// One frame of an inline chain: the call site and the callee's name.
struct Frame {
  SourcePos pos;
  std::string function;
  const clang::FunctionDecl *decl = nullptr; // while the AST lives
};

struct GraphBreak {
  std::string reason;
  SourcePos pos;
  std::vector<Frame> inlinedFrom; // innermost first
  bool isError = false;           // the mode in force was "error"
  /// A loop whose trip count is known only at run time: it stays on the
  /// host and its body's graphs run once per iteration. Listed apart from
  /// the breaks (Root::hostLoops), an error only where the mode says so.
  bool hostLoop = false;
  /// clang::SourceLocation raw encodings of pos and of each frame's call
  /// site, for diagnostics while the AST lives.
  unsigned rawLoc = 0;
  std::vector<unsigned> rawFrameLocs;
};

/// A call in a root's body that stays on the host only because the callee
/// breaks: a consequence of that break, which is counted once, in the
/// callee's own root (docs/frontend.md), not a break of this root.
struct HostCall {
  std::string callee; // qualified name
  SourcePos pos;      // the call, in this root's body
  /// The break beneath the call as reached from this root: its inline
  /// chain and the error-on-break mode in force along it.
  GraphBreak cause;
};

/// A run of consecutive statements of one block, captured as one graph.
struct Segment {
  Graph graph;
  /// The statements, in order, all children of one compound statement (the
  /// stitched code declares the variables their declarations name before
  /// the graph call).
  std::vector<const clang::Stmt *> statements;
  /// The last statement returns the graph's output without a variable.
  bool endsWithReturn = false;
  /// When it returns braces (`return {logits, loss};`, `return Out{a,
  /// b};`): their elements, each a graph output (returnPart).
  std::vector<const clang::Expr *> returnParts;
  /// When it returns a struct the graph computes (`return block(x);`):
  /// each field an output (returnPart), the variable naming the field of
  /// `kiln_record_`, the struct the stitched code returns.
  bool returnsRecord = false;
  /// False when the statements are an if's or a loop's unbraced body.
  bool braced = true;
  /// When set, the graph runs as these specializations instead, chosen by
  /// the values of its host bools (specializeOnHostBools).
  std::vector<GraphVariant> variants;

  /// The graphs it is compiled as: its variants, or the graph itself.
  std::vector<Graph *> compiledGraphs() { return compiledGraphsOf(*this); }
  std::vector<const Graph *> compiledGraphs() const {
    return compiledGraphsOf(*this);
  }

private:
  template <typename Self>
  static std::vector<decltype(&std::declval<Self &>().graph)>
  compiledGraphsOf(Self &self) {
    std::vector<decltype(&self.graph)> graphs;
    for (auto &v : self.variants)
      graphs.push_back(&v.graph);
    if (graphs.empty())
      graphs.push_back(&self.graph);
    return graphs;
  }
};

struct Root {
  const clang::FunctionDecl *function = nullptr;
  std::string name; // qualified, as explain prints it
  mlir::kiln::Backend backend = mlir::kiln::Backend::Cpu;
  bool fullgraph = false;
  SourcePos pos;
  std::vector<Segment> segments;
  /// The breaks caused in this root's own body (or in callees that are not
  /// roots of their own), each once.
  std::vector<GraphBreak> breaks;
  std::vector<HostCall> hostCalls;
  /// The loops of its own body left on the host (GraphBreak::hostLoop).
  std::vector<GraphBreak> hostLoops;
  /// An error-mode break or an internal failure: not compiled.
  bool failed = false;
  /// Why its graphs are left as host code (a guessed type that did not
  /// fit, --suppress-errors), or empty: the stitched code says so when the
  /// root is called, once, and counts each call (KILN_STATS).
  std::string leftOnHost;
  /// Not annotated: a callee that breaks, or a callee of a
  /// KILN_DISABLE(recursive=false) function, compiled as a root of its own.
  bool derived = false;
  /// The first op of its body, or of a function it calls whose body is
  /// visible, that modifies a tensor in place ("Tensor::add_ at f.cpp:3:5"),
  /// or empty. Such a call is host code between the root's graphs (a graph
  /// break); compiled graphs return views as tensors of their own, so a
  /// root whose graphs return views runs eagerly, where views alias (the
  /// driver leaves it as host code).
  std::string inPlace;
  /// Its translation unit modifies tensors in place somewhere: a root whose
  /// graphs return a view of an input, or views of one tensor as two
  /// outputs, runs eagerly too (a caller could write through one).
  bool unitWritesInPlace = false;
  /// The tensor locals of its function that only its graphs' statements
  /// declare, read and write (the output the MoE's expert loop carries):
  /// every value they hold is a tensor a graph made, which nothing outside
  /// the root can see, so a graph that returns one returns no caller's
  /// tensor.
  std::set<std::string> graphLocals;
};

/// One parsed translation unit with its compile roots, traced: its AST
/// lives as long as this does.
class TranslationUnit {
public:
  /// `printer`: where the unit's diagnostics went while it was parsed.
  TranslationUnit(std::unique_ptr<clang::ASTUnit> ast,
                  std::unique_ptr<clang::DiagnosticConsumer> printer);
  /// Prints clang's count of the unit's warnings and errors.
  ~TranslationUnit();
  TranslationUnit(const TranslationUnit &) = delete;
  TranslationUnit &operator=(const TranslationUnit &) = delete;

  clang::ASTContext &context();
  /// The main file, as Clang names it.
  std::string file() const;
  /// Reports at `root` through the unit's Clang diagnostics, as graph
  /// breaks are reported: `file:line:col: error: message` (or warning).
  void report(const Root &root, bool error, const std::string &message);
  /// Whether an error has been reported in this unit (parsing included).
  bool failed() const;

  std::vector<Root> roots;

private:
  std::unique_ptr<clang::DiagnosticConsumer> printer_;
  std::unique_ptr<clang::ASTUnit> ast_;
};

/// Parses every file and traces its compile roots into `units` (those
/// that parse). Diagnostics (graph-break errors included) go to stderr in
/// clang's format. Returns 0; 1 if a file failed to parse or an
/// error-mode break was found; 2 for a compile database that cannot be
/// read.
int parseAndTrace(const FrontendOptions &options,
                  std::vector<std::unique_ptr<TranslationUnit>> &units);

/// The functions defined in context's translation unit that are marked
/// KILN_DISABLE() (recursive): their bodies stay eager even below compiled
/// code.
std::vector<const clang::FunctionDecl *>
recursivelyDisabled(clang::ASTContext &context, const FrontendOptions &options);

/// The include directories of Kiln's public headers that the frontend
/// adds to every file's flags: beside the installed tool, else the source
/// and build trees'.
std::vector<std::string> kilnIncludeDirs();

/// Checks one --annotate NAME=ANNOTATION: an error saying why if malformed.
llvm::Error checkAnnotateOption(const std::string &spec);

/// file:line:col of a position.
std::string formatPos(const SourcePos &pos);

/// How stitched code names one instantiation of a templated root, whose
/// source text serves every instantiation: the template parameters in
/// scope in its body (its class template's, then its own) as a parameter
/// list and as arguments, and this instantiation's arguments. nullopt for
/// what it cannot spell (packs, template template parameters, partial
/// specializations) or for a function that is not an instantiation.
struct TemplateSpelling {
  const clang::FunctionDecl *pattern = nullptr;
  std::string params; // "typename T, int N"
  std::string args;   // "T, N"
  std::string values; // "float, 4"
  /// Some argument is a class of the source: the stitched code names this
  /// instantiation after the source's declarations, at the file's end.
  bool userTypes = false;
};
std::optional<TemplateSpelling>
templateSpelling(const clang::FunctionDecl *instantiation);

/// Whether a declaration in a function body only names things (a using
/// declaration or directive, a typedef or alias, a namespace alias,
/// static_assert): nothing runs, so the tracer passes over it, and the
/// stitched code keeps it in scope before a graph's call.
bool declaresNamesOnly(const clang::Decl *decl);

/// The lambda a local is initialized with (`auto f = [n](...) {...};`,
/// parentheses and temporaries aside), or null: the tracer inlines its
/// body where it is called, and the stitched code makes it before the graph
/// call (the two must agree on which declarations make lambdas).
const clang::LambdaExpr *lambdaOf(const clang::VarDecl *var);

} // namespace kiln::frontend

#endif
