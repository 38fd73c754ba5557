//===- kiln/Driver/Compile.h - `kiln compile` and `kiln explain` -*- C++
//-*-===//
#ifndef KILN_DRIVER_COMPILE_H
#define KILN_DRIVER_COMPILE_H

#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Driver/Emit.h"
#include "kiln/Frontend/Frontend.h"
#include "kiln/Pipelines/Backend.h"
#include "kiln/Target/Host.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace kiln::driver {

/// What both subcommands read (docs/frontend.md).
struct SourceRequest {
  std::vector<std::string> files;
  std::vector<std::string> clangArgs; // after --
  std::string buildDir;               // -p
  std::vector<std::string> annotate;  // NAME=ANNOTATION
  std::vector<std::string> disallowInGraph;
  std::vector<std::string> signatures; // --signature 'NAME(f32[?,?], _)'
  std::string signaturesFile;          // --signatures FILE (KILN_RECORD's)
  std::vector<std::string> recordedSignatures; // read from signaturesFile
  std::vector<std::string> callSiteFiles;      // --call-sites FILE
  std::vector<std::string> logs;               // --log and KILN_LOGS
  bool suppressErrors = false;
};

struct CompileRequest : SourceRequest {
  std::string output; // the stitched C++; its kernels beside it (.o)
  mlir::kiln::Backend backend = mlir::kiln::Backend::Cpu;
  /// What to write: the stitched source, and the object beside it
  /// (Emit::Cpp), or one stage of the file's graphs.
  Emit emit = Emit::Cpp;
  bool timeReport = false;
  /// Compile every root, without the compile cache (KILN_CACHE_DIR).
  bool noCache = false;
  /// An input whose rank or dtype nothing states or shows is an error.
  bool requireKnownTypes = false;
  /// Where to write each stage's IR and the capture report, if anywhere.
  std::string debugDir;
  /// A Make-style dependency file for the output (the source and every
  /// file it includes), for build systems (CMake's DEPFILE).
  std::string depfile;
  /// cuda graphs: the GPU architecture, and the device binary embedded in
  /// the stitched source: ptx, cubin or fatbin (empty: fatbin when ptxas
  /// is found, else ptx).
  std::string cudaArch = "sm_90";
  std::string cudaFormat;
  /// The CPU the compiled graphs are for (x86: an -march name) and extra
  /// features ("+avx2,-avx512f"); empty: the host CPU. The stitched guard
  /// runs a graph eagerly on a CPU without the features it was built for.
  std::string targetCpu, targetFeatures;
  /// Compile each graph's backward beside it (kiln-differentiate), which
  /// the stitched call records as its autograd node when an input
  /// requires grad.
  bool autograd = false;
  /// Compile each cpu inference graph holding ops kiln::autocast changes
  /// a second time as under autocast(kBFloat16) (its autocast twin), which
  /// the stitched call runs while autocast is on; without it such calls
  /// run eagerly (docs/frontend.md).
  bool autocast = false;
};

/// The gpu-module-to-binary format for a --cuda-format value (ptx, cubin,
/// fatbin; empty picks fatbin when ptxas is installed, else ptx).
std::string gpuBinaryFormat(const std::string &cudaFormat);

struct ExplainRequest : SourceRequest {
  std::string function; // only this root (qualified name)
  bool json = false, dot = false;
  /// Each graph's backward too: what is saved and computed again.
  bool autograd = false;
  /// Each graph's autocast twin too (kiln compile --autocast).
  bool autocast = false;
};

namespace detail {
/// The CPU a request compiles for (--target-cpu, --target-features).
mlir::kiln::CodegenOptions targetOf(const CompileRequest &request);
/// The frontend's options for a request (both subcommands).
frontend::FrontendOptions frontendOptions(const SourceRequest &request);
/// Reports that `root`'s graphs could not be typed (`error`, from
/// typeGraphs): a warning when the types were a guess (the root stays host
/// code, with a way to state them) or `hostBecause` is given, an error
/// otherwise (then `failed` is set). Returns what it reported.
std::string reportTypingFailure(frontend::TranslationUnit &unit,
                                const frontend::Root &root, llvm::Error error,
                                bool requireKnownTypes,
                                const char *hostBecause);
/// Whether `root`'s graphs get their autocast versions (kiln compile and
/// kiln explain --autocast): cpu roots only, autocast being the CPU's.
bool autocastVersions(const frontend::Root &root, bool autocast);
/// kiln compile --autograd and kiln explain --autograd: graph's training
/// forward and backward (buildForwardBackward) added to `module`, which
/// holds its function; what the forward saves recorded in graph.saved, or
/// why there is none in graph.noBackward (then nullopt). For the cuda
/// backend a backward with an op only the CPU runtime computes (the image
/// ops' gradients) is none.
std::optional<mlir::kiln::ForwardBackward>
addBackward(mlir::ModuleOp module, frontend::Graph &graph,
            mlir::kiln::Backend backend = mlir::kiln::Backend::Cpu);
/// explain's text report of traced roots.
void printExplainText(llvm::raw_ostream &os,
                      const std::vector<frontend::Root> &roots);
} // namespace detail

/// Returns the exit status: 0, 1 (an error in the user's code), 2 (usage).
int runCompile(const CompileRequest &request);
int runExplain(const ExplainRequest &request);

} // namespace kiln::driver

#endif
