//===- Compile.cpp - `kiln compile`: sources to stitched C++ and kernels --===//
//
// Frontend (trace each root) -> type each graph (inferSignature) -> the
// graphs of the file's cpu roots go into one kiln-dialect module through
// buildCpuPipeline, those of its cuda roots into another through
// buildGpuPipeline; both are linked into one object file beside the output
// (the GPU kernels' binary moved out, into the stitched source) -> Stitch
// re-emits the file. A graph that cannot be typed or compiled is an internal
// failure of its root: an error, or with --suppress-errors a warning that
// leaves the root host code.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Compile.h"

#include "CompileCache.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/GraphBuilder.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Stitch/Stitch.h"
#include "kiln/Target/CUDA.h"
#include "kiln/Target/Host.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <set>

namespace kiln::driver {

using namespace frontend;

namespace {

class Timer {
public:
  void start(const std::string &phase) {
    stop();
    phase_ = phase;
    begin_ = std::chrono::steady_clock::now();
  }
  void stop() {
    if (phase_.empty())
      return;
    seconds_[phase_] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_)
            .count();
    order_.push_back(phase_);
    phase_.clear();
  }
  void print(llvm::raw_ostream &os) {
    stop();
    double total = 0;
    for (auto &[k, v] : seconds_)
      total += v;
    os << "kiln: time report\n";
    std::vector<std::string> seen;
    for (const std::string &p : order_) {
      if (std::find(seen.begin(), seen.end(), p) != seen.end())
        continue;
      seen.push_back(p);
      os << llvm::format("  %-34s %8.3f s\n", p.c_str(), seconds_[p]);
    }
    os << llvm::format("  %-34s %8.3f s\n", "total", total);
  }

private:
  std::string phase_;
  std::chrono::steady_clock::time_point begin_;
  std::map<std::string, double> seconds_;
  std::vector<std::string> order_;
};

} // namespace

mlir::kiln::CodegenOptions detail::targetOf(const CompileRequest &r) {
  mlir::kiln::CodegenOptions target;
  target.cpu = r.targetCpu;
  target.features = r.targetFeatures;
  return target;
}

FrontendOptions detail::frontendOptions(const SourceRequest &r) {
  FrontendOptions o;
  o.files = r.files;
  o.clangArgs = r.clangArgs;
  o.buildDir = r.buildDir;
  o.annotate = r.annotate;
  o.disallowInGraph = r.disallowInGraph;
  o.signatures = r.signatures;
  o.recordedSignatures = r.recordedSignatures;
  o.callSiteFiles = r.callSiteFiles;
  o.logs = r.logs;
  o.suppressErrors = r.suppressErrors;
  return o;
}

namespace {

/// The tensor inputs of root's graphs whose types nothing states or shows,
/// comma-separated.
std::string openInputs(const Root &root) {
  std::string open;
  for (const Segment &seg : root.segments)
    for (const GraphInput &in : seg.graph.inputs)
      if (in.origin == TypeOrigin::Open &&
          seg.graph.values[in.value].kind == ValueKind::Tensor)
        open += (open.empty() ? "" : ", ") + in.expr;
  return open;
}

/// The ops whose result may share its first operand's elements eagerly (a
/// view, or the tensor itself: a cast to its own dtype) and an if-select of
/// host values, which returns one of its operands.
bool mayAlias(OpCode code) {
  switch (code) {
  case OpCode::Reshape:
  case OpCode::Expand:
  case OpCode::Transpose:
  case OpCode::Permute:
  case OpCode::Unsqueeze:
  case OpCode::Squeeze:
  case OpCode::Flatten:
  case OpCode::Unflatten:
  case OpCode::ReshapeAs:
  case OpCode::Slice:
  case OpCode::Cast:
  case OpCode::Select:
    return true;
  default:
    return false;
  }
}

/// The values whose elements v's may be eagerly: v itself, or through
/// views the values they are views of (the tensors an if-select chose
/// between, both).
void aliasBases(const Graph &g, int v, std::set<int> &bases) {
  const TraceOp *op = g.producer(v);
  if (!op || !mayAlias(op->code) || op->operands.empty()) {
    bases.insert(v);
    return;
  }
  if (op->code == OpCode::Select) {
    for (int operand : op->operands)
      if (g.values[operand].kind == ValueKind::Tensor)
        aliasBases(g, operand, bases);
    return;
  }
  aliasBases(g, op->operands[0], bases);
}

/// Why an output of root's graphs would share elements with an input or
/// with another output eagerly, which the compiled graph, returning
/// tensors of its own, would not; or empty.
std::string aliasedOutput(const Root &root) {
  for (const Segment &seg : root.segments) {
    const Graph &g = seg.graph;
    auto nameOf = [](const GraphOutput &out) {
      if (!out.variable.empty())
        return "'" + out.variable + "'";
      if (out.returnPart >= 0)
        return "element " + std::to_string(out.returnPart) +
               " of the returned value";
      return std::string("the returned tensor");
    };
    std::map<int, size_t> owners; // base value -> the output naming it
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const GraphOutput &out = g.outputs[i];
      if (g.values[out.value].kind != ValueKind::Tensor)
        continue;
      std::set<int> bases;
      aliasBases(g, out.value, bases);
      for (int base : bases) {
        if (!g.producer(base))
          return nameOf(out) + " may be (a view of) an input";
        auto [it, fresh] = owners.emplace(base, i);
        if (!fresh && g.outputs[it->second].value != out.value)
          return nameOf(out) + " and " + nameOf(g.outputs[it->second]) +
                 " may share elements";
      }
    }
  }
  return "";
}

