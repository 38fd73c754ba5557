//===- TracedCallsGen.cpp - The tracer's entries of the kiln ops ----------===//
//
// -gen-kiln-traced-calls: from every kiln op whose ODS definition sets
// `traceWith` (KilnBase.td), its entry in the tracer's table of kiln::
// functions (Tracer::kilnCalls, lib/Frontend/TraceOps.cpp): the function's
// name, the Tracer member template that traces a call of it instantiated on
// the op's class, whether the Tensor method of that name is the same call
// (`tensorMethod`), and the argument counts it traces. The function is
// `kiln::<mnemonic>`, the one the op's `cppCall` (if it has one) calls, or
// whose Tensor method it calls, so that an op defined once is traced,
// printed by the eager backend and interpreted by the tests from its one
// definition.
//
//===----------------------------------------------------------------------===//
#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using mlir::tblgen::Operator;

namespace {

bool emitTracedCalls(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The tracer's entry for each kiln op it traces alike",
                       os, records);
  os << "#ifdef GET_KILN_TRACED_CALLS\n#undef GET_KILN_TRACED_CALLS\n";
  for (const Record *def : records.getAllDerivedDefinitions("Kiln_Op")) {
    StringRef traceWith = def->getValueAsString("traceWith");
    if (traceWith.empty())
      continue;
    Operator op(def);
    std::string opName = op.getOperationName();
    StringRef name(opName);
    name.consume_front(op.getDialectName().str() + ".");
    // The runtime call is the function, or the Tensor method of the same
    // name on the first operand.
    std::string call = ("kiln::" + name + "(").str();
    std::string method =
        op.getNumOperands() > 0
            ? ("$" + op.getOperand(0).name + "." + name + "(").str()
            : call;
    StringRef cppCall = def->getValueAsString("cppCall");
    if (!cppCall.empty() && !cppCall.starts_with(call) &&
        !cppCall.starts_with(method))
      PrintFatalError(def, "traceWith needs a cppCall of `" + call +
                               "...)` or `" + method +
                               "...)`: the traced function is the one the "
                               "runtime call calls");
    os << "{\"" << name << "\", {&Tracer::" << traceWith << "<"
       << op.getQualCppClassName() << ">, "
       << (def->getValueAsBit("tensorMethod") ? "true" : "false") << ", "
       << def->getValueAsInt("traceMinArgs") << ", ";
    int64_t maxArgs = def->getValueAsInt("traceMaxArgs");
    if (maxArgs < 0)
      os << "kAnyArgs";
    else
      os << maxArgs;
    os << "}},\n";
  }
  os << "#endif // GET_KILN_TRACED_CALLS\n";
  return false;
}

mlir::GenRegistration
    genTracedCalls("gen-kiln-traced-calls",
                   "Generate the tracer's entries for the kiln ops it traces "
                   "alike",
                   emitTracedCalls);

} // namespace
