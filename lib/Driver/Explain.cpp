//===- Explain.cpp - `kiln explain`: graphs, breaks and ops
//----------------===//
//
// torch._dynamo.explain for C++ sources: "Kiln produced N graphs, with M
// graph breaks and K ops." then each break (reason, location, inline chain)
// and each graph (its inputs with the ranks and dtypes its guard checks, and
// its ops with their source lines). --json prints the same as a versioned
// document (docs/explain.md); --dot draws each root's graphs and breaks.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Compile.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/GraphBody.h"
#include "kiln/Frontend/Signature.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

namespace kiln::driver {

using namespace frontend;

namespace {

/// A graph's tensor inputs and their types: "x f32[?,?], ids i64[?]".
std::string tensorTypes(const Graph &g) {
  std::string out;
  for (const GraphInput &in : g.inputs) {
    const TraceValue &v = g.values[in.value];
    if (v.kind == ValueKind::Tensor)
      out += (out.empty() ? "" : ", ") + in.expr + " " +
             signatureSpelling(v.element, v.rank);
  }
  return out;
}

/// "return", "return.1" (an element of returned braces), or the variable.
std::string outputName(const GraphOutput &out) {
  if (out.returnPart >= 0)
    return "return." + std::to_string(out.returnPart);
  return out.variable.empty() ? "return" : out.variable;
}

std::string kindName(const TraceValue &v) {
  switch (v.kind) {
  case ValueKind::Tensor:
    return v.rank < 0 ? "tensor"
                      : std::string(elementTypeName(v.element)) +
                            " tensor of rank " + std::to_string(v.rank);
  case ValueKind::I64:
    return "int64";
  case ValueKind::F32:
    return "float";
  case ValueKind::F64:
    return "double";
  case ValueKind::Bool:
    return "bool";
  }
  return "?";
}

/// A graph's ops as traced (before typing), each as `%r = name(%a, %b)
/// {attributes}` with the traced values' numbers (%t<k> for a value the
/// tracer does not number: a conversion, a size), and where the source
/// has it.
struct OpLine {
  std::string name, text;
  SourcePos pos;
};
std::vector<OpLine> opLines(const Graph &g) {
  std::vector<OpLine> lines;
  llvm::DenseMap<mlir::Value, std::string> names;
  unsigned unnumbered = 0;
  auto nameOf = [&](mlir::Value v) {
    auto [it, fresh] = names.try_emplace(v);
    if (fresh) {
      int id = g.body->idOf(v);
      auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
      it->second = id >= 0 ? "%" + std::to_string(id)
                   : arg   ? "%arg" + std::to_string(arg.getArgNumber())
                           : "%t" + std::to_string(unnumbered++);
    }
    return it->second;
  };
  for (mlir::Operation &op : g.body->entry()) {
    OpLine line;
    llvm::StringRef name = op.getName().getStringRef();
    name.consume_front("kiln.");
    line.name = name.str();
    llvm::raw_string_ostream os(line.text);
    for (mlir::OpResult r : op.getResults())
      os << (r.getResultNumber() ? ", " : "") << nameOf(r);
    if (op.getNumResults())
      os << " = ";
    if (auto constant = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
      os << "const ";
      if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(constant.getValue()))
        os << (i.getType().isInteger(1)
                   ? static_cast<int64_t>(i.getValue().getZExtValue())
                   : i.getInt());
      else if (auto f = llvm::dyn_cast<mlir::FloatAttr>(constant.getValue()))
        os << f.getValueAsDouble();
    } else {
      os << name << "(";
      // An optional operand left out (clamp without a min) prints as _.
      std::vector<std::string> operands;
      auto segments =
          op.getAttrOfType<mlir::DenseI32ArrayAttr>("operandSegmentSizes");
      unsigned next = 0;
      for (int32_t size :
           segments ? segments.asArrayRef() : llvm::ArrayRef<int32_t>())
        if (size == 0)
          operands.push_back("_");
        else
          for (int32_t k = 0; k < size; ++k)
            operands.push_back(nameOf(op.getOperand(next++)));
      for (; next < op.getNumOperands(); ++next)
        operands.push_back(nameOf(op.getOperand(next)));
      os << llvm::join(operands, ", ") << ")";
      bool first = true;
      for (mlir::NamedAttribute attr : op.getAttrs()) {
        if (attr.getName() == "operandSegmentSizes")
          continue;
        os << (first ? " {" : ", ") << attr.getName().getValue();
        first = false;
        // A size or parameter known only at run time prints as ?.
        auto number = [&](int64_t n) {
          if (n == mlir::ShapedType::kDynamic)
            os << "?";
          else
            os << n;
        };
        mlir::Attribute value = attr.getValue();
        if (llvm::isa<mlir::UnitAttr>(value))
          continue;
        os << " = ";
        if (auto ints = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(value)) {
          os << "[";
          llvm::interleaveComma(ints.asArrayRef(), os, number);
          os << "]";
        } else if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
          number(i.getInt());
        } else {
          value.print(os, /*elideType=*/true);
        }
      }
      if (!first)
        os << "}";
    }
    line.pos = sourceOf(op.getLoc());
    lines.push_back(std::move(line));
  }
  return lines;
}

