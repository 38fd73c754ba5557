//===- EagerInterpreter.h - Runs a kiln graph with the eager runtime --*- C++
//-*-===//
//
// The oracle of the end-to-end tests: each kiln op is evaluated by the eager
// runtime op it was made from, so a compiled graph is compared with exactly
// what the uncompiled C++ would compute.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_E2E_EAGERINTERPRETER_H
#define KILN_TEST_E2E_EAGERINTERPRETER_H

#include "kiln/kiln.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <variant>
#include <vector>

namespace kiln::e2e {

/// A graph value at run time: a tensor, a size (index) or a float scalar.
using RtValue = std::variant<Tensor, int64_t, double>;

/// The dtype of a tensor element type.
DType dtypeOf(mlir::Type elementType);

/// The eager body of an allow_in_graph function, by symbol name: what
/// kiln.opaque_call runs in the interpreter.
using OpaqueFunction = std::vector<Tensor> (*)(const std::vector<Tensor> &);
void registerOpaqueFunction(const std::string &name, OpaqueFunction fn);

/// Evaluates fn on args; throws kiln::Error as the eager runtime does.
std::vector<RtValue> interpret(mlir::func::FuncOp fn,
                               const std::vector<RtValue> &args);

} // namespace kiln::e2e

#endif
