//===- RuntimeCallsGen.cpp - Each kiln op's call into the eager runtime ---===//
//
// -gen-kiln-runtime-calls: from every kiln op whose ODS definition sets
// `cppCall` (KilnBase.td), the C++ that evaluates it with the eager runtime
// (GET_KILN_RUNTIME_CALL_EVAL: a TypeSwitch the test interpreter runs) and
// the C++ text that the eager backend prints for it
// (GET_KILN_RUNTIME_CALL_PRINT). Both come from the one spelling, so an op's
// runtime call is written once. A placeholder `$name` stands for the op's
// operand or attribute `name`; `$a|$b` for the optional operand `a` when
// present, `b` otherwise (an eps known at run time or its attribute).
//
// Each placeholder becomes a call on the evaluator or printer object, by
// what the argument is:
//   tensor operand (optional: undefined when absent)   tensor(Value)
//   variadic tensor operand                             tensors(ValueRange)
//   index operand                                       index(Value)
//   variadic index operand (a shape)                    indices(ValueRange)
//   float operand                                       real(Value)
//   optional float operand (std::nullopt when absent)   optionalReal(Value)
//   f64-or-index operand (a kiln::Scalar)               scalar(Value)
//   attribute                                           attr(op.getName())
//
//===----------------------------------------------------------------------===//
#include "mlir/TableGen/Argument.h"
#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <string>
#include <vector>

using namespace llvm;
using mlir::tblgen::Operator;

namespace {

/// A piece of a cppCall: literal C++ text, or a placeholder (with the
/// fallback argument of `$a|$b`).
struct Piece {
  std::string text;
  std::string arg, fallback;
};

bool isIdentChar(char c) { return isAlnum(c) || c == '_'; }

std::vector<Piece> splitCall(StringRef spelling) {
  std::vector<Piece> pieces;
  auto name = [&](size_t &i) {
    size_t start = ++i;
    while (i < spelling.size() && isIdentChar(spelling[i]))
      ++i;
    return spelling.slice(start, i).str();
  };
  std::string text;
  for (size_t i = 0; i < spelling.size();) {
    if (spelling[i] != '$') {
      text += spelling[i++];
      continue;
    }
    if (!text.empty())
      pieces.push_back({text, "", ""});
    text.clear();
    Piece p;
    p.arg = name(i);
    if (i + 1 < spelling.size() && spelling[i] == '|' &&
        spelling[i + 1] == '$') {
      ++i;
      p.fallback = name(i);
    }
    pieces.push_back(p);
  }
  if (!text.empty())
    pieces.push_back({text, "", ""});
  return pieces;
}

/// The C++ expression on `object` (the evaluator or the printer) that
/// gives argument `name` of op `op` in the variable `o`; empty, with an
/// error reported, when the op has no such argument.
std::string argument(const Operator &op, StringRef name, StringRef object,
                     const Record &def, bool present = false) {
  for (int i = 0, e = op.getNumArgs(); i < e; ++i) {
    if (op.getArgName(i) != name)
      continue;
    std::string getter = "o." + op.getGetterName(name) + "()";
    mlir::tblgen::Argument arg = op.getArg(i);
    if (isa<mlir::tblgen::NamedAttribute *>(arg))
      return formatv("{0}.attr({1})", object, getter).str();
    auto *operand = dyn_cast<mlir::tblgen::NamedTypeConstraint *>(arg);
    if (!operand)
      break;
    StringRef type = operand->constraint.getCppType();
    if (type.contains("TensorType"))
      return formatv("{0}.{1}({2})", object,
                     operand->isVariadic() ? "tensors" : "tensor", getter)
          .str();
    if (operand->isVariadic() && type.contains("IndexType"))
      return formatv("{0}.indices({1})", object, getter).str();
    if (operand->isVariadic())
      break;
    if (type.contains("IndexType"))
      return formatv("{0}.index({1})", object, getter).str();
    if (type == "::mlir::Type")
      return formatv("{0}.scalar({1})", object, getter).str();
    if (type.contains("FloatType"))
      return formatv("{0}.{1}({2})", object,
                     operand->isOptional() && !present ? "optionalReal"
                                                       : "real",
                     getter)
          .str();
    break;
  }
  PrintFatalError(&def, "cppCall names `$" + name +
                            "`, which is not an operand or attribute of " +
                            op.getOperationName() +
                            " that a runtime call can take");
}

/// `text` with each `kiln::` that starts a name made `::kiln::`: the
/// evaluation is compiled where `kiln` may also name mlir::kiln.
std::string rooted(StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    bool starts = i == 0 || (!isIdentChar(text[i - 1]) && text[i - 1] != ':');
    if (starts && text.substr(i).starts_with("kiln::"))
      out += "::";
    out += text[i];
  }
  return out;
}