/// Reports a root that cannot be compiled: an error, or with `hostBecause`
/// a warning that it stays host code (and why that is not an error).
/// Returns the message.
std::string internalFailure(const Root &root, const std::string &why,
                            const char *hostBecause, bool &failed) {
  std::string message = "kiln could not compile '" + root.name + "': " + why;
  if (hostBecause)
    message += " (left as host code: " + std::string(hostBecause) + ")";
  llvm::errs() << formatPos(root.pos) << ": "
               << (hostBecause ? "warning" : "error") << ": " << message
               << "\n";
  if (!hostBecause)
    failed = true;
  return message;
}

} // namespace

std::string detail::reportTypingFailure(const Root &root, llvm::Error error,
                                        bool requireKnownTypes,
                                        const char *hostBecause, bool &failed) {
  // A graph typed on a guess that does not fit is not the user's error: it
  // runs eagerly, with a way to state the types.
  std::string open = openInputs(root);
  // (An input's own uses that disagree, "input 'x' needs ...", are the
  // source's contradiction, not a guess's.)
  std::string why = llvm::toString(std::move(error));
  bool guessed = !open.empty() && !requireKnownTypes &&
                 llvm::StringRef(why).starts_with("kiln::");
  return internalFailure(root,
                         why + (guessed ? "; the types of " + open +
                                              " are open: state them with "
                                              "--signature or --signatures"
                                        : ""),
                         guessed ? "a guess" : hostBecause, failed);
}

