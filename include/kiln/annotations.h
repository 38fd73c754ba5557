//===- kiln/annotations.h - Compilation annotations -------------*- C++ -*-===//
//
// The markers `kiln compile` reads (docs/annotations.md). Under clang they are
// [[clang::annotate("kiln.*", args...)]] attributes, which the compiler keeps
// in the AST; under any other compiler they expand to nothing, so annotated
// model code builds and runs eagerly everywhere.
//
//   KILN_COMPILE()                  @torch.compile (args: "fullgraph=true",
//                                   "backend=cpu", written unquoted)
//   KILN_DISABLE()                  @torch.compiler.disable
//   KILN_ALLOW_IN_GRAPH()           torch.compiler.allow_in_graph
//   KILN_DISALLOW_IN_GRAPH()        torch._dynamo.disallow_in_graph
//   KILN_ERROR_ON_GRAPH_BREAK(b)    @torch._dynamo.error_on_graph_break(b)
//   kiln::graph_break();            torch._dynamo.graph_break()
//   kiln::error_on_graph_break g(b) with error_on_graph_break(b):
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANNOTATIONS_H
#define KILN_ANNOTATIONS_H

// Each argument is turned into a string so that the user writes
// KILN_COMPILE(fullgraph=true) rather than KILN_COMPILE("fullgraph=true").
#define KILN_DETAIL_STR(x) #x
#define KILN_DETAIL_ARGS0()
#define KILN_DETAIL_ARGS1(a) , #a
#define KILN_DETAIL_ARGS2(a, b) , #a, #b
#define KILN_DETAIL_ARGS3(a, b, c) , #a, #b, #c
#define KILN_DETAIL_PICK(_0, _1, _2, _3, NAME, ...) NAME
#define KILN_DETAIL_ARGS(...)                                                  \
  KILN_DETAIL_PICK(_0, ##__VA_ARGS__, KILN_DETAIL_ARGS3, KILN_DETAIL_ARGS2,    \
                   KILN_DETAIL_ARGS1, KILN_DETAIL_ARGS0)                       \
  (__VA_ARGS__)

#if defined(__clang__)
#define KILN_DETAIL_ANNOTATE(kind, ...)                                        \
  [[clang::annotate(kind KILN_DETAIL_ARGS(__VA_ARGS__))]]
#else
#define KILN_DETAIL_ANNOTATE(kind, ...)
#endif

#define KILN_COMPILE(...) KILN_DETAIL_ANNOTATE("kiln.compile", ##__VA_ARGS__)
#define KILN_DISABLE(...) KILN_DETAIL_ANNOTATE("kiln.disable", ##__VA_ARGS__)
#define KILN_ALLOW_IN_GRAPH() KILN_DETAIL_ANNOTATE("kiln.allow_in_graph")
#define KILN_DISALLOW_IN_GRAPH() KILN_DETAIL_ANNOTATE("kiln.disallow_in_graph")
#define KILN_ERROR_ON_GRAPH_BREAK(value)                                       \
  KILN_DETAIL_ANNOTATE("kiln.error_on_graph_break", value)

namespace kiln {

/// An explicit graph break when compiled; does nothing at run time.
inline void graph_break() {}

/// Sets the error-on-graph-break mode from its declaration to the end of the
/// enclosing block when compiled; does nothing at run time.
class error_on_graph_break {
public:
  explicit error_on_graph_break(bool value) { (void)value; }
  error_on_graph_break(const error_on_graph_break &) = delete;
  error_on_graph_break &operator=(const error_on_graph_break &) = delete;
};

} // namespace kiln

#endif // KILN_ANNOTATIONS_H
