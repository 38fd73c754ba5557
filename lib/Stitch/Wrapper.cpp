//===- Wrapper.cpp - The C++ through which stitched code runs a graph -----===//
//
// Each graph gets `template <...> static bool NAME(outputs&..., inputs...)`:
// it checks the guard (the ranks and dtypes the graph was built for), then
// either calls the compiled entry point through kiln::abi::GraphCall or, for
// the eager backend, runs the captured ops as calls into the runtime
// (lib/Target/Cpp; the runtime checks the capture itself, as
// torch.compile's backend="eager" does, but for in-place ops written as
// functional ones, whose errors rerun the statements). It
// returns false when the original statements must run instead.
//
//===----------------------------------------------------------------------===//
#include "kiln/CpuTargets.h"
#include "kiln/Stitch/Stitch.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Frontend/GraphBody.h"
#include "kiln/Target/Cpp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

namespace kiln::stitch {

using namespace frontend;

std::string cString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

/// `static bool NAME(outputs&..., inputs...)`, a template over the types
/// of its host scalar outputs.
std::string signatureOf(const Graph &g) {
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
                         : std::string(cpp::scalarType(v.kind)) + " i" +
                               std::to_string(i));
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
  return signature.str();
}
} // namespace

namespace {
/// The checks that open every graph's entry: whether this thread runs
/// compiled code, then where the graph is (for the guard's warning and
/// KILN_STATS).
void emitPrologue(std::ostringstream &os, const Graph &g, bool onlyFromCompiled,
                  const std::string &location, const std::string &cpuFeatures,
                  bool autocastTwins = false) {
  if (onlyFromCompiled)
    os << "  // A callee compiled as a root of its own: eager callers keep "
          "the\n"
          "  // original.\n  if (!kiln::abi::inCompiledCode())\n    return "
          "false;\n";
  else
    os << "  if (kiln::abi::inDisabledCode())\n    return false;\n";
  std::string tensorInputs;
  for (const GraphInput &in : g.inputs)
    if (g.values[in.value].kind == ValueKind::Tensor)
      tensorInputs += (tensorInputs.empty() ? "" : ",") + in.expr;
  os << "  static constexpr kiln::abi::GraphSite site(\"" << g.name << "\", "
     << cString(location) << ", " << g.tensorOpCount() << ", "
     << cString(tensorInputs);
  // Under kiln::autocast: its twins (bfloat16) or eager code.
  const char *autocast = !g.holdsAutocastOps() ? nullptr
                         : autocastTwins
                             ? "kiln::abi::AutocastSite::BFloat16Twins"
                             : "kiln::abi::AutocastSite::Eager";
  if (!cpuFeatures.empty() || g.autograd || autocast)
    os << ", " << (cpuFeatures.empty() ? "\"\"" : cpuFeatures);
  if (g.autograd || autocast) // true: the call records the compiled backward
    os << ", " << (g.autograd ? "true" : "false");
  if (autocast)
    os << ", " << autocast;
  os << ");\n";
}
/// The C++ function each of g's kiln.opaque_call symbols stands for.
std::map<std::string, std::string> opaqueCallees(const Graph &g) {
  std::map<std::string, std::string> callees;
  for (mlir::Operation &op : g.body->entry())
    if (llvm::isa<mlir::kiln::OpaqueCallOp>(op))
      callees[opaqueSymbol(g, &op)] = opaqueCallee(&op);
  return callees;
}

/// The eager backend's body of graph g: its kiln function (the one the
/// compiled backends lower) printed as runtime calls, then the outputs
/// assigned; nullopt, with a warning, when it cannot be printed.
std::optional<std::string> eagerBody(const Graph &g) {
  mlir::MLIRContext &context = *g.body->module->getContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  std::map<std::string, std::string> opaque = opaqueCallees(g);
  llvm::Expected<cpp::EagerStatements> body =
      [&]() -> llvm::Expected<cpp::EagerStatements> {
    if (llvm::Error error = buildGraphFunction(*module, g))
      return std::move(error);
    // The promotions the dialect infers made explicit casts: the runtime
    // would promote a kiln.from_scalar result as a 0-d tensor, not as the
    // C++ number (wrapped number) it stands for.
    mlir::PassManager pm(&context);
    pm.addPass(mlir::kiln::createKilnMaterializePromotions());
    if (mlir::failed(pm.run(*module)))
      return llvm::createStringError("kiln-materialize-promotions failed");
    auto fn = module->lookupSymbol<mlir::func::FuncOp>(g.name);
    return cpp::EagerStatements::print(
        fn, [&](llvm::StringRef symbol) { return opaque.at(symbol.str()); });
  }();
  if (!body) {
    llvm::errs() << "kiln: warning: graph " << g.name
                 << " runs its original statements: "
                 << llvm::toString(body.takeError()) << "\n";
    return std::nullopt;
  }
  std::ostringstream os;
  // In-place ops traced as functional ones (Graph::inPlace) are not the
  // calls the source makes: where one fails (an operand that does not
  // broadcast to its tensor), the statements rerun and raise eager's error.
  bool rerun = !g.inPlace.empty();
  if (rerun)
    os << "  try {\n";
  os << body->statements();
  // Every result is taken before any output is assigned: an output may
  // be the very variable an input reads (a = b; b = t swaps them).
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const TraceValue &v = g.values[g.outputs[i].value];
    bool tensor = v.kind == ValueKind::Tensor;
    os << "  auto r" << i << " = "
       << (tensor ? "kiln::Tensor(" + body->result(i, false) + ")"
                  : "static_cast<O" + std::to_string(i) + ">(" +
                        body->result(i, true) + ")")
       << ";\n";
  }
  for (size_t i = 0; i < g.outputs.size(); ++i)
    os << "  o" << i << " = r" << i << ";\n";
  if (rerun)
    os << "  } catch (const kiln::Error &) {\n    return false;\n  }\n";
  return os.str();
}
} // namespace