namespace {

const char *suppressed(const CompileRequest &request) {
  return request.suppressErrors ? "--suppress-errors" : nullptr;
}

/// The graphs of roots, typed; roots that fail are dropped from `ok`.
void typeRoots(std::vector<Root> &roots, const CompileRequest &request,
               std::vector<Root *> &ok, bool &failed) {
  for (Root &root : roots) {
    if (root.failed)
      continue;
    if (!root.inPlace.empty()) {
      root.leftOnHost = internalFailure(
          root,
          "it modifies a tensor in place (" + root.inPlace +
              "), and compiled graphs do not keep views aliased to their "
              "base yet",
          "in-place ops run eagerly", failed);
      continue;
    }
    if (root.unitWritesInPlace) {
      std::string why = aliasedOutput(root);
      if (!why.empty()) {
        root.leftOnHost = internalFailure(
            root,
            why + ", and this file modifies tensors in place: compiled graphs "
                  "return views as tensors of their own",
            "views and in-place ops run eagerly", failed);
        continue;
      }
    }
    std::vector<Graph *> graphs;
    for (Segment &seg : root.segments)
      graphs.push_back(&seg.graph);
    std::vector<std::vector<GraphVariant>> variants;
    if (llvm::Error error = typeGraphs(graphs, variants)) {
      root.leftOnHost = detail::reportTypingFailure(
          root, std::move(error), request.requireKnownTypes,
          suppressed(request), failed);
      continue;
    }
    if (request.requireKnownTypes) {
      std::string open = openInputs(root);
      if (!open.empty()) {
        internalFailure(root,
                        "no rank or dtype is stated or shown for " + open +
                            " (--require-known-types; state them with "
                            "--signature)",
                        nullptr, failed);
        continue;
      }
    }
    for (size_t i = 0; i < root.segments.size(); ++i)
      root.segments[i].variants = std::move(variants[i]);
    ok.push_back(&root);
  }
}

/// The path of one --debug-dir file.
std::string debugPath(const CompileRequest &request,
                      const std::string &suffix) {
  llvm::SmallString<256> path(request.debugDir);
  llvm::sys::path::append(path,
                          llvm::sys::path::stem(request.output).str() + suffix);
  return std::string(path);
}

/// A stable name for the images of `file` (two files' objects may be
/// linked into one program).
std::string imagePrefix(const std::string &file) {
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (char c : file)
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return "kiln_image_" + llvm::utohexstr(hash) + "_";
}

/// Writes text to path through a temporary file renamed into place.
bool writeAtomically(const std::string &path, llvm::StringRef text) {
  llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
  if (!error)
    return true;
  llvm::errs() << "kiln compile: error: cannot write " << path << ": "
               << llvm::toString(std::move(error)) << "\n";
  return false;
}

/// Writes one stage's text to `path` (when `write`).
llvm::Error writeStage(bool write, const std::string &path,
                       llvm::StringRef text) {
  if (write && !writeAtomically(path, text))
    return llvm::createStringError("cannot write " + path);
  return llvm::Error::success();
}

/// MLIR's error diagnostics during one compileRoots, held rather than
/// printed: a failed root is reported once, as one located line that ends
/// with the first of them (`... the cuda pipeline failed: ptxas ...`).
class HeldDiagnostics {
public:
  explicit HeldDiagnostics(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
            return mlir::failure(); // warnings and remarks print as before
          if (first.empty())
            first = oneLine(diag);
          return mlir::success();
        }) {}

  /// `error`, with the first held diagnostic appended.
  llvm::Error annotate(llvm::Error error) const {
    if (!error || first.empty())
      return error;
    return llvm::createStringError(llvm::toString(std::move(error)) + ": " +
                                   first);
  }

private:
  /// The diagnostic and its notes on one line, whitespace squeezed.
  static std::string oneLine(mlir::Diagnostic &diag) {
    std::string text = diag.str();
    for (mlir::Diagnostic &note : diag.getNotes())
      text += "; " + note.str();
    std::string out;
    for (char c : text) {
      bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      if (space && (out.empty() || out.back() == ' '))
        continue;
      out += space ? ' ' : c;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '.'))
      out.pop_back();
    return out;
  }

  std::string first;
  mlir::ScopedDiagnosticHandler handler;
};

/// Whether --log (or KILN_LOGS) asks for `log`, or for all.
bool logging(const CompileRequest &request, llvm::StringRef log) {
  return llvm::is_contained(request.logs, log) ||
         llvm::is_contained(request.logs, "all");
}

/// One root compiled into an object of its own (a part of its file's
/// object), through the cache when there is one.
struct Unit {
  const CompileCache *cache = nullptr;
  /// The names of its GPU images start with this.
  std::string imagePrefix;
  /// Out: the object, whether it came from the cache, and its key.
  std::string object;
  bool hit = false;
  std::string key;
};

