//===- kiln/Frontend/GraphBuilder.h - Traced graphs to MLIR -----*- C++ -*-===//
#ifndef KILN_FRONTEND_GRAPHBUILDER_H
#define KILN_FRONTEND_GRAPHBUILDER_H

#include "kiln/Frontend/TraceGraph.h"

#include <memory>
#include <string>

namespace mlir {
class MLIRContext;
class ModuleOp;
class Type;
} // namespace mlir

namespace kiln::frontend {

/// A graph built once on open tensor types, as the source wrote it (no op
/// depends on its inputs' types), and typed as often as its type versions
/// need: each typing a copy refined from the inputs' types by the
/// dialect's own inference (refineOp, kiln-refine-types), traced op by
/// traced op.
class OpenGraph {
public:
  OpenGraph(const Graph &graph, mlir::MLIRContext &context);
  ~OpenGraph();
  /// `graph` (this one, its inputs' types chosen) typed: each value takes
  /// the type of the op built for it. Fails with why it cannot be.
  llvm::Error type(Graph &graph) const;
  /// The function of `graph` (this one, typed) added to module.
  llvm::Error addTo(mlir::ModuleOp module, const Graph &graph) const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

/// inferSignature's typing of `graph` by `open`, built from it.
llvm::Error inferSignature(Graph &graph, const OpenGraph &open);

/// Adds `graph` (typed by inferSignature) to module as a public func.func in
/// the kiln dialect: tensor inputs ranked with dynamic sizes, host scalars
/// as i64/f32/f64/i1, scalar outputs as 0-d tensors, verified. Fails with
/// why the graph cannot be built (and adds nothing).
llvm::Error buildGraphFunction(mlir::ModuleOp module, const Graph &graph);

/// The context of this thread in which graphs are typed and printed: the
/// dialects a graph function uses loaded, no threads of its own.
mlir::MLIRContext &graphContext();

/// The frontend's name of a tensor element type (f32 for any other).
ElementType elementOf(mlir::Type type);

} // namespace kiln::frontend

#endif