llvm::Expected<std::string> emitEagerEntry(const Graph &g,
                                           mlir::func::FuncOp fn) {
  auto spelled = [](mlir::Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  };
  std::map<std::string, std::string> opaque = opaqueCallees(g);
  llvm::Expected<cpp::EagerStatements> body = cpp::EagerStatements::print(
      fn, [&](llvm::StringRef symbol) { return opaque.at(symbol.str()); });
  if (!body)
    return body.takeError();
  std::ostringstream os;
  os << "extern \"C\" void kiln_entry_" << fn.getName().str()
     << "(void **args) {\n";
  // The arguments as GraphCall passes them: tensors as descriptors,
  // scalars as the bits of an int64 slot.
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    std::string arg = "args[" + std::to_string(i + 1) + "]";
    if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(type)) {
      os << "  const kiln::Tensor i" << i << " = kiln::abi::borrow(" << arg
         << ", " << t.getRank() << ", "
         << dtypeSpelling(elementOf(t.getElementType())) << ");\n";
      continue;
    }
    const char *scalar =
        type.isF32()                                                ? "float"
        : type.isF64()                                              ? "double"
        : type.isIndex() || type.isInteger(64) || type.isInteger(1) ? "int64_t"
                                                                    : nullptr;
    if (!scalar)
      return llvm::createStringError("aot_eager: an argument of type " +
                                     spelled(type) + " in " +
                                     fn.getName().str());
    // (A backward's "gradient needed" flags go unread: aot_eager computes
    // every gradient.)
    os << "  [[maybe_unused]] const auto i" << i << " = *static_cast<const "
       << scalar << " *>(" << arg << ");\n";
  }
  // The results: a descriptor each, then the int32 status.
  os << "  char *results = static_cast<char *>(args[0]);\n"
     << "  bool ok = [&]() -> bool {\n    try {\n"
     << body->statements();
  size_t offset = 0;
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes())) {
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(type);
    if (!t)
      return llvm::createStringError("aot_eager: a result of type " +
                                     spelled(type) + " in " +
                                     fn.getName().str());
    os << "      kiln::abi::returnTensor(kiln::Tensor("
       << body->result(i, false) << "), results + " << offset << ");\n";
    offset += sizeof(int64_t) * (3 + 2 * t.getRank()); // kiln/abi.h
  }
  os << "      return true;\n    } catch (const kiln::Error &) {\n"
     << "      return false;\n    }\n  }();\n"
     << "  *reinterpret_cast<int32_t *>(results + " << offset
     << ") = ok ? 0 : 1;\n}\n";
  return os.str();
}

namespace {
/// The entry point kiln_entry_NAME as a call takes it: for a file compiled
/// for several CPUs, the one of the CPU the stitched file chose
/// (kiln_cpu_target_; the first CPU's where none fits, whose guard then
/// runs the graph eagerly).
std::string entryPoint(const std::string &name, int cpuTargets) {
  std::string entry = "kiln_entry_" + name;
  for (int i = cpuTargets - 1; i >= 1; --i)
    entry = "kiln_cpu_target_ == " + std::to_string(i) + " ? kiln_entry_" +
            name + kiln::cpuTargetSuffix(static_cast<size_t>(i)) + " : " +
            entry;
  return cpuTargets > 1 ? "(" + entry + ")" : entry;
}

/// The declarations of entry point NAME's symbols, one per CPU.
std::string entryDeclarations(const std::string &name, int cpuTargets) {
  std::string decl;
  for (int i = 0; i < std::max(cpuTargets, 1); ++i)
    decl += "extern \"C\" void kiln_entry_" + name +
            kiln::cpuTargetSuffix(static_cast<size_t>(i)) + "(void **);\n";
  return decl;
}
} // namespace