/// Builds the graphs of roots into a module per backend (cpu, cuda),
/// lowers each (lowerModule) and writes one object (when `write`; into
/// unit->object when a unit is given) or, for --emit=kiln|linalg|llvm|ptx,
/// that stage to the output; an error saying why if any step fails. The
/// GPU kernels' images are appended to `images`.
llvm::Error
compileRootsHeld(const std::vector<Root *> &roots, mlir::MLIRContext &context,
                 const std::string &objectPath, const CompileRequest &request,
                 const std::string &file, Timer &timer, bool write,
                 std::vector<stitch::EmbeddedImage> &images, Unit *unit) {
  using mlir::kiln::Backend;
  using mlir::kiln::Stage;
  bool debug = write && !unit && !request.debugDir.empty();
  std::vector<mlir::ModuleOp> modules;
  std::vector<mlir::kiln::CompileOptions> compileOptions;
  auto cleanup = [&] {
    for (mlir::ModuleOp m : modules)
      m->erase();
  };
  bool logCode = logging(request, "graph_code");
  std::error_code ec;
  std::unique_ptr<llvm::raw_fd_ostream> kilnIR, passes, llvmDialect;
  if (debug) {
    kilnIR = std::make_unique<llvm::raw_fd_ostream>(
        debugPath(request, ".0-kiln.mlir"), ec);
    passes = std::make_unique<llvm::raw_fd_ostream>(
        debugPath(request, ".1-after-each-pass.mlir"), ec);
    llvmDialect = std::make_unique<llvm::raw_fd_ostream>(
        debugPath(request, ".2-llvm-dialect.mlir"), ec);
  }
  Stage stage = request.emit == "kiln"     ? Stage::Kiln
                : request.emit == "linalg" ? Stage::Linalg
                                           : Stage::LLVMDialect;
  for (Backend backend : {Backend::Cpu, Backend::Cuda}) {
    std::vector<Root *> mine;
    for (Root *root : roots)
      if (root->backend == backend)
        mine.push_back(root);
    if (mine.empty())
      continue;
    auto module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
    modules.push_back(module);
    timer.start("build kiln-dialect graphs");
    for (Root *root : mine)
      for (Segment &seg : root->segments) {
        std::vector<const Graph *> graphs;
        for (const GraphVariant &v : seg.variants)
          graphs.push_back(&v.graph);
        if (graphs.empty())
          graphs.push_back(&seg.graph);
        for (const Graph *graph : graphs)
          if (llvm::Error error = buildGraphFunction(module, *graph)) {
            cleanup();
            return error;
          }
      }
    if (logCode) {
      llvm::errs() << "kiln: graph code (" << mlir::kiln::backendName(backend)
                   << ")\n";
      module.print(llvm::errs());
      llvm::errs() << "\n";
    }
    if (kilnIR)
      module.print(*kilnIR);
    mlir::kiln::CompileOptions options;
    options.backend = backend;
    options.gpu.chip = request.cudaArch;
    // --emit=ptx shows the kernels as PTX text.
    options.gpu.format = request.emit == "ptx"
                             ? std::string("isa")
                             : gpuBinaryFormat(request.cudaFormat);
    options.afterEachPass = passes.get();
    compileOptions.push_back(options);
  }
  if (stage != Stage::LLVMDialect) {
    // --emit=kiln|linalg: the file's graphs, cpu module first.
    std::string text;
    llvm::raw_string_ostream os(text);
    for (auto [module, options] : llvm::zip(modules, compileOptions)) {
      timer.start("kiln -> linalg");
      if (mlir::failed(mlir::kiln::lowerModule(module, options, stage))) {
        cleanup();
        return llvm::createStringError("the conversion to linalg failed");
      }
      module.print(os);
    }
    cleanup();
    return writeStage(write, request.output, text);
  }
  // The object is written even with no graphs in it: build systems expect
  // it beside the stitched source.
  if (modules.empty()) {
    modules.push_back(mlir::ModuleOp::create(mlir::UnknownLoc::get(&context)));
    compileOptions.emplace_back();
  }
  std::string prefix = unit ? unit->imagePrefix : imagePrefix(file);
  if (unit && unit->cache) {
    // Everything the object depends on besides the compiler and target
    // (the cache's identity): each module as traced, and its backend's
    // options. Locations are left out: they reach no object.
    std::string content;
    llvm::raw_string_ostream os(content);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(false);
    os << "target-cpu " << request.targetCpu << " " << request.targetFeatures
       << "\n";
    for (auto [module, options] : llvm::zip(modules, compileOptions)) {
      os << "backend " << mlir::kiln::backendName(options.backend) << "\n";
      if (options.backend == Backend::Cuda)
        os << "cuda " << options.gpu.chip << " " << options.gpu.format << " "
           << mlir::kiln::findCudaToolkit() << " " << prefix << "\n";
      module.print(os, flags);
    }
    unit->key = unit->cache->key(content);
    timer.start("compile cache");
    if (std::optional<CompileCache::Entry> entry =
            unit->cache->lookup(unit->key)) {
      cleanup();
      unit->hit = true;
      unit->object = std::move(entry->object);
      images.insert(images.end(),
                    std::make_move_iterator(entry->images.begin()),
                    std::make_move_iterator(entry->images.end()));
      return llvm::Error::success();
    }
  }
  mlir::kiln::ObjectOptions object;
  object.llvmIR = request.emit == "llvm";
  object.codegen = detail::targetOf(request);
  object.imagePrefix = prefix;
  object.beforeStep = [&](llvm::StringRef step) { timer.start(step.str()); };
  // In memory, then written to a temporary file renamed into place: a
  // failure leaves no half-written object.
  llvm::Expected<mlir::kiln::CompiledObject> compiled =
      mlir::kiln::compileModules(modules, compileOptions, object);
  if (compiled && debug) {
    // The lowered modules, their LLVM IR and their kernels.
    for (mlir::ModuleOp m : modules)
      m.print(*llvmDialect);
    llvm::raw_fd_ostream ir(debugPath(request, ".3-llvm-O3.ll"), ec);
    (void)mlir::kiln::emitObject(modules, {}, ir, /*emitLLVMIR=*/true);
    for (const mlir::kiln::DeviceImage &image : compiled->deviceImages) {
      bool ptx = llvm::StringRef(image.description).starts_with("PTX");
      llvm::raw_fd_ostream out(
          debugPath(request, ptx ? ".4-kernels.ptx" : ".4-kernels.fatbin"), ec);
      out << (ptx ? llvm::StringRef(image.bytes).rtrim('\0')
                  : llvm::StringRef(image.bytes));
    }
  }
  cleanup();
  if (!compiled)
    return compiled.takeError();
  if (request.emit == "llvm" || request.emit == "ptx") {
    std::string text;
    if (request.emit == "llvm")
      text = compiled->bytes;
    for (const mlir::kiln::DeviceImage &image : compiled->deviceImages)
      text += llvm::StringRef(image.bytes).rtrim('\0').str();
    if (request.emit == "ptx" && compiled->deviceImages.empty())
      return llvm::createStringError(
          "--emit=ptx: no root of this file uses the cuda backend");
    return writeStage(write, request.output, text);
  }
  if (!unit && write && !writeAtomically(objectPath, compiled->bytes))
    return llvm::createStringError("cannot write " + objectPath);
  size_t firstImage = images.size();
  for (mlir::kiln::DeviceImage &image : compiled->deviceImages)
    images.push_back({image.symbol, std::move(image.bytes), image.description});
  if (unit && unit->cache) {
    timer.start("compile cache");
    CompileCache::Entry entry{compiled->bytes,
                              {images.begin() + firstImage, images.end()}};
    std::string error = unit->cache->store(unit->key, entry);
    if (!error.empty())
      llvm::errs() << "kiln compile: warning: the compile cache: " << error
                   << "\n";
  }
  if (unit)
    unit->object = std::move(compiled->bytes);
  return llvm::Error::success();
}

