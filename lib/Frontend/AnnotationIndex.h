//===- AnnotationIndex.h - What the user asked of each function -*- C++ -*-===//
//
// Collects the kiln annotations (docs/annotations.md) from a translation unit:
// the [[clang::annotate("kiln.*", ...)]] attributes that the KILN_* macros
// expand to (on any redeclaration), the command line's --annotate and
// --disallow-in-graph, and answers per function.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_FRONTEND_ANNOTATIONINDEX_H
#define KILN_LIB_FRONTEND_ANNOTATIONINDEX_H

#include "kiln/Frontend/Frontend.h"
#include "kiln/Pipelines/Backend.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
class DiagnosticsEngine;
} // namespace clang

namespace kiln::frontend {

struct Annotations {
  bool compile = false;   // KILN_COMPILE()
  bool fullgraph = false; // KILN_COMPILE(fullgraph=true)
  std::optional<mlir::kiln::Backend>
      backend;          // KILN_COMPILE(backend=...), else the CLI's
  bool disable = false; // KILN_DISABLE()
  bool disableRecursive = true;
  bool allowInGraph = false;
  bool disallowInGraph = false;
  std::optional<bool> errorOnGraphBreak;
};

class AnnotationIndex {
public:
  explicit AnnotationIndex(const FrontendOptions &options);

  /// The annotations of fn (all its redeclarations, and the command line's
  /// for its qualified name). Malformed arguments are reported once through
  /// diags.
  Annotations of(const clang::FunctionDecl *fn,
                 clang::DiagnosticsEngine &diags) const;

private:
  struct CliAnnotation {
    std::string name;
    std::string annotation;
  };
  std::vector<CliAnnotation> cli_;
  std::vector<std::string> disallowed_;
};

/// Applies one annotation ("compile", "compile(fullgraph=true)", "disable",
/// "disable(recursive=false)", "allow_in_graph", "disallow_in_graph",
/// "error_on_graph_break(true)") to a; false if it is not one.
bool applyAnnotation(const std::string &kind,
                     const std::vector<std::string> &args, Annotations &a);

/// Splits "name(a, b)" into "name" and {"a", "b"}; false if malformed.
bool parseAnnotation(const std::string &text, std::string &kind,
                     std::vector<std::string> &args);

} // namespace kiln::frontend

#endif
