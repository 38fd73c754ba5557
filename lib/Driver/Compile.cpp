//===- Compile.cpp - `kiln compile`: sources to stitched C++ and kernels --===//
//
// One straight path per translation unit (FileCompile): parse and trace
// (parseAndTrace) -> type each root's graphs (typeGraphs) -> build them into
// a kiln-dialect module per backend and compile it (compileModules: each
// root on its own, through the compile cache, for the stitched source; the
// file's graphs at once for another --emit) -> write the object or the stage
// -> stitch the source. A root that cannot be typed or compiled is reported
// where it is defined, through the unit's Clang diagnostics: an error, or
// with --suppress-errors a warning that leaves the root host code.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Compile.h"

#include "CompileCache.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/GraphBody.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Stitch/Stitch.h"
#include "kiln/Target/CUDA.h"
#include "kiln/Target/Host.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
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

/// Why an output of root's graphs would share elements with an input or
/// with another output eagerly, which the compiled graph, returning
/// tensors of its own, would not; or empty. An input holding one of the
/// root's graph locals is no caller's tensor, unless the root's own host
/// code modifies tensors in place (it could write through such a view).
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
    // An input that is one of the root's graph locals holds a tensor an
    // earlier graph made, which no caller sees.
    auto local = [&](mlir::Value arg) {
      return root.inPlace.empty() &&
             llvm::any_of(g.inputs, [&](const GraphInput &in) {
               return g.body->values[in.value] == arg &&
                      root.graphLocals.count(in.expr);
             });
    };
    // base value -> the output naming it
    llvm::DenseMap<mlir::Value, size_t> owners;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const GraphOutput &out = g.outputs[i];
      mlir::Value value = g.body->values[out.value];
      if (g.values[out.value].kind != ValueKind::Tensor || !value)
        continue;
      llvm::SmallPtrSet<mlir::Value, 4> bases;
      aliasBases(value, bases);
      for (mlir::Value base : bases) {
        if (llvm::isa<mlir::BlockArgument>(base) && !local(base))
          return nameOf(out) + " may be (a view of) an input";
        auto [it, fresh] = owners.try_emplace(base, i);
        if (!fresh && g.outputs[it->second].value != out.value)
          return nameOf(out) + " and " + nameOf(g.outputs[it->second]) +
                 " may share elements";
      }
    }
  }
  return "";
}

/// Reports a root that cannot be compiled through its unit: an error (the
/// unit fails), or with `hostBecause` a warning that it stays host code
/// (and why that is not an error). Returns the message.
std::string internalFailure(TranslationUnit &unit, const Root &root,
                            const std::string &why, const char *hostBecause) {
  std::string message = "kiln could not compile '" + root.name + "': " + why;
  if (hostBecause)
    message += " (left as host code: " + std::string(hostBecause) + ")";
  unit.report(root, /*error=*/!hostBecause, message);
  return message;
}

} // namespace

bool detail::autocastVersions(const Root &root, bool autocast) {
  return autocast && root.backend == mlir::kiln::Backend::Cpu;
}

std::string detail::reportTypingFailure(TranslationUnit &unit, const Root &root,
                                        llvm::Error error,
                                        bool requireKnownTypes,
                                        const char *hostBecause) {
  // A graph typed on a guess that does not fit is not the user's error: it
  // runs eagerly, with a way to state the types.
  std::string open = openInputs(root);
  // (An input's own uses that disagree, "input 'x' needs ...", are the
  // source's contradiction, not a guess's.)
  std::string why = llvm::toString(std::move(error));
  bool guessed = !open.empty() && !requireKnownTypes &&
                 llvm::StringRef(why).starts_with("kiln::");
  return internalFailure(unit, root,
                         why + (guessed ? "; the types of " + open +
                                              " are open: state them with "
                                              "--signature or --signatures"
                                        : ""),
                         guessed ? "a guess" : hostBecause);
}