/// compileRootsHeld, with MLIR's diagnostics held and folded into the
/// error it returns.
llvm::Error
compileRoots(const std::vector<Root *> &roots, mlir::MLIRContext &context,
             const std::string &objectPath, const CompileRequest &request,
             const std::string &file, Timer &timer, bool write,
             std::vector<stitch::EmbeddedImage> &images, Unit *unit = nullptr) {
  HeldDiagnostics held(context);
  return held.annotate(compileRootsHeld(roots, context, objectPath, request,
                                        file, timer, write, images, unit));
}

/// The path of ld.lld: beside the LLVM tools Kiln was built with, else on
/// PATH.
std::string findLinker() {
  std::string beside = std::string(KILN_LLVM_TOOLS_DIR) + "/ld.lld";
  if (llvm::sys::fs::can_execute(beside))
    return beside;
  for (const char *name : {"ld.lld", "ld.lld-" KILN_LLVM_MAJOR})
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name))
      return *found;
  return "";
}

/// One relocatable object holding all of `objects` (`ld.lld -r`), or the
/// one object itself.
llvm::Expected<std::string> joinObjects(std::vector<std::string> &objects) {
  if (objects.size() == 1)
    return std::move(objects.front());
  std::string linker = findLinker();
  if (linker.empty())
    return llvm::createStringError(
        "ld.lld, which joins the roots' objects, is not installed (Debian: "
        "lld-" KILN_LLVM_MAJOR ")");
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("kiln-objects", dir))
    return llvm::createStringError("cannot create a temporary directory: " +
                                   ec.message());
  llvm::scope_exit removeDir(
      [&] { (void)llvm::sys::fs::remove_directories(dir); });
  std::vector<std::string> args = {linker, "-r", "-o"};
  llvm::SmallString<128> out(dir);
  llvm::sys::path::append(out, "joined.o");
  args.push_back(std::string(out));
  for (size_t i = 0; i < objects.size(); ++i) {
    llvm::SmallString<128> part(dir);
    llvm::sys::path::append(part, std::to_string(i) + ".o");
    std::error_code ec;
    llvm::raw_fd_ostream os(part, ec);
    if (ec)
      return llvm::createStringError("cannot write " + part.str().str() + ": " +
                                     ec.message());
    os << objects[i];
    os.close();
    if (os.has_error())
      return llvm::createStringError("cannot write " + part.str().str());
    args.push_back(std::string(part));
  }
  llvm::SmallString<128> log(dir);
  llvm::sys::path::append(log, "ld.log");
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(linker, argv, std::nullopt, redirects,
                                         0, 0, &message);
  auto joined = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (status != 0 || !joined) {
    auto text = llvm::MemoryBuffer::getFile(log);
    return llvm::createStringError(
        "ld.lld -r could not join the roots' objects: " +
        (message.empty() && text ? (*text)->getBuffer().trim().str()
                                 : message));
  }
  return (*joined)->getBuffer().str();
}

