//===- kiln/Frontend/GraphBody.h - A traced graph's kiln ops --*- C++
//-*-===//
//
// The tracer builds each graph's ops in the kiln dialect as it walks the
// source: a func.func on open tensor types (no op depends on its inputs'
// types), its values numbered as the tracer numbers them. Typing a graph
// refines a copy of it from its inputs' types by the dialect's own
// inference (refineOp, kiln-refine-types).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_GRAPHBODY_H
#define KILN_FRONTEND_GRAPHBODY_H

#include "kiln/Frontend/Graph.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace mlir {
class MLIRContext;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace kiln::frontend {

/// A graph's ops as traced: one function, open types, without a return (its
/// outputs are the graph's); each op located at its source under the name of
/// the runtime function it was traced from.
struct GraphBody {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The function, an argument per graph input in order.
  mlir::Operation *fn = nullptr;
  /// The value of each traced value (null for one whose ops were cut).
  std::vector<mlir::Value> values;
  /// The traced value each value was first built for.
  llvm::DenseMap<mlir::Value, int> ids;
  /// Why an op could not be built, if one could not: the graph's error.
  std::optional<std::string> error;

  mlir::Block &entry() const;
  /// Gives the function its arguments' types (after adding or erasing
  /// some).
  void updateType();
  /// The traced value `v` is, or -1.
  int idOf(mlir::Value v) const {
    auto it = ids.find(v);
    return it == ids.end() ? -1 : it->second;
  }
};

/// Gives `graph` an empty body named graph.name, in `context` (the one the
/// graph is compiled in).
void startBody(Graph &graph, mlir::MLIRContext &context);
/// Adds input `in` (already in graph.inputs) to the body as an argument.
void addBodyInput(Graph &graph, const GraphInput &in);

/// Whether a builder's arguments start with the result type.
template <typename... Args> constexpr bool givesTypes() {
  if constexpr (sizeof...(Args) == 0)
    return false;
  else
    return std::is_convertible_v<
        std::tuple_element_t<0, std::tuple<std::decay_t<Args>...>>, mlir::Type>;
}

/// OpTy built at `b`'s insertion point on an open result type (or the type
/// its arguments state), its dims as the source wrote them: typing refines
/// it (refineOp).
template <typename OpTy, typename... Args>
OpTy buildOpen(mlir::OpBuilder &b, mlir::Location loc, Args &&...args) {
  if constexpr (!OpTy::template hasTrait<mlir::InferTypeOpInterface::Trait>() ||
                givesTypes<Args...>()) {
    return OpTy::create(b, loc, std::forward<Args>(args)...);
  } else {
    mlir::OperationState state(loc, OpTy::getOperationName());
    OpTy::build(b, state, mlir::kiln::openTensorType(b.getContext()),
                std::forward<Args>(args)...);
    auto op = mlir::cast<OpTy>(b.create(state));
    // What it gives on open operands (an index for kiln.dim).
    (void)mlir::kiln::inferResultTypes(
        mlir::cast<mlir::InferTypeOpInterface>(op.getOperation()));
    return op;
  }
}

/// A conversion to another type that the graph's types may make a no-op
/// (it then goes when the graph is typed): an attribute on the op.
constexpr llvm::StringLiteral kConversion = "kiln.conversion";
/// Marks the cast of an in-place op's result to its tensor's dtype, the
/// tensor's new value (its own elements, no view: aliasBases stops there).
constexpr llvm::StringLiteral kInPlaceResult = "kiln.in_place_result";
/// And where typing fails, as the eager op raises, where torch would not
/// cast (a float result into an integer tensor, a number into a bool one).
constexpr llvm::StringLiteral kInPlaceCast = "kiln.in_place_cast";
/// The C++ function an opaque call calls, on the traced op.
constexpr llvm::StringLiteral kCallee = "kiln.callee";

/// MLIR's type of a tensor element type.
/// The values whose elements v's may be eagerly: v itself, or through
/// views (a detach, or a cast to its own dtype: the tensor itself) the
/// values they are views of; both tensors an if-select of host values
/// chose between. An in-place op's result (kInPlaceResult) is its tensor's
/// own.
void aliasBases(mlir::Value v, llvm::SmallPtrSetImpl<mlir::Value> &bases);

mlir::Type elementType(mlir::MLIRContext *ctx, ElementType e);
/// The ABI's type of a host scalar input (i64, f32, f64, i1).
mlir::Type scalarArgType(mlir::MLIRContext *ctx, ValueKind kind);
/// The type of a host scalar inside the graph (integers are `index`).
mlir::Type scalarType(mlir::MLIRContext *ctx, ValueKind kind);
/// The kind of traced value a value of `type` is (tensor or host scalar).
ValueKind kindOfType(mlir::Type type);
/// A host scalar converted as C++ converts it (a bool is nonzero).
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type to);

/// Where a body ends now, to cut it back to.
struct BodyMark {
  mlir::Operation *last = nullptr;
  unsigned arguments = 0;
  size_t values = 0;
  std::optional<std::string> error;
};
BodyMark markBody(const Graph &graph);
/// Erases what was built since `mark` (its values become null, an op's
/// error since then goes with it).
void cutBody(Graph &graph, const BodyMark &mark);

/// The C++ function an opaque call calls (`ns::helper`) and the symbol of
/// its callback in `graph`'s module: `graph.name`'s (variants and versions
/// share one body).
std::string opaqueCallee(mlir::Operation *call);
std::string opaqueSymbol(const Graph &graph, mlir::Operation *call);

/// Where a traced op is in the source (its location's file, line and
/// column), and the runtime function it was traced from ("kiln::softmax"),
/// if its location says.
SourcePos sourceOf(mlir::Location loc, std::string *name = nullptr);
/// "kiln::NAME at FILE:LINE: why" for an op at `loc` (the graph's error
/// when the op cannot be built or typed).
std::string opErrorText(mlir::Location loc, const std::string &why);

/// `graph` (its inputs' ranks and element types chosen by typeInputs)
/// typed: each value takes the type of its op, refined from the inputs'.
/// Fails with why it cannot be: an op's own refusal, in eager's words.
llvm::Error typeBody(Graph &graph);

/// Adds `graph` (typed by inferSignature) to module (in the context of the
/// graph's body) as a public func.func in
/// the kiln dialect: tensor inputs ranked with dynamic sizes, host scalars
/// as i64/f32/f64/i1, scalar outputs as 0-d tensors, verified. Fails with
/// why the graph cannot be built (and adds nothing).
llvm::Error buildGraphFunction(mlir::ModuleOp module, const Graph &graph);

/// The context of this thread in which graphs are traced when the frontend
/// is given none: the dialects a graph function uses loaded, no threads of
/// its own.
mlir::MLIRContext &graphContext();

/// The frontend's name of a tensor element type (f32 for any other).
ElementType elementOf(mlir::Type type);

} // namespace kiln::frontend

#endif
