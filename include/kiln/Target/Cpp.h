//===- kiln/Target/Cpp.h - Kiln graphs as C++ over the runtime --*- C++ -*-===//
//
// The eager backend's target: a graph's kiln-dialect function printed as C++
// statements that call the runtime, which the stitched source runs instead
// of a compiled kernel (kiln compile --backend=eager, docs/frontend.md). It
// runs exactly the graph the compiled backends lower, op by op, as
// torch.compile's eager backend runs the captured graph; --backend=aot_eager
// prints the graph's training forward and backward with it too.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_CPP_H
#define KILN_TARGET_CPP_H

#include "kiln/Frontend/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <sstream>
#include <string>

namespace kiln::cpp {

/// The C++ type of a host scalar of `kind` (kiln::Tensor for tensors).
const char *scalarType(frontend::ValueKind kind);

/// A graph function's ops as C++ statements over the runtime: its arguments
/// are read from i0, i1, ..., each op's result is a local v<N>. A failed
/// check (cf.assert) returns false, so that the stitched code reruns the
/// original statements and raises eager's own error.
class EagerStatements {
public:
  /// `opaqueCallee` names the C++ function a kiln.opaque_call's symbol
  /// stands for. An error when an op has no C++ form.
  static llvm::Expected<EagerStatements>
  print(mlir::func::FuncOp fn,
        const std::function<std::string(llvm::StringRef)> &opaqueCallee);

  /// The statements, one per line.
  std::string statements() const { return os_.str(); }
  /// The C++ expression of the function's result i; a scalar result
  /// (returned as a 0-d tensor) as the C++ scalar it was made from.
  std::string result(size_t i, bool scalar) const;

private:
  EagerStatements() = default;

  std::ostringstream os_;
  std::vector<std::string> results_, scalarResults_;
};

} // namespace kiln::cpp

#endif
