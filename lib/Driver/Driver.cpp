//===- Driver.cpp - The kiln command line ---------------------------------===//
//
// Subcommands are added here as they are built (compile, explain).
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Codegen.h"
#include "kiln/Driver/Compile.h"
#include "kiln/Driver/Emit.h"
#include "kiln/Frontend/Signature.h"
#include "kiln/Target/Host.h"
#include "kiln/version.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

namespace kiln::driver {

namespace {
/// --emit, with the same stage names for compile and codegen (codegen,
/// which reads no source, writes no stitched one); `emit` is set when the
/// command line is parsed.
void addEmitOption(CLI::App *cmd, Emit &emit, bool source) {
  std::vector<std::string> names;
  std::string help =
      "What to write to -o (default: " + std::string(emitName(emit)) + "):";
  for (const EmitName &n : emitNames()) {
    if (n.emit == Emit::Cpp && !source)
      continue;
    names.push_back(n.name);
    help += std::string(" ") + n.name + " (" + n.what + "),";
  }
  help.back() = '.';
  cmd->add_option_function<std::string>(
         "--emit",
         [&emit](const std::string &name) {
           for (const EmitName &n : emitNames())
             if (name == n.name)
               emit = n.emit;
         },
         help)
      ->check(CLI::IsMember(names));
}

/// The options `compile` and `explain` share.
void addSourceOptions(CLI::App *cmd, SourceRequest &r, std::string &logs) {
  cmd->add_option("files", r.files, "C++ sources")->required();
  cmd->add_option("-p", r.buildDir,
                  "Build directory holding compile_commands.json (the files' "
                  "own flags)");
  cmd->add_option("--annotate", r.annotate,
                  "NAME=ANNOTATION for code you cannot edit, e.g. "
                  "'Mlp::forward=compile(fullgraph=true)', 'log=disable', "
                  "'f=error_on_graph_break(true)' (repeatable)");
  cmd->add_option("--disallow-in-graph", r.disallowInGraph,
                  "Qualified name of a function that must run on the host, as "
                  "a graph break (repeatable)");
  cmd->add_option("--signature", r.signatures,
                  "A compile root's parameter types, e.g. "
                  "'Model::forward(f32[?,?,768], bool[?,?], _)' (? a size "
                  "that varies, _ not stated; repeatable)");
  cmd->add_option("--signatures", r.signaturesFile,
                  "A file of signatures recorded by running a stitched "
                  "program with KILN_RECORD=FILE");
  cmd->add_option("--call-sites", r.callSiteFiles,
                  "Another source of the program whose calls of these files' "
                  "functions count as their call sites (the types it passes; "
                  "repeatable; kiln_compile gives each file the target's "
                  "other sources)");
  cmd->add_option("--log", logs,
                  "Comma-separated logs to stderr: graph_breaks, graph_code, "
                  "cache (compile's cache hits and misses), all (also the "
                  "KILN_LOGS environment variable, which at run "
                  "time also takes guards and graph_calls)");
}

/// The signatures of a KILN_RECORD file:
/// {"kiln.signatures": 1, "signatures": ["NAME(f32[?,4], _)", ...]}.
llvm::Expected<std::vector<std::string>>
readSignatures(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return llvm::createStringError("cannot read the file");
  nlohmann::json doc =
      nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() ||
      !doc.contains("kiln.signatures") ||
      !doc["kiln.signatures"].is_number_integer() ||
      doc["kiln.signatures"].get<int>() != 1 || !doc.contains("signatures") ||
      !doc["signatures"].is_array())
    return llvm::createStringError(
        "not a KILN_RECORD file ({\"kiln.signatures\": 1, \"signatures\": "
        "[...]})");
  std::vector<std::string> out;
  for (const nlohmann::json &s : doc["signatures"]) {
    if (!s.is_string())
      return llvm::createStringError("a signature that is not a string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

/// The GPU architectures Kiln generates code for: those whose PTX ISA 8.0
/// (the version the kernels target) is accepted.
const std::vector<std::string> kCudaArchs = {"sm_70", "sm_72", "sm_75",
                                             "sm_80", "sm_86", "sm_87",
                                             "sm_89", "sm_90", "sm_90a"};

/// The logs --log takes (KILN_LOGS also takes the run-time ones).
const std::vector<std::string> kCompileLogs = {"graph_breaks", "graph_code",
                                               "cache", "all"};

/// A usage error about the command's inputs: files that are not C++
/// sources Kiln can read, and --log values it does not know. Empty if none.
std::string checkSources(const SourceRequest &r, const std::string &logs) {
  std::vector<std::string> files = r.files;
  files.insert(files.end(), r.callSiteFiles.begin(), r.callSiteFiles.end());
  for (const std::string &file : files) {
    llvm::sys::fs::file_status st;
    if (llvm::sys::fs::status(file, st) || !llvm::sys::fs::exists(st))
      return file + ": no such file";
    if (llvm::sys::fs::is_directory(st))
      return file + ": is a directory, not a C++ source";
    if (!llvm::sys::fs::is_regular_file(st))
      return file + ": not a regular file";
    llvm::StringRef ext = llvm::sys::path::extension(file);
    if (!llvm::is_contained(llvm::ArrayRef<llvm::StringRef>{".cpp", ".cc",
                                                            ".cxx", ".c++",
                                                            ".C", ".cu"},
                            ext))
      return file +
             ": not a C++ source (expected .cpp, .cc, .cxx, .c++, .C or .cu)";
  }
  std::stringstream ss(logs);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty() && std::find(kCompileLogs.begin(), kCompileLogs.end(),
                                   item) == kCompileLogs.end())
      return "--log: unknown log '" + item +
             "' (graph_breaks, graph_code, cache or all; guards and "
             "graph_calls are "
             "run-time logs: set KILN_LOGS when running the program)";
  return "";
}

std::vector<std::string> splitLogs(const std::string &cli) {
  std::vector<std::string> out;
  std::string all = cli;
  if (const char *env = std::getenv("KILN_LOGS"))
    all += std::string(",") + env;
  std::stringstream ss(all);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}
} // namespace

int run(int argc, char **argv) {
  // Everything after `--` goes to clang.
  std::vector<std::string> clangArgs;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) {
      for (int j = i + 1; j < argc; ++j)
        clangArgs.push_back(argv[j]);
      argc = i;
      break;
    }