namespace {

const char *suppressed(const CompileRequest &request) {
  return request.suppressErrors ? "--suppress-errors" : nullptr;
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

/// MLIR's error diagnostics during one compile of graphs, held rather than
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

/// What one compile of graphs gives.
struct Compiled {
  /// --emit=cpp: the object, and the GPU kernels' images the stitched
  /// source embeds; whether it came from the cache, and its key.
  std::string object;
  std::vector<stitch::EmbeddedImage> images;
  bool hit = false;
  std::string key;
  /// Any other --emit: what -o receives.
  std::string output;
};

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

/// Whether the output goes to stdout (`-o -`): the stitched source alone,
/// to read, its object not written.
bool toStdout(const CompileRequest &request) { return request.output == "-"; }

/// What kiln compile writes: the output, the object beside it (for the
/// stitched source) and the depfile.
std::vector<std::string> writtenFiles(const CompileRequest &request,
                                      const std::string &objectPath) {
  std::vector<std::string> written = {request.output};
  if (request.emit == Emit::Cpp && !toStdout(request))
    written.push_back(objectPath);
  if (!request.depfile.empty())
    written.push_back(request.depfile);
  return written;
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

/// The compile of one translation unit, step by step: type its roots'
/// graphs, compile them (each root on its own, through the cache, for the
/// stitched source; the file's graphs at once for another --emit), write
/// the object or the stage, stitch. A root that cannot be compiled is
/// reported where it is defined, through the unit's diagnostics.
class FileCompile {
public:
  FileCompile(const CompileRequest &request, TranslationUnit &unit,
              mlir::MLIRContext &context, const CompileCache *cache,
              Timer &timer, const std::string &objectPath)
      : request_(request), unit_(unit), context_(context), cache_(cache),
        timer_(timer), objectPath_(objectPath), file_(unit.file()) {}

  /// False when the file fails; `usageError` when an output is a file the
  /// translation unit reads.
  bool run(bool &usageError) {
    if (!checkIncludes()) {
      usageError = true;
      return false;
    }
    // An error-mode break or a malformed annotation fails the compile
    // (reported already): nothing is written.
    if (unit_.failed())
      return false;
    for (const Root &r : unit_.roots)
      if (r.failed)
        return false;
    timer_.start("type graphs");
    typeRoots();
    std::vector<Root *> compiled, aotEager;
    for (Root *r : ok_)
      if (r->backend == mlir::kiln::Backend::AotEager)
        aotEager.push_back(r);
      else if (r->backend != mlir::kiln::Backend::Eager)
        compiled.push_back(r);
    bool kernels = request_.emit == Emit::Device || request_.emit == Emit::PTX;
    if (kernels && llvm::none_of(compiled, [](const Root *r) {
          return r->backend == mlir::kiln::Backend::Cuda;
        })) {
      llvm::errs() << "kiln compile: error: --emit=" << emitName(request_.emit)
                   << ": no root of " << file_
                   << " uses the cuda backend (--backend=cuda, or "
                      "KILN_COMPILE(backend=cuda))\n";
      return false;
    }
    if (request_.emit != Emit::Cpp) {
      Compiled all;
      // A root that failed to type fails the file: nothing is written.
      return compileFile(compiled, all) && !unit_.failed() &&
             writeAtomically(request_.output, all.output);
    }
    printEagerEntries(aotEager);
    std::vector<Compiled> parts;
    if (request_.debugDir.empty())
      compileEach(compiled, parts, /*cached=*/true);
    else if (!compileFile(compiled, parts.emplace_back()))
      return false;
    return !unit_.failed() && writeObject(parts) && stitch();
  }

  unsigned cacheHits = 0, cacheMisses = 0;

private:
  /// Bad usage when a file kiln compile writes is one the translation unit
  /// includes.
  bool checkIncludes() {
    std::vector<std::string> read;
    const clang::SourceManager &sm = unit_.context().getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
      read.push_back(it->first.getName().str());
    return checkOutputs(writtenFiles(request_, objectPath_), read,
                        "a file the translation unit includes");
  }

  /// The graphs of the roots, typed; those that type go into ok_.
  void typeRoots() {
    const CompileRequest &request = request_;
    for (Root &root : unit_.roots) {
      if (root.failed)
        continue;
      // In-place calls in the root are host code between its graphs (graph
      // breaks, as torch's loss.backward() is); a view a graph returns would
      // not see them.
      if (root.unitWritesInPlace || !root.inPlace.empty()) {
        std::string why = aliasedOutput(root);
        if (!why.empty()) {
          root.leftOnHost = internalFailure(
              unit_, root,
              why +
                  (root.inPlace.empty()
                       ? ", and this file modifies tensors in place"
                       : ", and it modifies a tensor in place (" +
                             root.inPlace + ")") +
                  ": compiled graphs return views as tensors of their own",
              "views and in-place ops run eagerly");
          continue;
        }
      }
      std::vector<Graph *> graphs;
      for (Segment &seg : root.segments)
        graphs.push_back(&seg.graph);
      std::vector<std::vector<GraphVariant>> variants;
      if (llvm::Error error =
              typeGraphs(graphs, variants,
                         detail::autocastVersions(root, request.autocast))) {
        root.leftOnHost = detail::reportTypingFailure(
            unit_, root, std::move(error), request.requireKnownTypes,
            suppressed(request));
        continue;
      }
      if (request.requireKnownTypes) {
        std::string open = openInputs(root);
        if (!open.empty()) {
          internalFailure(unit_, root,
                          "no rank or dtype is stated or shown for " + open +
                              " (--require-known-types; state them with "
                              "--signature)",
                          nullptr);
          continue;
        }
      }
      for (size_t i = 0; i < root.segments.size(); ++i)
        root.segments[i].variants = std::move(variants[i]);
      ok_.push_back(&root);
    }
  }

  /// --backend=aot_eager: each graph's function and training pair (as
  /// --autograd builds them) printed as entry points that make runtime
  /// calls (stitch::emitEagerEntry), kept in the graph for the stitched
  /// source. A root whose graph cannot be printed stays host code; a
  /// pair that cannot be is the graph's noBackward.
  void printEagerEntries(const std::vector<Root *> &roots) {
    if (roots.empty())
      return;
    timer_.start("aot_eager: print the graphs and their backwards");
    std::vector<Root *> failed;
    for (Root *r : roots) {
      std::string why;
      for (Segment &seg : r->segments) {
        seg.graph.autograd = true; // the dispatcher's call site
        for (Graph *graph : seg.compiledGraphs())
          if (why.empty())
            why = printEagerEntries(*graph);
      }
      if (!why.empty()) {
        r->leftOnHost = internalFailure(unit_, *r, "aot_eager: " + why,
                                        "its graph runs its statements");
        failed.push_back(r);
      }
    }
    ok_.erase(
        std::remove_if(ok_.begin(), ok_.end(),
                       [&](Root *r) { return llvm::is_contained(failed, r); }),
        ok_.end());
  }

  /// Graph g's aot_eager entry points into g.eagerEntries; why the graph's
  /// own cannot be printed, or empty.
  std::string printEagerEntries(Graph &g) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_));
    if (llvm::Error error = buildGraphFunction(*module, g))
      return llvm::toString(std::move(error));
    std::optional<mlir::kiln::ForwardBackward> pair =
        detail::addBackward(*module, g);
    // The promotions the dialect infers made explicit casts in all three
    // functions, as the compiled pipelines make them after the pair is
    // built and as the eager backend prints them (a kiln.from_scalar is a
    // 0-d tensor to the runtime, not the C++ number it stands for).
    mlir::PassManager pm(&context_);
    pm.addPass(mlir::kiln::createKilnMaterializePromotions());
    if (mlir::failed(pm.run(*module)))
      return "kiln-materialize-promotions failed";
    auto entry = [&](const std::string &name) -> llvm::Expected<std::string> {
      return stitch::emitEagerEntry(
          g, module->lookupSymbol<mlir::func::FuncOp>(name));
    };
    llvm::Expected<std::string> own = entry(g.name);
    if (!own)
      return llvm::toString(own.takeError());
    g.eagerEntries = *own;
    if (!pair)
      return "";
    for (const char *part : {"_forward", "_backward"}) {
      llvm::Expected<std::string> text = entry(g.name + part);
      if (!text) {
        g.noBackward = llvm::toString(text.takeError());
        g.eagerEntries = *own;
        g.saved.clear();
        break;
      }
      g.eagerEntries += *text;
    }
    return "";
  }