/// The expression for a placeholder (`$a|$b`: a when present, b otherwise).
std::string placeholder(const Operator &op, const Piece &p, StringRef object,
                        const Record &def) {
  std::string value = argument(op, p.arg, object, def, !p.fallback.empty());
  if (p.fallback.empty())
    return value;
  std::string fallback = argument(op, p.fallback, object, def);
  return formatv("(o.{0}() ? {1} : {2})", op.getGetterName(p.arg), value,
                 fallback)
      .str();
}

bool emitRuntimeCalls(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The eager runtime's call for each kiln op", os,
                       records);
  std::vector<const Record *> defs;
  for (const Record *def : records.getAllDerivedDefinitions("Kiln_Op"))
    if (!def->getValueAsString("cppCall").empty())
      defs.push_back(def);

  os << "#ifdef GET_KILN_RUNTIME_CALL_EVAL\n#undef GET_KILN_RUNTIME_CALL_EVAL\n"
     << "/// Evaluates `operation` with the eager runtime when it has a "
        "runtime call:\n/// `eval.set(result, value)`; false for other "
        "ops.\n"
     << "template <typename Evaluator>\n"
     << "bool evalRuntimeCall(::mlir::Operation *operation, Evaluator "
        "&eval) {\n"
     << "  return ::llvm::TypeSwitch<::mlir::Operation *, bool>(operation)\n";
  for (const Record *def : defs) {
    Operator op(def);
    os << "      .Case([&](" << op.getQualCppClassName() << " o) {\n"
       << "        eval.set(o->getResult(0), ";
    for (const Piece &p : splitCall(def->getValueAsString("cppCall")))
      os << (p.arg.empty() ? rooted(p.text) : placeholder(op, p, "eval", *def));
    os << ");\n        return true;\n      })\n";
  }
  os << "      .Default([](::mlir::Operation *) { return false; });\n}\n"
     << "#endif // GET_KILN_RUNTIME_CALL_EVAL\n\n";

  os << "#ifdef GET_KILN_RUNTIME_CALL_PRINT\n"
     << "#undef GET_KILN_RUNTIME_CALL_PRINT\n"
     << "/// The C++ expression that computes `operation` with the eager "
        "runtime,\n/// its operands and attributes spelled by `printer`; "
        "nullopt for other ops.\n"
     << "template <typename Printer>\n"
     << "std::optional<std::string> printRuntimeCall(::mlir::Operation "
        "*operation,\n"
     << "                                            Printer &printer) {\n"
     << "  return ::llvm::TypeSwitch<::mlir::Operation *,\n"
     << "                            std::optional<std::string>>(operation)\n";
  for (const Record *def : defs) {
    Operator op(def);
    os << "      .Case([&](" << op.getQualCppClassName() << " o) {\n"
       << "        return std::string()";
    for (const Piece &p : splitCall(def->getValueAsString("cppCall"))) {
      if (p.arg.empty()) {
        os << " + \"";
        os.write_escaped(p.text);
        os << "\"";
      } else {
        os << " + " << placeholder(op, p, "printer", *def);
      }
    }
    os << ";\n      })\n";
  }
  os << "      .Default([](::mlir::Operation *) { return std::nullopt; });\n}\n"
     << "#endif // GET_KILN_RUNTIME_CALL_PRINT\n";
  return false;
}

mlir::GenRegistration
    genRuntimeCalls("gen-kiln-runtime-calls",
                    "Generate each kiln op's call into the eager runtime",
                    emitRuntimeCalls);

} // namespace
