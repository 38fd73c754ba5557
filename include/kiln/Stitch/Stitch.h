//===- kiln/Stitch/Stitch.h - Re-emitting the source ------------*- C++ -*-===//
//
// The last step of `kiln compile`: the user's file re-emitted through
// clang::Rewriter, each captured segment replaced by a guarded call of its
// graph (a compiled kernel, or for the eager backend the captured ops as
// calls into the runtime), the original statements kept as the fallback
// that runs when a guard rejects the call's tensors; host statements stay
// verbatim and #line directives point compiler errors and debuggers at the
// user's lines.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_STITCH_STITCH_H
#define KILN_STITCH_STITCH_H

#include "kiln/Frontend/Frontend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace kiln::stitch {

/// The C++ of one graph's wrapper: `static bool NAME(outputs&..., inputs...)`
/// that checks the guard and runs the graph, through the compiled entry
/// point kiln_entry_NAME (compiled) or as runtime calls (eager). Declared at
/// the top of the stitched file, defined at its end (where the functions an
/// allow_in_graph call names are declared), with the adapters of its
/// opaque calls.
struct WrapperCode {
  std::string declaration, definition;
};
/// The aot_eager backend's entry point of `fn` (graph g's function, or its
/// training forward or backward): a definition of kiln_entry_<fn's name>
/// with a compiled graph's signature (kiln/abi.h) whose body runs fn's ops
/// as runtime calls (cpp::EagerStatements), so that GraphCall calls it as
/// it calls compiled code, recording the backward the same way. A failed
/// check or a kiln::Error sets the status a failed shape check sets.
llvm::Expected<std::string> emitEagerEntry(const frontend::Graph &g,
                                           mlir::func::FuncOp fn);

/// onlyFromCompiled: the graph of a derived root, which runs only when
/// reached from compiled code (kiln::abi::inCompiledCode()). cuda: the
/// graph was compiled for the GPU (guard and call name kiln::Device::cuda()).
/// location: where its statements begin ("model.cpp:12"), for the guard's
/// warning. dispatched: a variant that emitDispatcher's code has already
/// checked (no mode check, no guard).
/// cpuFeatures: the name of the stitched file's array of the CPU features
/// the compiled code needs, or empty (GraphSite::cpuFeatures); cpuTargets:
/// how many CPUs the object was compiled for (kiln/CpuTargets.h).
WrapperCode emitWrapper(const frontend::Graph &graph, bool compiled,
                        bool onlyFromCompiled, bool cuda = false,
                        const std::string &location = "",
                        bool dispatched = false,
                        const std::string &cpuFeatures = "",
                        int cpuTargets = 1);

/// The wrapper of a graph compiled as variants (host-bool variants, type
/// versions; typeGraphs): the original's signature, which calls the first
/// variant whose host bools hold and whose guard passes
/// (kiln::abi::chooseVersion), each emitted by emitWrapper(dispatched).
WrapperCode emitDispatcher(const frontend::Graph &graph,
                           const std::vector<frontend::GraphVariant> &variants,
                           bool onlyFromCompiled, bool cuda,
                           const std::string &location,
                           const std::string &cpuFeatures = "");

/// A device binary that compiled code refers to by `symbol` and the
/// stitched file defines (8-byte aligned, with external C linkage).
struct EmbeddedImage {
  std::string symbol;
  std::string bytes;
  /// What it is, for the comment above it ("PTX for sm_90", ...).
  std::string description;
};
/// The C++ definition of an embedded image: a byte array.
std::string emitImage(const EmbeddedImage &image);

/// The stitched text of `file`. Segments whose graph has no wrapper in
/// `stitched` (left host code) are emitted unchanged.
/// scopes: functions whose bodies open a kiln::abi::CompiledScope (true for
/// annotated compile roots, false for KILN_DISABLE() functions).
/// cpuFeatures: what the compiled graphs' code needs of the CPU
/// (mlir::kiln::cpuFeaturesFor: for a list of CPUs, one list each, joined
/// by '|'), which their guards check.
std::string stitchFile(
    clang::ASTContext &context, const std::string &file,
    const std::vector<frontend::Root> &roots,
    const std::vector<const frontend::Segment *> &stitched,
    const std::vector<std::pair<const clang::FunctionDecl *, bool>> &scopes,
    const std::string &backendNote, const std::string &cpuFeatures = "",
    const std::vector<EmbeddedImage> &images = {});

/// `text` as a C string literal.
std::string cString(const std::string &text);

} // namespace kiln::stitch

#endif