  /// Compiles each of `roots` on its own (through the cache when
  /// `cached`); those that fail are reported and dropped from `roots` and
  /// from the roots compiled (they stay host code) or fail the file.
  void compileEach(std::vector<Root *> &roots, std::vector<Compiled> &parts,
                   bool cached) {
    std::vector<Root *> good;
    for (size_t i = 0; i < roots.size(); ++i) {
      Root *r = roots[i];
      Compiled part;
      std::string prefix = imagePrefix(file_) + "r" + std::to_string(i) + "_";
      if (llvm::Error error = compile({r}, prefix, cached, part)) {
        r->leftOnHost = internalFailure(
            unit_, *r, llvm::toString(std::move(error)), suppressed(request_));
        continue;
      }
      good.push_back(r);
      if (cached && cache_) {
        (part.hit ? cacheHits : cacheMisses) += 1;
        if (logging(request_, "cache"))
          llvm::errs() << "kiln: compile cache " << (part.hit ? "hit" : "miss")
                       << ": " << r->name << " (" << part.key.substr(0, 16)
                       << ")\n";
      }
      parts.push_back(std::move(part));
    }
    // The others stay host code.
    ok_.erase(std::remove_if(ok_.begin(), ok_.end(),
                             [&](Root *r) {
                               return llvm::is_contained(roots, r) &&
                                      !llvm::is_contained(good, r);
                             }),
              ok_.end());
    roots = std::move(good);
  }