/// An extra saved value's type: "scalar", or its signature spelling.
std::string savedType(const Graph::Saved &s) {
  return s.scalar ? std::string("scalar")
                  : signatureSpelling(s.element, s.rank);
}

/// explain --autograd: g's backward, what its forward saves for it and
/// what it computes again (buildForwardBackward's estimates).
void printBackward(llvm::raw_ostream &os, const Graph &g) {
  if (!g.autograd)
    return;
  if (!g.backwardReport) {
    os << "    no backward for " << g.name << ": " << g.noBackward << "\n";
    return;
  }
  const Graph::BackwardReport &r = *g.backwardReport;
  // "input x", "result 0", "extra f32[?,?]".
  auto name = [&](const Graph::Saved &s) {
    os << s.fromName() << " ";
    if (s.from == Graph::Saved::From::Input)
      os << g.inputs[s.index].expr;
    else if (s.from == Graph::Saved::From::Result)
      os << s.index;
    else
      os << savedType(s);
  };
  os << "    backward " << g.name << "_backward: the forward saves";
  for (const Graph::Saved &s : g.saved) {
    os << " ";
    name(s);
    os << ",";
  }
  os << " " << r.savedBytes
     << " bytes beyond its inputs and results; the backward computes "
     << r.recomputedOps << " ops of the forward again, " << r.recomputedBytes
     << " bytes (each dynamic dim counted as "
     << mlir::kiln::kDynamicSizeEstimate << ")";
  if (!g.versionChecked.empty()) {
    os << "; checked at backward for in-place changes (what eager saves):";
    for (const Graph::Saved &s : g.versionChecked) {
      os << (&s == &g.versionChecked.front() ? " " : ", ");
      name(s);
    }
  }
  os << "\n";
  llvm::StringRef text = r.ir;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    os << "      " << line << "\n";
    text = rest;
  }
}

std::string dotEscape(const std::string &s) {
  std::string out;
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out;
}

nlohmann::json posJson(const SourcePos &p) {
  return {{"file", p.file}, {"line", p.line}, {"column", p.column}};
}

} // namespace

/// How many graphs, breaks and tensor ops the roots have.
struct Totals {
  int64_t graphs = 0, breaks = 0, ops = 0;
  explicit Totals(const std::vector<Root> &all) {
    for (const Root &r : all) {
      graphs += static_cast<int64_t>(r.segments.size());
      breaks += static_cast<int64_t>(r.breaks.size());
      for (const Segment &s : r.segments)
        ops += s.graph.tensorOpCount();
    }
  }
};

