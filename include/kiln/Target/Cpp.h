//===- kiln/Target/Cpp.h - Traced graphs as C++ over the runtime -*- C++
//-*-===//
//
// The eager backend's target: a traced graph's ops printed as C++
// statements that call the runtime, which the stitched source runs instead
// of a compiled kernel (kiln compile --backend=eager, docs/frontend.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_CPP_H
#define KILN_TARGET_CPP_H

#include "kiln/Frontend/TraceGraph.h"

#include <map>
#include <sstream>
#include <string>

namespace kiln::cpp {

/// The C++ type of a host scalar of `kind` (kiln::Tensor for tensors).
const char *scalarType(frontend::ValueKind kind);

/// A graph's ops as C++ statements over the runtime: the inputs are read
/// from i0, i1, ..., each op's result is a local v<N>.
class EagerStatements {
public:
  explicit EagerStatements(const frontend::Graph &graph);

  /// The statements, one per line.
  std::string statements() const;
  /// Value v as a tensor expression (C++ numbers become 0-d tensors).
  std::string tensor(int v) const;
  /// Value v as it is: a tensor, or a C++ scalar expression.
  std::string name(int v) const;

private:
  void emitOp(const frontend::TraceOp &op);

  const frontend::Graph &g_;
  std::map<int, std::string> names_;
  std::map<int, std::string> scalars_; // from_scalar values: C++ numbers
  std::ostringstream os_;
};

} // namespace kiln::cpp

#endif