  /// The file's graphs at once, in one module per backend (--emit other
  /// than cpp, --debug-dir, which writes each stage of this compile). When
  /// they fail, the roots at fault are found one at a time (and reported),
  /// and the others compiled.
  bool compileFile(std::vector<Root *> &roots, Compiled &all) {
    std::string prefix = imagePrefix(file_);
    llvm::Error error = compile(roots, prefix, false, all, /*debug=*/true);
    if (!error)
      return true;
    llvm::consumeError(std::move(error));
    std::vector<Compiled> unused;
    compileEach(roots, unused, /*cached=*/false);
    if (unit_.failed())
      return false;
    all = Compiled();
    if (llvm::Error rest = compile(roots, prefix, false, all, /*debug=*/true)) {
      internalFailure(unit_, *roots.front(), llvm::toString(std::move(rest)),
                      nullptr);
      return false;
    }
    return true;
  }

  /// The object beside the stitched source: the roots' objects joined (an
  /// empty one when there are none, which build systems expect).
  bool writeObject(std::vector<Compiled> &parts) {
    std::vector<std::string> objects;
    for (Compiled &part : parts) {
      objects.push_back(std::move(part.object));
      images_.insert(images_.end(),
                     std::make_move_iterator(part.images.begin()),
                     std::make_move_iterator(part.images.end()));
    }
    if (objects.empty()) {
      Compiled none;
      if (llvm::Error error = compile({}, imagePrefix(file_), false, none)) {
        llvm::errs() << "kiln compile: error: " << file_ << ": "
                     << llvm::toString(std::move(error)) << "\n";
        return false;
      }
      objects.push_back(std::move(none.object));
    }
    if (toStdout(request_))
      return true;
    timer_.start("join the roots' objects (ld.lld -r)");
    llvm::Expected<std::string> joined = joinObjects(objects);
    if (!joined) {
      llvm::errs() << "kiln compile: error: " << file_ << ": "
                   << llvm::toString(joined.takeError()) << "\n";
      return false;
    }
    return writeAtomically(objectPath_, *joined);
  }