/// Make's escaping of a path in a rule.
std::string makeEscape(llvm::StringRef path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// The file among `inputs` that `output` is (the same file, through any
/// path or link), or empty.
std::string inputAt(const std::string &output,
                    const std::vector<std::string> &inputs) {
  for (const std::string &in : inputs) {
    bool same = false;
    if (!llvm::sys::fs::equivalent(output, in, same) && same)
      return in;
  }
  return "";
}

/// Bad usage when a file kiln compile writes is one the translation unit
/// reads: the user's source would be overwritten.
bool checkOutputs(const std::vector<std::string> &written,
                  const std::vector<std::string> &inputs, const char *what) {
  for (const std::string &out : written) {
    std::string in = inputAt(out, inputs);
    if (in.empty())
      continue;
    llvm::errs() << "kiln compile: error: the output " << out << " is " << in
                 << ", " << what << "; nothing was written\n";
    return false;
  }
  return true;
}

bool writeDepfile(clang::ASTContext &ast, const CompileRequest &request) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << makeEscape(request.output) << ":";
  const clang::SourceManager &sm = ast.getSourceManager();
  std::vector<std::string> files;
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
    files.push_back(it->first.getName().str());
  std::sort(files.begin(), files.end());
  for (const std::string &f : files)
    os << " \\\n  " << makeEscape(f);
  os << "\n";
  return writeAtomically(request.depfile, text);
}

} // namespace

std::string gpuBinaryFormat(const std::string &cudaFormat) {
  if (cudaFormat == "ptx")
    return "isa";
  if (cudaFormat == "cubin")
    return "bin";
  if (cudaFormat == "fatbin")
    return "fatbin";
  // Where gpu-module-to-binary looks for ptxas and fatbinary.
  std::string toolkit = mlir::kiln::findCudaToolkit();
  if (!toolkit.empty() && llvm::sys::fs::can_execute(toolkit + "/bin/ptxas") &&
      llvm::sys::fs::can_execute(toolkit + "/bin/fatbinary"))
    return "fatbin";
  return "isa";
}