void detail::printExplainText(llvm::raw_ostream &os,
                              const std::vector<Root> &all) {
  auto [graphs, breaks, ops] = Totals(all);
  os << "Kiln produced " << graphs << (graphs == 1 ? " graph" : " graphs")
     << ", with " << breaks << (breaks == 1 ? " graph break" : " graph breaks")
     << " and " << ops << (ops == 1 ? " op" : " ops") << ".\n";
  for (const Root &r : all) {
    os << "\n"
       << r.name << " (" << formatPos(r.pos) << ", backend "
       << mlir::kiln::backendName(r.backend)
       << (r.fullgraph ? ", fullgraph" : "")
       << (r.derived ? ", compiled as a root of its own" : "") << "):\n";
    if (!r.breaks.empty())
      os << "  Graph breaks:\n";
    for (size_t i = 0; i < r.breaks.size(); ++i) {
      const GraphBreak &b = r.breaks[i];
      os << "    " << i + 1 << ". " << b.reason
         << (b.isError ? " [an error: error-on-graph-break or fullgraph]" : "")
         << "\n       at " << formatPos(b.pos) << "\n";
      for (const Frame &f : b.inlinedFrom)
        os << "       inlined from " << f.function << " at " << formatPos(f.pos)
           << "\n";
    }
    if (!r.hostLoops.empty())
      os << "  Loops left on the host, their trip count known only at run "
            "time (the graphs of their bodies run once per iteration):\n";
    for (const GraphBreak &b : r.hostLoops) {
      os << "    - at " << formatPos(b.pos)
         << (b.isError ? " [an error: error-on-graph-break or fullgraph]" : "")
         << "\n";
      for (const Frame &f : b.inlinedFrom)
        os << "      inlined from " << f.function << " at " << formatPos(f.pos)
           << "\n";
    }
    if (!r.hostCalls.empty())
      os << "  Calls left on the host because the callee breaks (counted "
            "there):\n";
    for (const HostCall &c : r.hostCalls)
      os << "    - " << c.callee << " at " << formatPos(c.pos)
         << (c.cause.isError ? " [an error: error-on-graph-break or fullgraph]"
                             : "")
         << "\n      (" << c.cause.reason << " at " << formatPos(c.cause.pos)
         << ")\n";
    for (const Segment &s : r.segments) {
      const Graph &g = s.graph;
      os << "  Graph " << g.name << " (" << g.tensorOpCount()
         << " ops):\n    inputs:";
      for (const GraphInput &in : g.inputs)
        os << " " << in.expr << " (" << kindName(g.values[in.value]) << ")";
      os << "\n    outputs:";
      for (const GraphOutput &out : g.outputs)
        os << " " << outputName(out);
      os << "\n";
      // Where each tensor input's rank and dtype came from.
      os << "    types:";
      for (const GraphInput &in : g.inputs)
        if (g.values[in.value].kind == ValueKind::Tensor)
          os << " " << in.expr << " " << typeOriginName(in.origin);
      os << "\n";
      // Compiled once per value of the host bools that choose its arms,
      // and once per typing where its types are open.
      for (const GraphVariant &v : s.variants) {
        os << "    variant " << v.graph.name;
        if (!v.when.empty())
          os << " when";
        for (auto [index, value] : v.when)
          os << " " << g.inputs[index].expr << "="
             << (value ? "true" : "false");
        // A typing of its own, or other types than the graph's for the
        // same inputs (an autocast version for bfloat16 values).
        bool retyped = false;
        for (size_t i = 0; i < v.graph.inputs.size(); ++i) {
          const TraceValue &mine = v.graph.values[v.graph.inputs[i].value];
          const TraceValue &its = g.values[g.inputs[v.inputIndex[i]].value];
          retyped |= mine.rank != its.rank || mine.element != its.element;
        }
        if (v.typeVersion >= 0 || retyped)
          os << " for " << tensorTypes(v.graph);
        os << " (" << v.graph.tensorOpCount() << " ops), inputs:";
        for (const GraphInput &in : v.graph.inputs)
          os << " " << in.expr;
        os << "\n";
      }
      for (const OpLine &op : opLines(g)) {
        os << "    " << op.text;
        if (!op.pos.file.empty())
          os << "    // " << op.pos.file.substr(op.pos.file.rfind('/') + 1)
             << ":" << op.pos.line;
        os << "\n";
      }
      for (const Graph *compiled : s.compiledGraphs())
        printBackward(os, *compiled);
    }
  }
}

/// explain --autograd: g's backward built as compile builds it, for the
/// report.
static void explainBackward(Graph &g) {
  g.autograd = true;
  mlir::MLIRContext &context = *g.body->module->getContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  if (llvm::Error error = buildGraphFunction(*module, g)) {
    g.noBackward = llvm::toString(std::move(error));
    return;
  }
  std::optional<mlir::kiln::ForwardBackward> pair =
      detail::addBackward(*module, g);
  if (!pair)
    return;
  Graph::BackwardReport report;
  llvm::raw_string_ostream ir(report.ir);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(false);
  pair->backward.print(ir, flags);
  report.savedBytes = pair->savedBytes;
  report.recomputedBytes = pair->recomputedBytes;
  report.recomputedOps = pair->recomputedOps;
  g.backwardReport = std::move(report);
}