  /// The stitched source, the capture report (--debug-dir) and the
  /// depfile.
  bool stitch() {
    clang::ASTContext &ast = unit_.context();
    std::vector<Root> &roots = unit_.roots;
    if (!request_.debugDir.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream report(debugPath(request_, ".capture.txt"), ec);
      detail::printExplainText(report, roots);
    }
    timer_.start("stitch (clang::Rewriter)");
    std::vector<const Segment *> stitched;
    for (Root *r : ok_)
      for (const Segment &seg : r->segments)
        stitched.push_back(&seg);
    // Compile roots mark their bodies as compiled code, KILN_DISABLE()
    // functions theirs as eager, for the graphs of derived roots.
    std::vector<std::pair<const clang::FunctionDecl *, bool>> scopes;
    for (const Root &r : roots)
      if (!r.derived)
        scopes.push_back({r.function, true});
    for (const clang::FunctionDecl *fn :
         frontend::recursivelyDisabled(ast, detail::frontendOptions(request_)))
      scopes.push_back({fn, false});
    std::string text = stitch::stitchFile(
        ast, file_, roots, stitched, scopes,
        std::string("backend ") + mlir::kiln::backendName(request_.backend),
        mlir::kiln::cpuFeaturesFor(detail::targetOf(request_)), images_);
    if (!writeAtomically(request_.output, text))
      return false;
    return request_.depfile.empty() || writeDepfile(ast, request_);
  }

  /// Builds the graphs of roots into a module per backend (cpu, cuda) and
  /// compiles them as --emit asks, into `out`; an error saying why if a
  /// step fails, with MLIR's first error diagnostic. `debug`: each stage
  /// goes to the --debug-dir files, if asked for.
  llvm::Error compile(const std::vector<Root *> &roots,
                      const std::string &prefix, bool cached, Compiled &out,
                      bool debug = false) {
    HeldDiagnostics held(context_);
    return held.annotate(compileHeld(roots, prefix, cached, out, debug));
  }