  CLI::App app{"kiln: an ahead-of-time compiler for C++ tensor code "
               "(the C++ counterpart of torch.compile)",
               "kiln"};
  app.set_version_flag("--version",
                       std::string("kiln version ") + KILN_VERSION_STRING +
                           " (LLVM, Clang and MLIR " + KILN_LLVM_VERSION + ")");
  app.require_subcommand(0, 1);

  CodegenRequest codegen;
  CLI::App *codegenCmd = app.add_subcommand(
      "codegen",
      "Compile kiln-dialect graphs (.mlir) for the CPU or a GPU: an "
      "object file with a kiln_entry_NAME entry point per graph (for "
      "cuda, host code that launches the kernels, their binary "
      "inside), or an earlier stage");
  codegenCmd->add_option("input", codegen.input, "The .mlir file (- for stdin)")
      ->required();
  codegenCmd
      ->add_option("-o,--output", codegen.output,
                   "Where to write (- for stdout)")
      ->required();
  addEmitOption(codegenCmd, codegen.emit, /*source=*/false);
  std::string codegenBackend = "cpu", compileBackend = "cpu";
  codegenCmd->add_option("--backend", codegenBackend, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  codegenCmd
      ->add_option("--cuda-arch", codegen.cudaArch,
                   "GPU architecture of cuda kernels (sm_70 to sm_90a)")
      ->check(CLI::IsMember(kCudaArchs))
      ->capture_default_str();
  codegenCmd
      ->add_option("--cuda-format", codegen.cudaFormat,
                   "ptx, cubin or fatbin (default: fatbin when ptxas is "
                   "installed, else ptx)")
      ->check(CLI::IsMember({"ptx", "cubin", "fatbin"}));
  codegenCmd->add_option("--target", codegen.target,
                         "Target triple (default: the host's)");
  codegenCmd->add_option("--cpu", codegen.cpu,
                         "Target CPU (default: the host CPU and its features)");
  codegenCmd->add_option("--features", codegen.features,
                         "Extra target features, e.g. +avx2,-avx512f");

  CompileRequest compile;
  std::string compileLogs;
  CLI::App *compileCmd = app.add_subcommand(
      "compile",
      "Compile the KILN_COMPILE() functions of a C++ source: "
      "writes the stitched source (-o) and, for the cpu and cuda "
      "backends, the compiled graphs beside it (same name, .o; cuda "
      "kernels' binary embedded in the source). Clang flags follow --");
  addSourceOptions(compileCmd, compile, compileLogs);
  compileCmd
      ->add_option("-o,--output", compile.output,
                   "The stitched C++ source, its object beside it (- for "
                   "stdout: the source alone, no object)")
      ->required();
  compileCmd
      ->add_option("--backend", compileBackend,
                   "eager (the captured graphs as runtime calls), "
                   "aot_eager (each graph's training forward and backward "
                   "too, as runtime calls: what --autograd compiles, "
                   "without codegen), cpu (OpenMP kernels) or cuda (GPU "
                   "kernels, launched through the CUDA driver loaded at "
                   "run time), for roots that name none")
      ->check(CLI::IsMember({"eager", "aot_eager", "cpu", "cuda"}))
      ->capture_default_str();
  addEmitOption(compileCmd, compile.emit, /*source=*/true);
  compileCmd
      ->add_option("--cuda-arch", compile.cudaArch,
                   "GPU architecture of cuda graphs (sm_70 to sm_90a)")
      ->check(CLI::IsMember(kCudaArchs))
      ->capture_default_str();
  compileCmd
      ->add_option("--cuda-format", compile.cudaFormat,
                   "The cuda kernels' binary: ptx, cubin or fatbin "
                   "(default: fatbin when ptxas is installed, else ptx)")
      ->check(CLI::IsMember({"ptx", "cubin", "fatbin"}));
  compileCmd->add_option(
      "--target-cpu", compile.targetCpu,
      "The CPU the graphs are compiled for, e.g. x86-64-v3, skylake-avx512, "
      "znver4 (default: the host CPU and its features), or a list "
      "(x86-64-v3,sapphirerapids; native is the host): the graphs are "
      "compiled for each and a program runs the one with the most features "
      "its CPU has; on a CPU without the features of any they run eagerly, "
      "with a warning");
  compileCmd->add_option("--target-features", compile.targetFeatures,
                         "Target features on top of the CPU's, e.g. "
                         "+avx512f,-avx512fp16");
  compileCmd->add_flag(
      "--autograd", compile.autograd,
      "Compile each graph's backward too: a call with an input that "
      "requires grad runs compiled and records the compiled backward as one "
      "autograd node (without it, such a call runs eagerly)");
  compileCmd->add_flag(
      "--autocast", compile.autocast,
      "Compile each graph with a product (matmul, linear, bmm, addmm, "
      "baddbmm, einsum, conv, attention) or cross_entropy a second time as "
      "kiln::autocast(kBFloat16) computes it: calls under autocast run that "
      "version (without it, they run eagerly), and graphs that read the "
      "bfloat16 values it leaves get versions for them; cpu graphs; with "
      "--autograd each such version gets its own backward");
  compileCmd->add_flag("--suppress-errors", compile.suppressErrors,
                       "A root that fails to compile stays host code, with a "
                       "warning, instead of an error");
  compileCmd->add_flag(
      "--require-known-types", compile.requireKnownTypes,
      "Fail when a graph input's rank or dtype is open (neither stated nor "
      "shown by the source) instead of compiling for a guess");
  compileCmd->add_flag("--time-report", compile.timeReport,
                       "Print where compile time went");
  compileCmd->add_flag(
      "--no-cache", compile.noCache,
      "Compile every root, without the compile cache (by default "
      "$KILN_CACHE_DIR, else ~/.cache/kiln; KILN_CACHE=0 also turns it off)");
  compileCmd->add_option(
      "--depfile", compile.depfile,
      "Write a Make-style dependency file of the output (the "
      "source and every file it includes)");
  compileCmd->add_option(
      "--debug-dir", compile.debugDir,
      "Write the graphs' IR after every stage (kiln dialect, "
      "after each pass, LLVM dialect, optimized LLVM IR, the "
      "cuda kernels' PTX or fatbin) and the capture report "
      "into this directory");

  ExplainRequest explain;
  std::string explainLogs;
  CLI::App *explainCmd = app.add_subcommand(
      "explain",
      "Report the graphs, graph breaks and ops of the KILN_COMPILE() "
      "functions of C++ sources (torch._dynamo.explain)");
  addSourceOptions(explainCmd, explain, explainLogs);
  explainCmd->add_option(
      "--function", explain.function,
      "Only this compile root (qualified name, e.g. Mlp::forward)");
  explainCmd->add_flag(
      "--autograd", explain.autograd,
      "Each graph's backward too (as kiln compile --autograd builds it): "
      "its ops, what the forward saves for it and what it computes again, "
      "with byte counts");
  explainCmd->add_flag("--autocast", explain.autocast,
                       "Each graph's autocast twin too (as kiln compile "
                       "--autocast builds it)");
  explainCmd->add_flag("--json", explain.json,
                       "The report as JSON (schema kiln.explain, version 1)");
  explainCmd->add_flag("--dot", explain.dot,
                       "The graphs and breaks as Graphviz");
  app.footer("Exit status: 0 success, 1 an error in the input, 2 bad usage. "
             "docs/ in the Kiln sources has the details.");
  // Flags take no values: --json=3 is bad usage, not "true".
  for (CLI::App *cmd : {compileCmd, explainCmd})
    for (CLI::Option *opt : cmd->get_options())
      if (opt->get_expected_min() == 0)
        opt->disable_flag_override();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2; // bad usage
  }
  if (codegenCmd->parsed()) {
    codegen.backend = *mlir::kiln::parseBackend(codegenBackend);
    return runCodegen(codegen);
  }
  for (const std::vector<std::string> *specs :
       {&compile.annotate, &explain.annotate})
    for (const std::string &spec : *specs) {
      if (llvm::Error error = frontend::checkAnnotateOption(spec)) {
        std::cerr << "kiln: error: --annotate '" << spec
                  << "': " << llvm::toString(std::move(error)) << "\n";
        return 2;
      }
    }
  for (SourceRequest *r : {static_cast<SourceRequest *>(&compile),
                           static_cast<SourceRequest *>(&explain)}) {
    if (r->signaturesFile.empty())
      continue;
    llvm::Expected<std::vector<std::string>> recorded =
        readSignatures(r->signaturesFile);
    if (!recorded) {
      std::cerr << "kiln: error: --signatures " << r->signaturesFile << ": "
                << llvm::toString(recorded.takeError()) << "\n";
      return 2;
    }
    r->recordedSignatures = std::move(*recorded);
  }
  for (const std::vector<std::string> *specs :
       {&compile.signatures, &explain.signatures, &compile.recordedSignatures,
        &explain.recordedSignatures})
    for (const std::string &spec : *specs)
      if (llvm::Expected<frontend::StatedSignature> sig =
              frontend::parseSignature(spec);
          !sig) {
        std::cerr << "kiln: error: --signature '" << spec
                  << "': " << llvm::toString(sig.takeError()) << "\n";
        return 2;
      }
  for (auto [cmd, r, logs] :
       {std::make_tuple(compileCmd, static_cast<SourceRequest *>(&compile),
                        &compileLogs),
        std::make_tuple(explainCmd, static_cast<SourceRequest *>(&explain),
                        &explainLogs)}) {
    if (!cmd->parsed())
      continue;
    std::string error = checkSources(*r, *logs);
    if (!error.empty()) {
      std::cerr << "kiln: error: " << error << "\n";
      return 2;
    }
  }
  if (compileCmd->parsed() && !compile.debugDir.empty() &&
      llvm::sys::fs::exists(compile.debugDir) &&
      !llvm::sys::fs::is_directory(compile.debugDir)) {
    std::cerr << "kiln: error: --debug-dir " << compile.debugDir
              << ": exists and is not a directory\n";
    return 2;
  }
  if (compileCmd->parsed() && !compile.targetCpu.empty()) {
    mlir::kiln::CodegenOptions target;
    target.cpu = compile.targetCpu;
    std::vector<std::string> cpus = mlir::kiln::cpuTargets(target);
    for (const std::string &cpu : cpus)
      if (!cpu.empty() && !mlir::kiln::isKnownCpu(cpu)) {
        std::cerr << "kiln: error: --target-cpu=" << compile.targetCpu << ": "
                  << cpu
                  << " is not a CPU LLVM knows (x86: the -march names, e.g. "
                     "x86-64-v3, skylake-avx512, sapphirerapids, znver4, or "
                     "native)\n";
        return 2;
      }
    if (cpus.size() > 1 && compileBackend != "cpu") {
      std::cerr << "kiln: error: --target-cpu=" << compile.targetCpu
                << ": a list of CPUs is for --backend=cpu (got --backend="
                << compileBackend << ")\n";
      return 2;
    }
  }
  if (compileCmd->parsed()) {
    compile.clangArgs = clangArgs;
    compile.logs = splitLogs(compileLogs);
    compile.backend = *mlir::kiln::parseBackend(compileBackend);
    return runCompile(compile);
  }
  if (explainCmd->parsed()) {
    explain.clangArgs = clangArgs;
    explain.logs = splitLogs(explainLogs);
    return runExplain(explain);
  }
  std::cout << app.help();
  return 0;
}

} // namespace kiln::driver