int runExplain(const ExplainRequest &request) {
  FrontendOptions options = detail::frontendOptions(request);
  options.breakErrors = false;
  std::vector<std::unique_ptr<TranslationUnit>> units;
  int status = parseAndTrace(options, units);
  std::vector<Root> all;
  for (std::unique_ptr<TranslationUnit> &unit : units) {
    std::vector<Root> &roots = unit->roots;
    // --function NAME: that root and the roots of the callees whose breaks
    // keep its calls on the host (where those breaks are counted).
    std::set<std::string> wanted = {request.function};
    for (size_t before = 0; before != wanted.size();) {
      before = wanted.size();
      for (const Root &r : roots)
        if (wanted.count(r.name))
          for (const HostCall &c : r.hostCalls)
            wanted.insert(c.callee);
    }
    for (Root &r : roots) {
      if (!request.function.empty() && !wanted.count(r.name))
        continue;
      // Guards to show; a graph that cannot be typed shows rank -1.
      std::vector<Graph *> graphs;
      for (Segment &seg : r.segments)
        graphs.push_back(&seg.graph);
      std::vector<std::vector<GraphVariant>> variants;
      // A root compile would reject fails explain too (a guess that
      // does not fit is a warning, as there).
      if (llvm::Error error = typeGraphs(
              graphs, variants, detail::autocastVersions(r, request.autocast)))
        detail::reportTypingFailure(*unit, r, std::move(error),
                                    /*requireKnownTypes=*/false, nullptr);
      for (size_t i = 0; i < r.segments.size(); ++i)
        r.segments[i].variants = std::move(variants[i]);
      if (request.autograd)
        for (Segment &seg : r.segments)
          for (Graph *g : seg.compiledGraphs())
            explainBackward(*g);
      all.push_back(std::move(r));
    }
    if (unit->failed())
      status = 1;
  }
  // A failed command writes nothing on stdout.
  if (status != 0)
    return status;
  auto [graphs, breaks, ops] = Totals(all);
  llvm::raw_ostream &os = llvm::outs();
  if (request.json) {
    nlohmann::json doc;
    doc["schema"] = "kiln.explain";
    doc["version"] = 1;
    doc["graph_count"] = graphs;
    doc["graph_break_count"] = breaks;
    doc["op_count"] = ops;
    doc["roots"] = nlohmann::json::array();
    for (const Root &r : all) {
      nlohmann::json root = {{"name", r.name},
                             {"location", posJson(r.pos)},
                             {"backend", mlir::kiln::backendName(r.backend)},
                             {"fullgraph", r.fullgraph},
                             {"derived", r.derived},
                             {"graphs", nlohmann::json::array()},
                             {"breaks", nlohmann::json::array()}};
      // A break, or a loop left on the host (which has no reason to give).
      auto breakJson = [](const GraphBreak &b) {
        nlohmann::json jb = {{"location", posJson(b.pos)},
                             {"error", b.isError},
                             {"inlined_from", nlohmann::json::array()}};
        if (!b.hostLoop)
          jb["reason"] = b.reason;
        for (const Frame &f : b.inlinedFrom)
          jb["inlined_from"].push_back(
              {{"function", f.function}, {"location", posJson(f.pos)}});
        return jb;
      };
      for (const GraphBreak &b : r.breaks)
        root["breaks"].push_back(breakJson(b));
      root["host_loops"] = nlohmann::json::array();
      for (const GraphBreak &b : r.hostLoops)
        root["host_loops"].push_back(breakJson(b));
      root["host_calls"] = nlohmann::json::array();
      for (const HostCall &c : r.hostCalls)
        root["host_calls"].push_back(
            {{"callee", c.callee},
             {"location", posJson(c.pos)},
             {"error", c.cause.isError},
             {"reason", c.cause.reason},
             {"reason_location", posJson(c.cause.pos)}});
      for (const Segment &s : r.segments) {
        const Graph &g = s.graph;
        nlohmann::json jg = {{"name", g.name},
                             {"op_count", g.tensorOpCount()},
                             {"inputs", nlohmann::json::array()},
                             {"outputs", nlohmann::json::array()},
                             {"ops", nlohmann::json::array()}};
        for (const GraphInput &in : g.inputs) {
          nlohmann::json ji = {{"expr", in.expr},
                               {"type", kindName(g.values[in.value])}};
          if (g.values[in.value].kind == ValueKind::Tensor)
            ji["origin"] = typeOriginName(in.origin);
          jg["inputs"].push_back(ji);
        }
        for (const GraphOutput &out : g.outputs)
          jg["outputs"].push_back(outputName(out));
        jg["variants"] = nlohmann::json::array();
        for (const GraphVariant &v : s.variants) {
          nlohmann::json jv = {{"name", v.graph.name},
                               {"op_count", v.graph.tensorOpCount()},
                               {"when", nlohmann::json::object()},
                               {"inputs", nlohmann::json::array()}};
          for (auto [index, value] : v.when)
            jv["when"][g.inputs[index].expr] = value;
          for (const GraphInput &in : v.graph.inputs)
            jv["inputs"].push_back(
                {{"expr", in.expr},
                 {"type", kindName(v.graph.values[in.value])}});
          if (v.typeVersion >= 0)
            jv["type_version"] = v.typeVersion;
          jg["variants"].push_back(jv);
        }
        for (const OpLine &op : opLines(g))
          jg["ops"].push_back({{"op", op.name},
                               {"text", op.text},
                               {"location", posJson(op.pos)}});
        if (request.autograd) {
          jg["backwards"] = nlohmann::json::array();
          for (const Graph *c : s.compiledGraphs()) {
            nlohmann::json jb = {{"graph", c->name}};
            if (!c->backwardReport) {
              jb["no_backward"] = c->noBackward;
            } else {
              jb["name"] = c->name + "_backward";
              jb["saved"] = nlohmann::json::array();
              for (const Graph::Saved &sv : c->saved)
                jb["saved"].push_back({{"from", sv.fromName()},
                                       {"index", sv.index},
                                       {"type", savedType(sv)}});
              jb["version_checked"] = nlohmann::json::array();
              for (const Graph::Saved &sv : c->versionChecked)
                jb["version_checked"].push_back(
                    {{"from", sv.fromName()}, {"index", sv.index}});
              jb["saved_bytes"] = c->backwardReport->savedBytes;
              jb["recomputed_ops"] = c->backwardReport->recomputedOps;
              jb["recomputed_bytes"] = c->backwardReport->recomputedBytes;
              jb["ir"] = c->backwardReport->ir;
            }
            jg["backwards"].push_back(jb);
          }
        }
        root["graphs"].push_back(jg);
      }
      doc["roots"].push_back(root);
    }
    os << doc.dump(2) << "\n";
    return status;
  }
  if (request.dot) {
    os << "digraph kiln {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n";
    int cluster = 0;
    for (const Root &r : all) {
      os << "  subgraph cluster_" << cluster++ << " {\n    label=\"" << r.name
         << "\";\n";
      for (const Segment &s : r.segments)
        os << "    \"" << s.graph.name << "\" [shape=box, label=\""
           << s.graph.name << "\\n"
           << s.graph.tensorOpCount() << " ops\"];\n";
      for (size_t i = 0; i < r.breaks.size(); ++i)
        os << "    \"" << r.name << " break " << i
           << "\" [shape=octagon, label=\""
           << "break: " << dotEscape(r.breaks[i].reason) << "\\n"
           << formatPos(r.breaks[i].pos) << "\"];\n";
      for (size_t i = 0; i < r.hostCalls.size(); ++i)
        os << "    \"" << r.name << " host call " << i
           << "\" [shape=ellipse, label=\""
           << "host call: " << dotEscape(r.hostCalls[i].callee)
           << " (it breaks)\\n"
           << formatPos(r.hostCalls[i].pos) << "\"];\n";
      os << "  }\n";
    }
    os << "}\n";
    return status;
  }
  detail::printExplainText(os, all);
  return status;
}

} // namespace kiln::driver
