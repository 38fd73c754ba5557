//===- Wrapper.cpp - The C++ through which stitched code runs a graph -----===//
//
// Each graph gets `template <...> static bool NAME(outputs&..., inputs...)`:
// it checks the guard (the ranks and dtypes the graph was built for), then
// either calls the compiled entry point through kiln::abi::GraphCall or, for
// the eager backend, runs the captured ops as calls into the runtime (which
// checks the capture itself, as torch.compile's backend="eager" does). It
// returns false when the original statements must run instead.
//
//===----------------------------------------------------------------------===//
#include "kiln/Stitch/Stitch.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace kiln::stitch {

using namespace frontend;

namespace {

const char *scalarCType(ValueKind kind) {
  switch (kind) {
  case ValueKind::I64: return "int64_t";
  case ValueKind::F32: return "float";
  case ValueKind::F64: return "double";
  case ValueKind::Bool: return "bool";
  case ValueKind::Tensor: return "kiln::Tensor";
  }
  return "?";
}

std::string number(double v, ValueKind kind) {
  std::ostringstream os;
  os.precision(17);
  if (kind == ValueKind::I64)
    os << static_cast<int64_t>(v);
  else if (kind == ValueKind::Bool)
    os << (v != 0 ? "true" : "false");
  else if (std::isinf(v) || std::isnan(v)) {
    std::string t = kind == ValueKind::F32 ? "float" : "double";
    std::string s = std::isnan(v) ? "std::numeric_limits<" + t + ">::quiet_NaN()"
                                  : "std::numeric_limits<" + t + ">::infinity()";
    return v < 0 ? "-" + s : s;
  } else {
    os << v;
    std::string s = os.str();
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    return kind == ValueKind::F32 ? s + "f" : s;
  }
  return os.str();
}

std::string ints(const std::vector<int64_t> &v, size_t from = 0) {
  std::string s = "{";
  for (size_t i = from; i < v.size(); ++i)
    s += (i > from ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

/// The graph's ops as C++ statements over the runtime.
class EagerBody {
public:
  explicit EagerBody(const Graph &g) : g_(g) {
    for (size_t i = 0; i < g.inputs.size(); ++i)
      names_[g.inputs[i].value] = "i" + std::to_string(i);
  }

  std::string emit() {
    for (const TraceOp &op : g_.ops)
      emitOp(op);
    return os_.str();
  }

  /// A value as a tensor expression (C++ numbers become 0-d tensors).
  std::string tensor(int v) {
    auto s = scalars_.find(v);
    if (s != scalars_.end())
      return "kiln::full({}, " + s->second + ", kiln::Scalar(" + s->second +
             ").defaultDType())";
    return names_.at(v);
  }
  std::string name(int v) {
    auto s = scalars_.find(v);
    return s != scalars_.end() ? s->second : names_.at(v);
  }

private:
  void emitOp(const TraceOp &op) {
    OpCode c = op.code;
    std::string v = "v" + std::to_string(op.result);
    names_[op.result] = v;
    const TraceValue &r = g_.values[op.result];
    auto a = [&](size_t i) { return tensor(op.operands[i]); };
    auto s = [&](size_t i) { return name(op.operands[i]); };
    // kiln::NAME(...) and x.NAME(...): the runtime's spelling of op c.
    auto call = [&](size_t first = 0) {
      std::string e = std::string("kiln::") + opName(c) + "(";
      for (size_t i = first; i < op.operands.size(); ++i)
        e += (i > first ? ", " : "") + a(i);
      return e + ")";
    };
    auto method = [&](const std::string &args) {
      return a(0) + "." + opName(c) + "(" + args + ")";
    };
    static const char *const predicates[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
    std::string e;
    if (c == OpCode::FromScalar) {
      scalars_[op.result] = s(0);
      return;
    }
    if (r.kind != ValueKind::Tensor) {
      const char *t = scalarCType(r.kind);
      // std::NAME for scalar.NAME.
      auto stdName = [&] {
        return "std::" + std::string(opName(c)).substr(std::strlen("scalar."));
      };
      switch (c) {
      case OpCode::Const: e = number(op.number, r.kind); break;
      case OpCode::Dim: e = s(0) + ".size(" + std::to_string(op.ints[0]) + ")"; break;
      case OpCode::Rank: e = s(0) + ".dim()"; break;
      case OpCode::Numel: e = s(0) + ".numel()"; break;
      case OpCode::ScalarCast: e = std::string("static_cast<") + t + ">(" + s(0) + ")"; break;
      case OpCode::ScalarNeg: e = "-" + s(0); break;
      case OpCode::ScalarAdd: e = s(0) + " + " + s(1); break;
      case OpCode::ScalarSub: e = s(0) + " - " + s(1); break;
      case OpCode::ScalarMul: e = s(0) + " * " + s(1); break;
      case OpCode::ScalarDiv: e = s(0) + " / " + s(1); break;
      case OpCode::ScalarRem: e = s(0) + " % " + s(1); break;
      case OpCode::ScalarMin:
      case OpCode::ScalarMax:
      case OpCode::ScalarPow: e = stdName() + "(" + s(0) + ", " + s(1) + ")"; break;
      case OpCode::Select: e = s(0) + " ? " + s(1) + " : " + s(2); break;
      case OpCode::ScalarCmp: e = s(0) + predicates[op.ints[0]] + s(1); break;
      case OpCode::ScalarAnd: e = s(0) + " && " + s(1); break;
      case OpCode::ScalarOr: e = s(0) + " || " + s(1); break;
      case OpCode::ScalarNot: e = "!" + s(0); break;
      default: e = stdName() + "(" + s(0) + ")"; break;
      }
      os_ << "  [[maybe_unused]] " << t << " " << v << " = " << e << ";\n";
      return;
    }
    switch (c) {
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Cmp: {
      std::string infix = c == OpCode::Add   ? " + "
                          : c == OpCode::Sub ? " - "
                          : c == OpCode::Mul ? " * "
                          : c == OpCode::Div ? " / "
                                             : predicates[op.ints[0]];
      // A C++ number on either side keeps the runtime's Scalar overloads,
      // as in the original expression (two numbers: the left a tensor).
      bool bothNumbers = scalars_.count(op.operands[0]) && scalars_.count(op.operands[1]);
      e = (bothNumbers ? a(0) : s(0)) + infix + s(1);
      break;
    }
    case OpCode::Pow:
      e = "kiln::pow(" + a(0) + ", " + s(1) + ")";
      break;
    case OpCode::Where:
      e = "kiln::where(" + a(0) + ", " + a(1) + ", " + s(2) + ")";
      break;
    case OpCode::Neg:
      e = "-" + a(0);
      break;
    case OpCode::Gelu:
      e = "kiln::gelu(" + a(0) + ", \"" + op.text + "\")";
      break;
    case OpCode::Softmax:
    case OpCode::LogSoftmax:
      e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " + std::to_string(op.ints[0]) + ")";
      break;
    case OpCode::LayerNorm:
      e = "kiln::layer_norm(" + a(0) + ", " + a(1) + ", " +
          (op.operands.size() > 2 ? a(2) : std::string("kiln::Tensor()")) + ", " +
          number(op.number, ValueKind::F64) + ")";
      break;
    case OpCode::RmsNorm:
      e = "kiln::rms_norm(" + a(0) + ", " + a(1) + ", " + number(op.number, ValueKind::F64) +
          ")";
      break;
    case OpCode::Conv2d:
      e = "kiln::conv2d(" + a(0) + ", " + a(1) + ", " +
          (op.operands.size() > 2 ? a(2) : std::string("kiln::Tensor()")) + ", {" +
          std::to_string(op.ints[0]) + ", " + std::to_string(op.ints[1]) + "}, {" +
          std::to_string(op.ints[2]) + ", " + std::to_string(op.ints[3]) + "})";
      break;
    case OpCode::Cat:
      e = "kiln::cat({";
      for (size_t i = 0; i < op.operands.size(); ++i)
        e += (i ? ", " : "") + a(i);
      e += "}, " + std::to_string(op.ints[0]) + ")";
      break;
    case OpCode::Reshape: {
      std::string sizes = "{";
      for (size_t i = 1; i < op.operands.size(); ++i)
        sizes += (i > 1 ? ", " : "") + s(i);
      e = method(sizes + "}");
      break;
    }
    case OpCode::Full:
      e = "kiln::full({";
      for (size_t i = 0; i < op.operands.size(); ++i)
        e += (i ? ", " : "") + s(i);
      e += "}, " + number(op.number, ValueKind::F64) + ", " + dtypeSpelling(r.element) + ")";
      break;
    case OpCode::Transpose:
      e = method(std::to_string(op.ints[0]) + ", " + std::to_string(op.ints[1]));
      break;
    case OpCode::Permute:
      e = method(ints(op.ints));
      break;
    case OpCode::Unsqueeze:
    case OpCode::Squeeze:
      e = method(std::to_string(op.ints[0]));
      break;
    case OpCode::Slice:
      e = method(std::to_string(op.ints[0]) + ", " + s(1) + ", " + s(2) + ", " +
                 std::to_string(op.ints[1]));
      break;
    case OpCode::Cast:
      e = a(0) + ".to(" + dtypeSpelling(r.element) + ")";
      break;
    case OpCode::Select:
      e = s(0) + " ? " + a(1) + " : " + a(2);
      break;
    case OpCode::OpaqueCall:
      e = op.text + "(";
      for (size_t i = 0; i < op.operands.size(); ++i)
        e += (i ? ", " : "") + a(i);
      e += ")";
      break;
    case OpCode::Arange:
      e = "kiln::arange(" + s(0) + ", " + s(1) + ", " + s(2) + ")";
      break;
    default:
      // The unary ops, maximum, minimum, the reductions' other forms,
      // matmul, linear, embedding, cross_entropy: kiln::NAME(operands...).
      if (opGroup(c) == OpGroup::Reduction)
        e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " + ints(op.ints, 1) + ", " +
            (op.ints[0] ? "true" : "false") + ")";
      else
        e = call();
      break;
    }
    os_ << "  kiln::Tensor " << v << " = " << e << ";\n";
  }

  const Graph &g_;
  std::map<int, std::string> names_;
  std::map<int, std::string> scalars_; // from_scalar values: C++ numbers
  std::ostringstream os_;
};

} // namespace

WrapperCode emitWrapper(const Graph &g, bool compiled, bool onlyFromCompiled,
                        bool cuda) {
  std::ostringstream os, decl;
  if (compiled)
    decl << "extern \"C\" void kiln_entry_" << g.name << "(void **);\n";
  // Outputs that are host scalars take the variable's own type.
  std::vector<std::string> templates, params;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const TraceValue &v = g.values[g.outputs[i].value];
    if (v.kind == ValueKind::Tensor) {
      params.push_back("kiln::Tensor &o" + std::to_string(i));
    } else {
      templates.push_back("typename O" + std::to_string(i));
      params.push_back("O" + std::to_string(i) + " &o" + std::to_string(i));
    }
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TraceValue &v = g.values[g.inputs[i].value];
    params.push_back(v.kind == ValueKind::Tensor
                         ? "const kiln::Tensor &i" + std::to_string(i)
                         : std::string(scalarCType(v.kind)) + " i" + std::to_string(i));
  }
  std::ostringstream signature;
  if (!templates.empty()) {
    signature << "template <";
    for (size_t i = 0; i < templates.size(); ++i)
      signature << (i ? ", " : "") << templates[i];
    signature << ">\n";
  }
  signature << "[[maybe_unused]] static bool " << g.name << "(";
  for (size_t i = 0; i < params.size(); ++i)
    signature << (i ? ", " : "") << params[i];
  signature << ")";
  decl << signature.str() << ";\n";
  os << signature.str() << " {\n";
  if (onlyFromCompiled)
    os << "  // A callee compiled as a root of its own: eager callers keep the\n"
          "  // original.\n  if (!kiln::abi::inCompiledCode())\n    return false;\n";
  else
    os << "  if (kiln::abi::inDisabledCode())\n    return false;\n";
  os << "  if (!kiln::abi::guard(\"" << g.name << "\", {";
  bool first = true;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TraceValue &v = g.values[g.inputs[i].value];
    if (v.kind != ValueKind::Tensor)
      continue;
    os << (first ? "" : ", ") << "{i" << i << ", " << v.rank << ", "
       << dtypeSpelling(v.element) << "}";
    first = false;
  }
  os << "}" << (cuda ? ", kiln::Device::cuda()" : "") << "))\n    return false;\n";
  if (compiled) {
    for (size_t i = 0; i < g.outputs.size(); ++i)
      if (g.values[g.outputs[i].value].kind != ValueKind::Tensor)
        os << "  kiln::Tensor r" << i << ";\n";
    os << "  if (!kiln::abi::GraphCall(\"" << g.name << "\", kiln_entry_" << g.name
       << (cuda ? ", kiln::Device::cuda()" : "") << ")";
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      ValueKind k = g.values[g.inputs[i].value].kind;
      os << "\n           .input(";
      if (k == ValueKind::I64 || k == ValueKind::Bool)
        os << "static_cast<int64_t>(i" << i << ")";
      else
        os << "i" << i;
      os << ")";
    }
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const TraceValue &v = g.values[g.outputs[i].value];
      bool tensor = v.kind == ValueKind::Tensor;
      ElementType e = tensor ? v.element
                      : v.kind == ValueKind::I64 ? ElementType::I64
                      : v.kind == ValueKind::F32 ? ElementType::F32
                      : v.kind == ValueKind::F64 ? ElementType::F64 : ElementType::Bool;
      os << "\n           .output(" << (tensor ? "o" : "r") << i << ", "
         << (tensor ? v.rank : 0) << ", " << dtypeSpelling(e) << ")";
    }
    os << "\n           .run())\n    return false;\n";
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const TraceValue &v = g.values[g.outputs[i].value];
      if (v.kind != ValueKind::Tensor)
        os << "  o" << i << " = static_cast<O" << i << ">(r" << i << ".item<"
           << scalarCType(v.kind) << ">());\n";
    }
  } else {
    EagerBody body(g);
    os << body.emit();
    // Every result is taken before any output is assigned: an output may
    // be the very variable an input reads (a = b; b = t swaps them).
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const TraceValue &v = g.values[g.outputs[i].value];
      os << "  auto r" << i << " = "
         << (v.kind == ValueKind::Tensor ? "kiln::Tensor(" + body.tensor(g.outputs[i].value) + ")"
                                         : "static_cast<O" + std::to_string(i) + ">(" +
                                               body.name(g.outputs[i].value) + ")")
         << ";\n";
    }
    for (size_t i = 0; i < g.outputs.size(); ++i)
      os << "  o" << i << " = r" << i << ";\n";
  }
  os << "  return true;\n}\n";
  // The adapters through which compiled code calls allow_in_graph functions.
  if (compiled)
    for (const TraceOp &op : g.ops) {
      if (op.code != OpCode::OpaqueCall)
        continue;
      const TraceValue &r = g.values[op.result];
      std::string symbol = g.opaqueSymbol(op);
      os << "extern \"C\" void _mlir_ciface_" << symbol << "(void *result";
      for (size_t i = 0; i < op.operands.size(); ++i)
        os << ", void *a" << i;
      os << ") {\n  void *args[] = {nullptr";
      for (size_t i = 0; i < op.operands.size(); ++i)
        os << ", a" << i;
      os << "};\n  kiln::abi::callOpaque(\"" << op.text << "\", result, " << r.rank << ", "
         << dtypeSpelling(r.element) << ",\n      [](void *context) -> kiln::Tensor {\n"
         << "        void **p = static_cast<void **>(context);\n        return " << op.text
         << "(";
      for (size_t i = 0; i < op.operands.size(); ++i) {
        const TraceValue &a = g.values[op.operands[i]];
        os << (i ? ", " : "") << "kiln::abi::borrow(p[" << i + 1 << "], " << a.rank << ", "
           << dtypeSpelling(a.element) << ")";
      }
      os << ");\n      },\n      args);\n}\n";
    }
  return {decl.str(), os.str()};
}

std::string emitImage(const EmbeddedImage &image) {
  std::ostringstream os;
  os << "\n// " << image.description << " (kiln compile): the kernels that "
     << "compiled code loads\n// on its first launch.\n"
     << "extern \"C\" {\nextern const unsigned char " << image.symbol << "[];\n"
     << "alignas(8) const unsigned char " << image.symbol << "["
     << image.bytes.size() << "] = {";
  for (size_t i = 0; i < image.bytes.size(); ++i) {
    if (i % 24 == 0)
      os << "\n";
    os << static_cast<unsigned>(static_cast<unsigned char>(image.bytes[i])) << ",";
  }
  os << "\n};\n}\n";
  return os.str();
}

} // namespace kiln::stitch
