//===- kiln/Frontend/GraphBuilder.h - Traced graphs to MLIR -----*- C++ -*-===//
#ifndef KILN_FRONTEND_GRAPHBUILDER_H
#define KILN_FRONTEND_GRAPHBUILDER_H

#include "kiln/Frontend/TraceGraph.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace kiln::frontend {

/// Adds `graph` (typed by inferSignature) to module as a public func.func in
/// the kiln dialect: tensor inputs ranked with dynamic sizes, host scalars
/// as i64/f32/f64/i1, scalar outputs as 0-d tensors, verified. Fails with
/// why the graph cannot be built (and adds nothing).
llvm::Error buildGraphFunction(mlir::ModuleOp module, const Graph &graph);

} // namespace kiln::frontend

#endif
