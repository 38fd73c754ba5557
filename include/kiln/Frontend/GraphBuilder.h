//===- kiln/Frontend/GraphBuilder.h - Traced graphs to MLIR -----*- C++ -*-===//
#ifndef KILN_FRONTEND_GRAPHBUILDER_H
#define KILN_FRONTEND_GRAPHBUILDER_H

#include "kiln/Frontend/TraceGraph.h"

#include <string>

namespace mlir {
class MLIRContext;
class ModuleOp;
class Type;
} // namespace mlir

namespace kiln::frontend {

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
