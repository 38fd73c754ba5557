//===- EagerStatements.cpp - A traced graph as C++ over the runtime -------===//
//
// The eager backend: each op of a graph becomes one statement calling the
// runtime (kiln::NAME(...), x.NAME(...) or an operator), spelled from the
// op table (kiln/Frontend/TracedOps.def); C++ numbers stay C++ numbers, so
// the runtime's Scalar overloads run as in the original expression.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Cpp.h"

#include <cmath>
#include <cstring>

using namespace kiln::frontend;

const char *kiln::cpp::scalarType(ValueKind kind) {
  switch (kind) {
  case ValueKind::I64:
    return "int64_t";
  case ValueKind::F32:
    return "float";
  case ValueKind::F64:
    return "double";
  case ValueKind::Bool:
    return "bool";
  case ValueKind::Tensor:
    return "kiln::Tensor";
  }
  return "?";
}

namespace kiln::cpp {
namespace {

std::string number(double v, ValueKind kind) {
  std::ostringstream os;
  os.precision(17);
  if (kind == ValueKind::I64)
    os << static_cast<int64_t>(v);
  else if (kind == ValueKind::Bool)
    os << (v != 0 ? "true" : "false");
  else if (std::isinf(v) || std::isnan(v)) {
    std::string t = kind == ValueKind::F32 ? "float" : "double";
    std::string s = std::isnan(v)
                        ? "std::numeric_limits<" + t + ">::quiet_NaN()"
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

} // namespace

EagerStatements::EagerStatements(const Graph &g) : g_(g) {
  for (size_t i = 0; i < g.inputs.size(); ++i)
    names_[g.inputs[i].value] = "i" + std::to_string(i);
  for (const TraceOp &op : g_.ops)
    emitOp(op);
}

std::string EagerStatements::statements() const { return os_.str(); }

std::string EagerStatements::tensor(int v) const {
  auto s = scalars_.find(v);
  if (s != scalars_.end())
    return "kiln::full({}, " + s->second + ", kiln::Scalar(" + s->second +
           ").defaultDType())";
  return names_.at(v);
}
std::string EagerStatements::name(int v) const {
  auto s = scalars_.find(v);
  return s != scalars_.end() ? s->second : names_.at(v);
}

void EagerStatements::emitOp(const TraceOp &op) {
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
  static const char *const predicates[] = {" < ",  " <= ", " > ",
                                           " >= ", " == ", " != "};
  std::string e;
  if (c == OpCode::FromScalar) {
    scalars_[op.result] = s(0);
    return;
  }
  if (r.kind != ValueKind::Tensor) {
    const char *t = scalarType(r.kind);
    // std::NAME for scalar.NAME.
    auto stdName = [&] {
      return "std::" + std::string(opName(c)).substr(std::strlen("scalar."));
    };
    switch (c) {
    case OpCode::Const:
      e = number(op.number, r.kind);
      break;
    case OpCode::Dim:
      e = s(0) + ".size(" + std::to_string(op.ints[0]) + ")";
      break;
    case OpCode::Rank:
      e = s(0) + ".dim()";
      break;
    case OpCode::Numel:
      e = s(0) + ".numel()";
      break;
    case OpCode::ScalarCast:
      e = std::string("static_cast<") + t + ">(" + s(0) + ")";
      break;
    case OpCode::ScalarNeg:
      e = "-" + s(0);
      break;
    case OpCode::ScalarAdd:
      e = s(0) + " + " + s(1);
      break;
    case OpCode::ScalarSub:
      e = s(0) + " - " + s(1);
      break;
    case OpCode::ScalarMul:
      e = s(0) + " * " + s(1);
      break;
    case OpCode::ScalarDiv:
      e = s(0) + " / " + s(1);
      break;
    case OpCode::ScalarRem:
      e = s(0) + " % " + s(1);
      break;
    case OpCode::ScalarMin:
    case OpCode::ScalarMax:
    case OpCode::ScalarPow:
      e = stdName() + "(" + s(0) + ", " + s(1) + ")";
      break;
    case OpCode::Select:
      e = s(0) + " ? " + s(1) + " : " + s(2);
      break;
    case OpCode::ScalarCmp:
      e = s(0) + predicates[op.ints[0]] + s(1);
      break;
    case OpCode::ScalarAnd:
      e = s(0) + " && " + s(1);
      break;
    case OpCode::ScalarOr:
      e = s(0) + " || " + s(1);
      break;
    case OpCode::ScalarNot:
      e = "!" + s(0);
      break;
    case OpCode::Check: // the eager function makes its own check
      e = s(0);
      break;
    default:
      e = stdName() + "(" + s(0) + ")";
      break;
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
    bool bothNumbers =
        scalars_.count(op.operands[0]) && scalars_.count(op.operands[1]);
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
    e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " +
        std::to_string(op.ints[0]) + ")";
    break;
  case OpCode::LayerNorm:
  case OpCode::RmsNorm: {
    size_t tensors = op.normTensorOperands();
    std::string eps = op.hasRuntimeEps() ? s(op.operands.size() - 1)
                                         : number(op.number, ValueKind::F64);
    e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " + a(1) + ", " +
        (c == OpCode::RmsNorm ? ""
         : tensors > 2        ? a(2) + ", "
                              : "kiln::Tensor(), ") +
        eps + ")";
    break;
  }
  case OpCode::Attention:
    e = "kiln::scaled_dot_product_attention(" + a(0) + ", " + a(1) + ", " +
        a(2) + ", " + (op.ints[1] ? a(3) : std::string("kiln::Tensor()")) +
        ", 0.0, " + (op.ints[0] ? "true" : "false") +
        (op.ints[2] ? ", " + s(op.operands.size() - 1) : std::string()) + ")";
    break;
  case OpCode::Conv2d: {
    // ints: sh, sw, ph, pw, dh, dw, groups (kRuntimeAttr: the next scalar
    // operand), bias.
    size_t tensors = op.ints[7] ? 3 : 2, next = tensors;
    std::string p[7];
    for (size_t i = 0; i < 7; ++i)
      p[i] =
          op.ints[i] == kRuntimeAttr ? s(next++) : std::to_string(op.ints[i]);
    e = "kiln::conv2d(" + a(0) + ", " + a(1) + ", " +
        (tensors > 2 ? a(2) : std::string("kiln::Tensor()")) + ", {" + p[0] +
        ", " + p[1] + "}, {" + p[2] + ", " + p[3] + "}, {" + p[4] + ", " +
        p[5] + "}, " + p[6] + ")";
    break;
  }
  case OpCode::AdaptiveAvgPool2d: {
    size_t next = 1;
    std::string p[2];
    for (size_t i = 0; i < 2; ++i)
      p[i] =
          op.ints[i] == kRuntimeAttr ? s(next++) : std::to_string(op.ints[i]);
    e = "kiln::adaptive_avg_pool2d(" + a(0) + ", {" + p[0] + ", " + p[1] + "})";
    break;
  }
  case OpCode::Pool2d: {
    // ints: kind, kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode,
    // count_include_pad (kRuntimeAttr: the next scalar operand), divisor.
    size_t next = 1;
    std::string p[10];
    for (size_t i = 0; i < 10; ++i)
      p[i] = op.ints[1 + i] == kRuntimeAttr ? s(next++)
                                            : std::to_string(op.ints[1 + i]);
    auto pair = [&](size_t i) { return "{" + p[i] + ", " + p[i + 1] + "}"; };
    if (op.ints[0] == 0)
      e = "kiln::max_pool2d(" + a(0) + ", " + pair(0) + ", " + pair(2) + ", " +
          pair(4) + ", " + pair(6) + ", bool(" + p[8] + "))";
    else
      e = "kiln::avg_pool2d(" + a(0) + ", " + pair(0) + ", " + pair(2) + ", " +
          pair(4) + ", bool(" + p[8] + "), bool(" + p[9] + "), " +
          (op.ints[11]
               ? "std::optional<int64_t>(" + std::to_string(op.ints[11]) + ")"
               : std::string("std::nullopt")) +
          ")";
    break;
  }
  case OpCode::Cat:
    e = "kiln::cat({";
    for (size_t i = 0; i < op.operands.size(); ++i)
      e += (i ? ", " : "") + a(i);
    e += "}, " + std::to_string(op.ints[0]) + ")";
    break;
  case OpCode::Flatten:
    e = method(std::to_string(op.ints[0]) + ", " + std::to_string(op.ints[1]));
    break;
  case OpCode::ReshapeAs:
    e = a(0) + ".reshape_as(" + a(1) + ")";
    break;
  case OpCode::Repeat:
    e = a(0) + (op.text == "tile" ? ".tile(" : ".repeat(") + ints(op.ints) +
        ")";
    break;
  case OpCode::ScatterAdd:
    e = "kiln::scatter_add(" + a(0) + ", " + std::to_string(op.ints[0]) + ", " +
        a(1) + ", " + a(2) + ")";
    break;
  case OpCode::Cumsum:
  case OpCode::Cumprod:
    e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " +
        std::to_string(op.ints[0]) +
        (op.ints[1] >= 0 ? ", " + std::string(dtypeSpelling(r.element)) : "") +
        ")";
    break;
  case OpCode::Topk: // the indices; the values are a gather of them
    e = "std::get<1>(kiln::topk(" + a(0) + ", " + s(1) + ", " +
        std::to_string(op.ints[0]) + ", " + (op.ints[1] ? "true" : "false") +
        "))";
    break;
  case OpCode::Gather:
    e = "kiln::gather(" + a(0) + ", " + std::to_string(op.ints[0]) + ", " +
        a(1) + ")";
    break;
  case OpCode::Unflatten: {
    std::string sizes = "{";
    for (size_t i = 1; i < op.operands.size(); ++i)
      sizes += (i > 1 ? ", " : "") + s(i);
    e = method(std::to_string(op.ints[0]) + ", " + sizes + "}");
    break;
  }
  case OpCode::Expand:
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
    e += "}, " + number(op.number, ValueKind::F64) + ", " +
         dtypeSpelling(r.element) + ")";
    break;
  case OpCode::Random:
    e = std::string(op.ints[0] ? "kiln::randn({" : "kiln::rand({");
    for (size_t i = 1; i < op.operands.size(); ++i)
      e += (i > 1 ? ", " : "") + s(i);
    e += "}, static_cast<uint64_t>(" + s(0) + "), " + dtypeSpelling(r.element) +
         ")";
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
      e = std::string("kiln::") + opName(c) + "(" + a(0) + ", " +
          ints(op.ints, 1) + ", " + (op.ints[0] ? "true" : "false") + ")";
    else
      e = call();
    break;
  }
  os_ << "  kiln::Tensor " << v << " = " << e << ";\n";
}

} // namespace kiln::cpp