  llvm::Error compileHeld(const std::vector<Root *> &roots,
                          const std::string &prefix, bool cached, Compiled &out,
                          bool debug) {
    using mlir::kiln::Backend;
    std::vector<mlir::ModuleOp> modules;
    std::vector<mlir::kiln::CompileOptions> compileOptions;
    llvm::scope_exit cleanup([&] {
      for (mlir::ModuleOp m : modules)
        m->erase();
    });
    if (debug)
      openDebugFiles();
    else
      closeDebugFiles();
    for (Backend backend : {Backend::Cpu, Backend::Cuda}) {
      std::vector<Root *> mine;
      for (Root *root : roots)
        if (root->backend == backend)
          mine.push_back(root);
      if (mine.empty())
        continue;
      auto module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_));
      modules.push_back(module);
      timer_.start("build kiln-dialect graphs");
      std::vector<Graph *> built;
      for (Root *root : mine)
        for (Segment &seg : root->segments) {
          for (Graph *graph : seg.compiledGraphs()) {
            if (llvm::Error error = buildGraphFunction(module, *graph))
              return error;
            built.push_back(graph);
          }
          // The dispatcher's call site (seg.graph) says the same.
          seg.graph.autograd = request_.autograd;
        }
      if (request_.autograd && !mlirStage(request_.emit))
        addBackwards(module, built, backend);
      if (logging(request_, "graph_code")) {
        llvm::errs() << "kiln: graph code (" << mlir::kiln::backendName(backend)
                     << ")\n";
        module.print(llvm::errs());
        llvm::errs() << "\n";
      }
      if (kilnIR_)
        module.print(*kilnIR_);
      mlir::kiln::CompileOptions options;
      options.backend = backend;
      options.gpu.chip = request_.cudaArch;
      options.gpu.format = request_.emit == Emit::PTX
                               ? std::string("isa")
                               : gpuBinaryFormat(request_.cudaFormat);
      options.afterEachPass = passes_.get();
      compileOptions.push_back(options);
    }
    if (std::optional<mlir::kiln::Stage> stage = mlirStage(request_.emit)) {
      // The file's graphs at this stage, cpu module first.
      llvm::raw_string_ostream os(out.output);
      for (auto [module, options] : llvm::zip(modules, compileOptions)) {
        timer_.start("lower to --emit=" + std::string(emitName(request_.emit)));
        if (mlir::failed(mlir::kiln::lowerModule(module, options, *stage)))
          return llvm::createStringError(
              std::string("the lowering to --emit=") + emitName(request_.emit) +
              " failed");
        module.print(os);
      }
      return llvm::Error::success();
    }
    // An object is written even with no graphs in it: build systems expect
    // it beside the stitched source.
    if (modules.empty()) {
      modules.push_back(
          mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_)));
      compileOptions.emplace_back();
    }
    if (cached && cache_ && lookup(modules, compileOptions, prefix, out))
      return llvm::Error::success();
    mlir::kiln::ObjectOptions object;
    object.llvmIR = request_.emit == Emit::LLVM;
    object.codegen = detail::targetOf(request_);
    // The kernels' images apart (embedded in the stitched source, or the
    // stage written), except in an object written alone.
    if (request_.emit != Emit::Object)
      object.imagePrefix = prefix;
    object.beforeStep = [&](llvm::StringRef step) { timer_.start(step.str()); };
    llvm::Expected<mlir::kiln::CompiledObject> compiled =
        mlir::kiln::compileModules(modules, compileOptions, object);
    if (!compiled)
      return compiled.takeError();
    if (llvmDialect_)
      writeDebugStages(modules, *compiled);
    switch (request_.emit) {
    case Emit::Object:
      out.output = std::move(compiled->bytes);
      return llvm::Error::success();
    case Emit::LLVM:
    case Emit::Device:
    case Emit::PTX:
      // The host's LLVM IR, then the kernels; PTX as text, without the
      // terminating NUL the loader needs.
      if (request_.emit == Emit::LLVM)
        out.output = std::move(compiled->bytes);
      for (const mlir::kiln::DeviceImage &image : compiled->deviceImages)
        out.output += llvm::StringRef(image.description).starts_with("PTX")
                          ? llvm::StringRef(image.bytes).rtrim('\0').str()
                          : image.bytes;
      return llvm::Error::success();
    default:
      break;
    }
    for (mlir::kiln::DeviceImage &image : compiled->deviceImages)
      out.images.push_back(
          {image.symbol, std::move(image.bytes), image.description});
    out.object = std::move(compiled->bytes);
    if (cached && cache_) {
      timer_.start("compile cache");
      std::string error =
          cache_->store(out.key, CompileCache::Entry{out.object, out.images});
      if (!error.empty())
        llvm::errs() << "kiln compile: warning: the compile cache: " << error
                     << "\n";
    }
    return llvm::Error::success();
  }

  /// kiln compile --autograd: each graph's training forward and backward
  /// (buildForwardBackward) beside it in `module`, compiled with it, or why
  /// it has none (an op without a gradient: the call runs eagerly when it
  /// needs one).
  void addBackwards(mlir::ModuleOp module, const std::vector<Graph *> &graphs,
                    mlir::kiln::Backend backend) {
    timer_.start("build backward graphs");
    for (Graph *graph : graphs)
      detail::addBackward(module, *graph, backend);
  }

  /// Whether the cache holds the object of `modules` (their key set in
  /// `out` either way): everything it depends on besides the compiler and
  /// target (the cache's identity) is each module as traced, and its
  /// backend's options. Locations are left out: they reach no object.
  bool lookup(std::vector<mlir::ModuleOp> &modules,
              const std::vector<mlir::kiln::CompileOptions> &compileOptions,
              const std::string &prefix, Compiled &out) {
    std::string content;
    llvm::raw_string_ostream os(content);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(false);
    os << "target-cpu " << request_.targetCpu << " " << request_.targetFeatures
       << "\n";
    for (auto [module, options] : llvm::zip(modules, compileOptions)) {
      os << "backend " << mlir::kiln::backendName(options.backend) << "\n";
      if (options.backend == mlir::kiln::Backend::Cuda)
        os << "cuda " << options.gpu.chip << " " << options.gpu.format << " "
           << mlir::kiln::findCudaToolkit() << " " << prefix << "\n";
      module.print(os, flags);
    }
    out.key = cache_->key(content);
    timer_.start("compile cache");
    std::optional<CompileCache::Entry> entry = cache_->lookup(out.key);
    if (!entry)
      return false;
    out.hit = true;
    out.object = std::move(entry->object);
    out.images = std::move(entry->images);
    return true;
  }

  /// --debug-dir: each stage's IR of the file's compile (of the last,
  /// when roots at fault had to be found).
  void openDebugFiles() {
    if (request_.debugDir.empty())
      return;
    std::error_code ec;
    auto open = [&](const char *suffix) {
      return std::make_unique<llvm::raw_fd_ostream>(debugPath(request_, suffix),
                                                    ec);
    };
    kilnIR_ = open(".0-kiln.mlir");
    passes_ = open(".1-after-each-pass.mlir");
    llvmDialect_ = open(".2-llvm-dialect.mlir");
    llvmIR_ = open(".3-llvm-O3.ll");
  }

  void closeDebugFiles() {
    kilnIR_.reset();
    passes_.reset();
    llvmDialect_.reset();
    llvmIR_.reset();
  }

  /// The lowered modules, their LLVM IR and their kernels.
  void writeDebugStages(std::vector<mlir::ModuleOp> &modules,
                        const mlir::kiln::CompiledObject &compiled) {
    for (mlir::ModuleOp m : modules)
      m.print(*llvmDialect_);
    (void)mlir::kiln::emitObject(modules, {}, *llvmIR_, /*emitLLVMIR=*/true);
    for (const mlir::kiln::DeviceImage &image : compiled.deviceImages) {
      bool ptx = llvm::StringRef(image.description).starts_with("PTX");
      std::error_code ec;
      llvm::raw_fd_ostream kernels(
          debugPath(request_, ptx ? ".4-kernels.ptx" : ".4-kernels.fatbin"),
          ec);
      kernels << (ptx ? llvm::StringRef(image.bytes).rtrim('\0')
                      : llvm::StringRef(image.bytes));
    }
  }

  const CompileRequest &request_;
  TranslationUnit &unit_;
  mlir::MLIRContext &context_;
  const CompileCache *cache_;
  Timer &timer_;
  std::string objectPath_;
  std::string file_;
  /// The roots whose graphs replace their statements in the stitched
  /// source (eager-backend roots included).
  std::vector<Root *> ok_;
  std::vector<stitch::EmbeddedImage> images_;
  std::unique_ptr<llvm::raw_fd_ostream> kilnIR_, passes_, llvmDialect_, llvmIR_;
};

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
  std::string objectPath =
      (llvm::sys::path::parent_path(request.output).empty()
           ? std::string(".")
           : llvm::sys::path::parent_path(request.output).str()) +
      "/" + llvm::sys::path::stem(request.output).str() + ".o";
  // Never overwrite what is compiled: the output, the object beside it
  // and the depfile must not be an input or a file it includes.
  if (!checkOutputs(writtenFiles(request, objectPath), request.files,
                    "an input file"))
    return 2;
  if (!request.debugDir.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(request.debugDir)) {
      llvm::errs() << "kiln compile: error: cannot create " << request.debugDir
                   << ": " << ec.message() << "\n";
      return 1;
    }
  }
  Timer timer;
  std::optional<CompileCache> cache = CompileCache::open(request.noCache);
  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  timer.start("parse and trace (Clang)");
  FrontendOptions options = detail::frontendOptions(request);
  options.backend = request.backend;
  options.context = &context; // the graphs are compiled where traced
  std::vector<std::unique_ptr<TranslationUnit>> units;
  int status = parseAndTrace(options, units);
  bool usageError = false, failed = status != 0;
  unsigned cacheHits = 0, cacheMisses = 0;
  for (std::unique_ptr<TranslationUnit> &unit : units) {
    FileCompile file(request, *unit, context, cache ? &*cache : nullptr, timer,
                     objectPath);
    if (!file.run(usageError))
      failed = true;
    cacheHits += file.cacheHits;
    cacheMisses += file.cacheMisses;
  }
  units.clear(); // each prints clang's count of its diagnostics
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
  return failed ? 1 : 0;
}