WrapperCode emitWrapper(const Graph &g, bool compiled, bool onlyFromCompiled,
                        bool cuda, const std::string &location, bool dispatched,
                        const std::string &cpuFeatures, int cpuTargets) {
  std::ostringstream os, decl;
  if (compiled)
    decl << entryDeclarations(g.name, cpuTargets);
  if (compiled && g.hasBackward())
    decl << entryDeclarations(g.name + "_forward", cpuTargets)
         << entryDeclarations(g.name + "_backward", cpuTargets);
  std::string signature = signatureOf(g);
  decl << signature << ";\n";
  os << signature << " {\n";
  if (dispatched) {
    if (compiled) // for GraphCall's errors and KILN_STATS
      os << "  static constexpr kiln::abi::GraphSite site(\"" << g.name
         << "\", " << cString(location) << ", " << g.tensorOpCount() << ");\n";
  } else {
    emitPrologue(os, g, onlyFromCompiled, location,
                 compiled ? cpuFeatures : "");
    os << "  if (!kiln::abi::guard(site, {";
    bool first = true;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const TraceValue &v = g.values[g.inputs[i].value];
      if (v.kind != ValueKind::Tensor)
        continue;
      os << (first ? "" : ", ") << "{i" << i << ", " << v.rank << ", "
         << dtypeSpelling(v.element) << "}";
      first = false;
    }
    os << "}" << (cuda ? ", kiln::Device::cuda()" : "")
       << "))\n    return false;\n";
  }
  if (compiled) {
    for (size_t i = 0; i < g.outputs.size(); ++i)
      if (g.values[g.outputs[i].value].kind != ValueKind::Tensor)
        os << "  kiln::Tensor r" << i << ";\n";
    os << "  if (!kiln::abi::GraphCall(site, " << entryPoint(g.name, cpuTargets)
       << (cuda ? ", kiln::Device::cuda()" : "") << ")";
    if (g.hasBackward()) {
      // A braced list of kiln::abi::SavedValue.
      auto savedValues = [&](const std::vector<Graph::Saved> &values) {
        os << "{";
        for (size_t i = 0; i < values.size(); ++i) {
          const Graph::Saved &s = values[i];
          os << (i ? ", " : "") << "{kiln::abi::SavedValue::" << s.fromName()
             << ", " << s.index;
          if (s.from == Graph::Saved::From::Extra)
            os << ", " << s.rank << ", " << dtypeSpelling(s.element)
               << (s.scalar ? ", true" : "");
          os << "}";
        }
        os << "}";
      };
      os << "\n           .backward("
         << entryPoint(g.name + "_forward", cpuTargets) << ", "
         << entryPoint(g.name + "_backward", cpuTargets) << ", ";
      savedValues(g.saved);
      if (!g.versionChecked.empty()) {
        os << ", ";
        savedValues(g.versionChecked);
      }
      os << ")";
      if (!g.gradientSources.empty()) {
        os << "\n           .gradientSources({";
        for (size_t i = 0; i < g.gradientSources.size(); ++i) {
          os << (i ? ", " : "") << "{";
          for (size_t j = 0; j < g.gradientSources[i].size(); ++j)
            os << (j ? ", " : "") << g.gradientSources[i][j];
          os << "}";
        }
        os << "})";
      }
    } else if (g.autograd) { // a call that needs gradients runs eagerly
      os << "\n           .noBackward("
         << cString(llvm::StringRef(g.noBackward).split('\n').first.str())
         << ")";
    }
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
      ElementType e = tensor ? v.element : elementOfScalar(v.kind);
      os << "\n           .output(" << (tensor ? "o" : "r") << i << ", "
         << (tensor ? v.rank : 0) << ", " << dtypeSpelling(e) << ")";
    }
    os << "\n           .run())\n    return false;\n";
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const TraceValue &v = g.values[g.outputs[i].value];
      if (v.kind != ValueKind::Tensor)
        os << "  o" << i << " = static_cast<O" << i << ">(r" << i << ".item<"
           << cpp::scalarType(v.kind) << ">());\n";
    }
  } else if (std::optional<std::string> body = eagerBody(g)) {
    os << *body;
  } else {
    os << "  return false; // not printed: see kiln compile's warning\n}\n";
    return {decl.str(), os.str()};
  }
  os << "  return true;\n}\n";
  // aot_eager: the entry points, printed as runtime calls.
  os << g.eagerEntries;
  // The adapters through which compiled code calls allow_in_graph functions.
  if (compiled && g.eagerEntries.empty())
    for (mlir::Operation &op : g.body->entry()) {
      if (!llvm::isa<mlir::kiln::OpaqueCallOp>(op))
        continue;
      const TraceValue &r = g.values[g.body->idOf(op.getResult(0))];
      std::string symbol = opaqueSymbol(g, &op);
      std::string callee = opaqueCallee(&op);
      unsigned operands = op.getNumOperands();
      os << "extern \"C\" void _mlir_ciface_" << symbol << "(void *result";
      for (unsigned i = 0; i < operands; ++i)
        os << ", void *a" << i;
      os << ") {\n  void *args[] = {nullptr";
      for (unsigned i = 0; i < operands; ++i)
        os << ", a" << i;
      os << "};\n  kiln::abi::callOpaque(\"" << callee << "\", result, "
         << r.rank << ", " << dtypeSpelling(r.element)
         << ",\n      [](void *context) -> kiln::Tensor {\n"
         << "        void **p = static_cast<void **>(context);\n        return "
         << callee << "(";
      for (unsigned i = 0; i < operands; ++i) {
        const TraceValue &a = g.values[g.body->idOf(op.getOperand(i))];
        os << (i ? ", " : "") << "kiln::abi::borrow(p[" << i + 1 << "], "
           << a.rank << ", " << dtypeSpelling(a.element) << ")";
      }
      os << ");\n      },\n      args);\n}\n";
    }
  return {decl.str(), os.str()};
}

