//===- AnnotationIndex.cpp - What the user asked of each function ---------===//
#include "AnnotationIndex.h"

#include <set>

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"

using namespace clang;

namespace kiln::frontend {

bool parseAnnotation(const std::string &text, std::string &kind,
                     std::vector<std::string> &args) {
  llvm::StringRef s = llvm::StringRef(text).trim();
  size_t open = s.find('(');
  if (open == llvm::StringRef::npos) {
    kind = s.str();
    return !kind.empty();
  }
  if (!s.ends_with(")"))
    return false;
  kind = s.take_front(open).trim().str();
  llvm::StringRef inside = s.slice(open + 1, s.size() - 1).trim();
  if (inside.empty()) // compile()
    return !kind.empty();
  llvm::SmallVector<llvm::StringRef> parts;
  inside.split(parts, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef p : parts) {
    if (p.trim().empty()) // compile(,), compile(fullgraph=true,)
      return false;
    args.push_back(p.trim().str());
  }
  return !kind.empty();
}

namespace {
/// "key=value" or "value" (for a positional flag).
bool splitArg(const std::string &arg, std::string &key, std::string &value) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos) {
    key.clear();
    value = llvm::StringRef(arg).trim().str();
    return true;
  }
  key = llvm::StringRef(arg).take_front(eq).trim().str();
  value = llvm::StringRef(arg).drop_front(eq + 1).trim().str();
  return !key.empty();
}

bool parseBool(const std::string &v, bool &out) {
  if (v == "true" || v == "1") {
    out = true;
    return true;
  }
  if (v == "false" || v == "0") {
    out = false;
    return true;
  }
  return false;
}
} // namespace

bool applyAnnotation(const std::string &kind,
                     const std::vector<std::string> &args, Annotations &a) {
  std::string key, value;
  if (kind == "compile") {
    a.compile = true;
    std::set<std::string> seen;
    for (const std::string &arg : args) {
      if (!splitArg(arg, key, value) || !seen.insert(key).second)
        return false; // (a key given twice is a contradiction)
      if (key == "fullgraph") {
        if (!parseBool(value, a.fullgraph))
          return false;
      } else if (key == "backend") {
        a.backend = mlir::kiln::parseBackend(value);
        if (!a.backend)
          return false;
      } else {
        return false;
      }
    }
    return true;
  }
  if (kind == "disable") {
    a.disable = true;
    for (const std::string &arg : args) {
      if (!splitArg(arg, key, value) || key != "recursive" ||
          !parseBool(value, a.disableRecursive))
        return false;
    }
    return true;
  }
  if (kind == "allow_in_graph" || kind == "disallow_in_graph") {
    (kind == "allow_in_graph" ? a.allowInGraph : a.disallowInGraph) = true;
    return args.empty();
  }
  if (kind == "error_on_graph_break") {
    bool v;
    if (args.size() != 1 || !splitArg(args[0], key, value) || !key.empty() ||
        !parseBool(value, v))
      return false;
    a.errorOnGraphBreak = v;
    return true;
  }
  return false;
}

llvm::Error checkAnnotateOption(const std::string &spec) {
  size_t eq = spec.find('=');
  std::string kind;
  std::vector<std::string> args;
  Annotations ignored;
  if (eq == std::string::npos || eq == 0)
    return llvm::createStringError("expected NAME=ANNOTATION");
  if (!parseAnnotation(spec.substr(eq + 1), kind, args) ||
      !applyAnnotation(kind, args, ignored))
    return llvm::createStringError(
        "unknown annotation '" + spec.substr(eq + 1) +
        "' (compile[(fullgraph=true|false, backend=eager|aot_eager|cpu|cuda)], "
        "disable[(recursive=false)], allow_in_graph, disallow_in_graph, "
        "error_on_graph_break(true|false))");
  return llvm::Error::success();
}

AnnotationIndex::AnnotationIndex(const FrontendOptions &options)
    : disallowed_(options.disallowInGraph) {
  for (const std::string &spec : options.annotate) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos)
      continue; // the driver validated the syntax
    cli_.push_back({llvm::StringRef(spec).take_front(eq).trim().str(),
                    llvm::StringRef(spec).drop_front(eq + 1).trim().str()});
  }
}

Annotations AnnotationIndex::of(const FunctionDecl *fn,
                                DiagnosticsEngine &diags) const {
  Annotations a;
  // Template instantiations carry the annotations of their pattern.
  if (const FunctionDecl *pattern = fn->getTemplateInstantiationPattern())
    fn = pattern;
  for (const FunctionDecl *decl : fn->redecls()) {
    for (const AnnotateAttr *attr : decl->specific_attrs<AnnotateAttr>()) {
      llvm::StringRef tag = attr->getAnnotation();
      if (!tag.consume_front("kiln."))
        continue;
      std::vector<std::string> args;
      for (Expr *arg : attr->args())
        if (auto *str = dyn_cast<StringLiteral>(arg->IgnoreParenImpCasts()))
          args.push_back(str->getString().str());
      if (!applyAnnotation(tag.str(), args, a)) {
        unsigned id = diags.getCustomDiagID(
            DiagnosticsEngine::Error, "malformed kiln annotation '%0' on '%1'");
        diags.Report(attr->getLocation(), id)
            << tag << fn->getQualifiedNameAsString();
      }
    }
  }
  std::string name = fn->getQualifiedNameAsString();
  for (const CliAnnotation &c : cli_) {
    if (c.name != name)
      continue;
    std::string kind;
    std::vector<std::string> args;
    if (parseAnnotation(c.annotation, kind, args))
      applyAnnotation(kind, args, a);
  }
  for (const std::string &d : disallowed_)
    if (d == name)
      a.disallowInGraph = true;
  return a;
}

} // namespace kiln::frontend