std::optional<mlir::kiln::ForwardBackward>
detail::addBackward(mlir::ModuleOp module, Graph &graph,
                    mlir::kiln::Backend backend) {
  graph.autograd = true;
  if (!graph.inPlace.empty()) {
    // Eager autograd raises where an in-place op changed a tensor it saved;
    // the functional graph would not.
    graph.noBackward = graph.inPlace +
                       " modifies a tensor in place, which eager autograd "
                       "checks against what it saved";
    return std::nullopt;
  }
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(graph.name);
  if (!fn || llvm::none_of(fn.getArgumentTypes(), mlir::kiln::takesGradient)) {
    graph.noBackward = "no floating-point tensor input";
    return std::nullopt;
  }
  std::string why;
  mlir::ScopedDiagnosticHandler quiet(module.getContext(),
                                      [&](mlir::Diagnostic &d) {
                                        if (why.empty())
                                          why = d.str();
                                        return mlir::success();
                                      });
  mlir::FailureOr<mlir::kiln::ForwardBackward> pair =
      mlir::kiln::buildForwardBackward(fn, graph.name + "_forward",
                                       graph.name + "_backward");
  if (mlir::failed(pair)) {
    graph.noBackward = why.empty() ? "its backward was not built" : why;
    return std::nullopt;
  }
  if (backend == mlir::kiln::Backend::Cuda) {
    // The image ops' gradients are the CPU runtime's functions
    // (kiln-image-ops-to-runtime); the GPU pipeline has no lowering of them.
    mlir::Operation *cpuOnly = nullptr;
    pair->backward.walk([&](mlir::Operation *op) {
      if (mlir::isa<mlir::kiln::Conv2dBackwardOp, mlir::kiln::Pool2dBackwardOp,
                    mlir::kiln::AdaptiveAvgPool2dBackwardOp>(op))
        cpuOnly = op;
    });
    if (cpuOnly) {
      graph.noBackward = cpuOnly->getName().getStringRef().str() +
                         " is computed by the CPU runtime only";
      pair->forward.erase();
      pair->backward.erase();
      return std::nullopt;
    }
  }
  for (auto [s, type] :
       llvm::zip(pair->saved, pair->backward.getArgumentTypes())) {
    using From = mlir::kiln::SavedValue::From;
    Graph::Saved saved{s.from == From::Argument ? Graph::Saved::From::Input
                       : s.from == From::Result ? Graph::Saved::From::Result
                                                : Graph::Saved::From::Extra,
                       s.index};
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    saved.rank = tensor ? tensor.getRank() : 0;
    saved.element = elementOf(tensor ? tensor.getElementType() : type);
    saved.scalar = s.scalar;
    graph.saved.push_back(saved);
  }
  for (unsigned i : pair->checkedArguments)
    graph.versionChecked.push_back({Graph::Saved::From::Input, i});
  for (unsigned i : pair->checkedResults)
    graph.versionChecked.push_back({Graph::Saved::From::Result, i});
  for (const llvm::SmallVector<unsigned> &from : pair->gradientSources)
    graph.gradientSources.emplace_back(from.begin(), from.end());
  return *pair;
}

} // namespace kiln::driver