WrapperCode emitDispatcher(const Graph &g,
                           const std::vector<GraphVariant> &variants,
                           bool onlyFromCompiled, bool cuda,
                           const std::string &location,
                           const std::string &cpuFeatures) {
  std::string signature = signatureOf(g);
  std::ostringstream os;
  os << signature << " {\n";
  bool twins = llvm::any_of(
      variants, [](const GraphVariant &v) { return v.graph.autocast; });
  emitPrologue(os, g, onlyFromCompiled, location, cpuFeatures, twins);
  os << "  switch (kiln::abi::chooseVersion(site, {";
  for (size_t k = 0; k < variants.size(); ++k) {
    const GraphVariant &v = variants[k];
    os << (k ? "," : "") << "\n      {";
    for (size_t j = 0; j < v.when.size(); ++j)
      os << (j ? " && " : "") << (v.when[j].second ? "" : "!") << "i"
         << v.when[j].first;
    // Autocast twins serve calls under kiln::autocast, the others the rest.
    if (twins)
      os << (v.when.empty() ? "" : " && ") << (v.graph.autocast ? "" : "!")
         << "kiln::is_autocast_enabled()";
    else if (v.when.empty())
      os << "true";
    os << ", {";
    bool first = true;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      if (g.values[g.inputs[i].value].kind != ValueKind::Tensor)
        continue;
      os << (first ? "" : ", ") << "{i" << i << ", ";
      first = false;
      auto at = std::find(v.inputIndex.begin(), v.inputIndex.end(), i);
      if (at == v.inputIndex.end()) { // an input this variant drops
        os << "-1, kiln::kFloat32}";
        continue;
      }
      const GraphInput &in = v.graph.inputs[at - v.inputIndex.begin()];
      const TraceValue &t = v.graph.values[in.value];
      os << t.rank << ", " << dtypeSpelling(t.element) << "}";
    }
    os << "}}";
  }
  os << "}" << (cuda ? ", kiln::Device::cuda()" : "") << ")) {\n";
  for (size_t k = 0; k < variants.size(); ++k) {
    const GraphVariant &v = variants[k];
    os << "  case " << k << ":\n    return " << v.graph.name << "(";
    for (size_t i = 0; i < g.outputs.size(); ++i)
      os << (i ? ", " : "") << "o" << i;
    for (size_t i = 0; i < v.inputIndex.size(); ++i)
      os << (i || !g.outputs.empty() ? ", " : "") << "i" << v.inputIndex[i];
    os << ");\n";
  }
  os << "  default:\n    return false;\n  }\n}\n";
  return {signature + ";\n", os.str()};
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
    os << static_cast<unsigned>(static_cast<unsigned char>(image.bytes[i]))
       << ",";
  }
  os << "\n};\n}\n";
  return os.str();
}

} // namespace kiln::stitch