int runCompile(const CompileRequest &request) {
  if (request.files.size() != 1) {
    llvm::errs() << "kiln compile: error: one source file per output (-o) is "
                    "supported\n";
    return 2;
  }
  Timer timer;
  std::optional<CompileCache> cache = CompileCache::open(request.noCache);
  unsigned cacheHits = 0, cacheMisses = 0;
  bool logCache = logging(request, "cache");
  timer.start("parse and trace (Clang)");
  FrontendOptions options = detail::frontendOptions(request);
  options.backend = request.backend;
  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string objectPath =
      (llvm::sys::path::parent_path(request.output).empty()
           ? std::string(".")
           : llvm::sys::path::parent_path(request.output).str()) +
      "/" + llvm::sys::path::stem(request.output).str() + ".o";
  // Never overwrite what is compiled: the output, the object beside it
  // and the depfile must not be an input or a file it includes.
  // (--emit=kiln|linalg|llvm|ptx writes the output alone.)
  std::vector<std::string> written = {request.output};
  if (request.emit == "cpp")
    written.push_back(objectPath);
  if (!request.depfile.empty())
    written.push_back(request.depfile);
  if (!checkOutputs(written, request.files, "an input file"))
    return 2;
  bool usageError = false;
  bool failed = false;
  std::error_code ec_;
  if (!request.debugDir.empty() &&
      (ec_ = llvm::sys::fs::create_directories(request.debugDir))) {
    llvm::errs() << "kiln compile: error: cannot create " << request.debugDir
                 << ": " << ec_.message() << "\n";
    return 1;
  }
  int status = runFrontend(options, [&](clang::ASTContext &ast,
                                        const std::string &file,
                                        std::vector<Root> &roots) {
    std::vector<std::string> read;
    const clang::SourceManager &sm = ast.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
      read.push_back(it->first.getName().str());
    if (!checkOutputs(written, read, "a file the translation unit includes")) {
      usageError = true;
      return false;
    }
    // An error-mode break fails the compile (reported already): nothing is
    // written.
    for (const Root &r : roots)
      if (r.failed)
        return false;
    std::vector<Root *> ok;
    timer.start("type graphs");
    typeRoots(roots, request, ok, failed);
    std::vector<Root *> compiled;
    for (Root *r : ok)
      if (r->backend != mlir::kiln::Backend::Eager)
        compiled.push_back(r);
    if (request.emit == "ptx" &&
        std::none_of(compiled.begin(), compiled.end(), [](const Root *r) {
          return r->backend == mlir::kiln::Backend::Cuda;
        })) {
      llvm::errs() << "kiln compile: error: --emit=ptx: no root of " << file
                   << " uses the cuda backend (--backend=cuda, or "
                      "KILN_COMPILE(backend=cuda))\n";
      return false;
    }
    // Only the roots in `good` of those to be compiled stay in `ok` (the
    // others stay host code).
    auto keepCompiled = [&](const std::vector<Root *> &good) {
      ok.erase(std::remove_if(ok.begin(), ok.end(),
                              [&](Root *r) {
                                return r->backend !=
                                           mlir::kiln::Backend::Eager &&
                                       !llvm::is_contained(good, r);
                              }),
               ok.end());
    };
    std::vector<stitch::EmbeddedImage> images;
    if (request.emit == "cpp" && request.debugDir.empty()) {
      // Each root on its own, through the cache; the file's object joins
      // their objects.
      std::vector<std::string> objects;
      std::vector<Root *> good;
      for (size_t i = 0; i < compiled.size(); ++i) {
        Root *r = compiled[i];
        Unit unit;
        unit.cache = cache ? &*cache : nullptr;
        unit.imagePrefix = imagePrefix(file) + "r" + std::to_string(i) + "_";
        std::vector<stitch::EmbeddedImage> mine;
        if (llvm::Error error = compileRoots({r}, context, objectPath, request,
                                             file, timer, false, mine, &unit)) {
          r->leftOnHost = internalFailure(*r, llvm::toString(std::move(error)),
                                          suppressed(request), failed);
          continue;
        }
        good.push_back(r);
        objects.push_back(std::move(unit.object));
        images.insert(images.end(), std::make_move_iterator(mine.begin()),
                      std::make_move_iterator(mine.end()));
        (unit.hit ? cacheHits : cacheMisses) += unit.cache ? 1 : 0;
        if (logCache && unit.cache)
          llvm::errs() << "kiln: compile cache " << (unit.hit ? "hit" : "miss")
                       << ": " << r->name << " (" << unit.key.substr(0, 16)
                       << ")\n";
      }
      if (failed)
        return false;
      keepCompiled(good);
      if (objects.empty()) {
        // No graph: an empty object, which build systems expect beside the
        // stitched source.
        Unit unit;
        std::vector<stitch::EmbeddedImage> none;
        if (llvm::Error error = compileRoots({}, context, objectPath, request,
                                             file, timer, false, none, &unit)) {
          llvm::errs() << "kiln compile: error: " << file << ": "
                       << llvm::toString(std::move(error)) << "\n";
          return false;
        }
        objects.push_back(std::move(unit.object));
      }
      timer.start("join the roots' objects (ld.lld -r)");
      llvm::Expected<std::string> joined = joinObjects(objects);
      if (!joined) {
        llvm::errs() << "kiln compile: error: " << file << ": "
                     << llvm::toString(joined.takeError()) << "\n";
        return false;
      }
      if (!writeAtomically(objectPath, *joined))
        return false;
    } else if (llvm::Error all =
                   compileRoots(compiled, context, objectPath, request, file,
                                timer, true, images)) {
      llvm::consumeError(std::move(all));
      // Find the roots at fault, one at a time, and compile the others.
      std::vector<Root *> good;
      for (Root *r : compiled) {
        std::vector<stitch::EmbeddedImage> unused;
        if (llvm::Error one = compileRoots({r}, context, objectPath, request,
                                           file, timer, false, unused))
          r->leftOnHost = internalFailure(*r, llvm::toString(std::move(one)),
                                          suppressed(request), failed);
        else
          good.push_back(r);
      }
      if (failed)
        return false;
      keepCompiled(good);
      images.clear();
      if (llvm::Error rest = compileRoots(good, context, objectPath, request,
                                          file, timer, true, images)) {
        internalFailure(*good.front(), llvm::toString(std::move(rest)), nullptr,
                        failed);
        return false;
      }
    }
    if (failed)
      return false;
    if (request.emit != "cpp")
      return true; // the stage is written; no stitched source
    if (!request.debugDir.empty()) {
      llvm::raw_fd_ostream report(debugPath(request, ".capture.txt"), ec_);
      detail::printExplainText(report, roots);
    }
    timer.start("stitch (clang::Rewriter)");
    std::vector<const Segment *> stitched;
    for (Root *r : ok)
      for (const Segment &seg : r->segments)
        stitched.push_back(&seg);
    // Compile roots mark their bodies as compiled code, KILN_DISABLE()
    // functions theirs as eager, for the graphs of derived roots.
    std::vector<std::pair<const clang::FunctionDecl *, bool>> scopes;
    for (const Root &r : roots)
      if (!r.derived)
        scopes.push_back({r.function, true});
    for (const clang::FunctionDecl *fn :
         frontend::recursivelyDisabled(ast, options))
      scopes.push_back({fn, false});
    std::string text = stitch::stitchFile(
        ast, llvm::sys::path::is_absolute(file) ? file : std::string(file),
        roots, stitched, scopes,
        std::string("backend ") + mlir::kiln::backendName(request.backend),
        mlir::kiln::cpuFeaturesFor(detail::targetOf(request)), images);
    if (!writeAtomically(request.output, text))
      return false;
    return request.depfile.empty() || writeDepfile(ast, request);
  });
  if (request.timeReport) {
    timer.print(llvm::errs());
    if (cache)
      llvm::errs() << "kiln: compile cache " << cache->directory() << ": "
                   << cacheHits << " hit(s), " << cacheMisses << " miss(es)\n";
    else
      llvm::errs() << "kiln: compile cache off\n";
  }
  if (usageError)
    return 2;
  return status != 0 || failed ? 1 : 0;
}

} // namespace kiln::driver
