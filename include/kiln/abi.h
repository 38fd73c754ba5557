//===- kiln/abi.h - How C++ calls compiled graphs ---------------*- C++ -*-===//
//
// A compiled graph NAME is called as kiln_entry_NAME(void **args):
//   args[0]      the results: one memref descriptor per tensor result, in
//                order, then an int32 status (0: ok; 1: a shape check failed);
//   args[1 + i]  the address of parameter i: a descriptor for a tensor, the
//                value for a scalar (int64 for sizes, float/double, ...).
// A descriptor is MLIR's strided memref: {allocated, aligned, offset,
// sizes[rank], strides[rank]}, elements and strides counted in elements.
// Inputs are described as they are (any strides, no copy); results come back
// in buffers that compiled code allocated through allocateForCompiled, and
// become Tensors
// that own them (no copy). docs/abi.md has the details.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ABI_H
#define KILN_ABI_H

#include "kiln/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace kiln::abi {

/// Bytes of a descriptor of this rank.
inline size_t descriptorSize(int64_t rank) {
  return sizeof(int64_t) * static_cast<size_t>(3 + 2 * rank);
}

/// The allocator of compiled code (64-byte aligned blocks from the
/// runtime's caching allocator); results are freed with freeForCompiled.
void *allocateForCompiled(size_t nbytes);
void freeForCompiled(void *ptr);

/// Writes t's descriptor (a view of its storage, no copy) to out.
void describe(const Tensor &t, void *out);

/// The Tensor of a result descriptor of this rank and dtype, owning the
/// buffer it describes (allocated by compiled code: on the CPU through
/// allocateForCompiled, on a GPU through the CUDA caching allocator).
Tensor adopt(const void *descriptor, int64_t rank, DType dtype,
             Device device = Device::cpu());

/// One result descriptor of a graph call, for adoptResults.
struct ResultDescriptor {
  const void *descriptor;
  int64_t rank;
  DType dtype;
};

/// The Tensors of a call's result descriptors, as adopt makes them, except
/// that results in the same buffer (a graph returning one value twice, or
/// two views of it: `t1 = t0;`) share one Storage, as the eager tensors
/// they stand for do; the buffer is freed once, with the last of them.
std::vector<Tensor> adoptResults(const std::vector<ResultDescriptor> &results,
                                 Device device = Device::cpu());

/// A Tensor viewing a descriptor's memory without owning it (for the
/// arguments of an opaque call: valid only during the call).
Tensor borrow(const void *descriptor, int64_t rank, DType dtype);

/// Writes t as a result descriptor: a contiguous copy in a buffer that
/// compiled code then owns (for the results of an opaque call).
void returnTensor(const Tensor &t, void *descriptor);

extern "C" {
/// The signature of every compiled graph's entry point.
using EntryPoint = void (*)(void **args);
}

//===----------------------------------------------------------------------===//
// What stitched code calls (kiln compile's output)
//===----------------------------------------------------------------------===//

/// What a graph's calls do while kiln::autocast is on.
enum class AutocastSite {
  Unaffected, // it holds no op autocast changes: compiled either way
  Eager,      // it does, compiled as traced: eager code runs the call
  /// and it has autocast twins (versions typed as eager code computes under
  /// autocast(kBFloat16), kiln compile --autocast), which the dispatcher
  /// runs; eager code under autocast in another dtype
  BFloat16Twins,
};

/// A graph of the stitched source: its name, where its statements begin
/// ("model.cpp:12"), how many kiln ops it runs (what `kiln explain`
/// counts), its inputs' C++ spellings, comma-separated, and the CPU
/// features its compiled code was built for ("avx2,fma,..."; LLVM's names),
/// which the guard checks against the running CPU.
struct GraphSite {
  constexpr GraphSite(const char *graph, const char *location = "",
                      int64_t ops = 0, const char *inputs = "",
                      const char *cpuFeatures = "", bool autograd = false,
                      AutocastSite autocast = AutocastSite::Unaffected)
      : graph(graph), location(location), ops(ops), inputs(inputs),
        cpuFeatures(cpuFeatures), autograd(autograd), autocast(autocast) {}
  const char *graph;
  const char *location;
  int64_t ops;
  const char *inputs;
  const char *cpuFeatures;
  /// Compiled with backward graphs (kiln compile --autograd): an input that
  /// requires grad does not send the call to eager code at its guard; its
  /// GraphCall (given the backward) records the compiled backward instead.
  bool autograd;
  /// Under kiln::autocast (products, cross_entropy cast there).
  AutocastSite autocast;
};

/// The features of `features` (comma-separated, LLVM's names) that the
/// running CPU lacks, comma-separated, or "". KILN_CPU_CAPABILITY=
/// x86-64-v2|avx2|avx512 caps what counts as present at that level (so a
/// program built for a larger CPU is tested on any machine); features the
/// runtime cannot query are taken as present. A file compiled for a list
/// of CPUs (kiln compile --target-cpu=A,B) gives one list per CPU, joined
/// by '|': "" when the CPU has every feature of one of them, else what the
/// nearest one (the fewest missing) lacks.
std::string missingCpuFeatures(const char *features);

/// Which of the '|'-separated feature lists of a file compiled for a list
/// of CPUs this CPU runs: the index of the one with the most features
/// among those it has every feature of (as missingCpuFeatures counts
/// them), or -1 when it lacks some of each. The stitched code calls it
/// once and takes that CPU's entry points.
int chooseCpuTarget(const char *features);

/// A graph is compiled for fixed ranks and dtypes of its tensor inputs (any
/// sizes): its guard. A call whose inputs differ runs the original C++
/// statements eagerly instead, as torch.compile re-runs code its guards
/// reject. The first rejection of each graph prints a warning to stderr
/// (the graph, where it is, the input, what arrived and what the graph
/// was compiled for); with `guards` in the environment variable KILN_LOGS
/// every rejection is printed, with `graph_calls` every graph run. With
/// KILN_STATS=1 the process prints one line at exit:
///   kiln-stats graph_calls=G compiled=C guard_misses=M ops_compiled=N
///   ops_eager=E
/// (ops_compiled: the kiln ops compiled graphs ran; ops_eager: the tensor
/// ops that ran eagerly under a compile root: breaks, fallbacks, host code).
struct TensorGuard {
  const Tensor &tensor;
  int64_t rank;
  DType dtype;
};

/// A graph whose compiled code needs CPU features this CPU lacks
/// (GraphSite::cpuFeatures) is rejected by the guard as a graph compiled
/// for cuda is where there is no GPU: counted as a miss, with a one-time
/// warning naming the features, and its statements run eagerly (never an
/// illegal instruction).
/// True when every tensor is defined and of the guarded rank and dtype, and
/// can be read by a graph compiled for `device`: a CPU graph takes CPU
/// tensors; a CUDA graph takes CPU and cuda:0 tensors, and needs a GPU
/// (without one, every call runs eagerly).
bool guard(const GraphSite &site, std::initializer_list<TensorGuard> tensors,
           Device device = Device::cpu());

/// One of the graphs a traced graph is compiled as (its host-bool variants
/// and type versions): whether the host bools it is specialized on hold,
/// and its guard, one entry per tensor input of the traced graph in order
/// (rank -1: an input this version does not read, left unchecked).
struct GraphVersion {
  bool when;
  std::initializer_list<TensorGuard> tensors;
};

/// The index of the first version whose bools hold and whose guard passes,
/// or -1: the dispatcher's guard. It counts one graph call, and a miss as
/// guard() does; the warning names the inputs' types and every version's
/// (the versions the bools allow), or, when one version is allowed, says
/// what guard() says.
int chooseVersion(const GraphSite &site,
                  std::initializer_list<GraphVersion> versions,
                  Device device = Device::cpu());

/// What a graph call passes for a linear or convolution bias that the
/// source may leave undefined (a module built with bias=False): the bias
/// when it is defined, else a bias of -0.0s (x + -0.0 is x, signed zeros
/// included) of the weight's length and dtype; an undefined weight (a
/// layer that is off, which the version that runs does not read) leaves
/// the bias as it is. Part of the call, not of the model: not counted as
/// an eager op.
Tensor absentBias(const Tensor &bias, const Tensor &weight);

/// What a graph's 0-d operand stands for where a runtime call takes an
/// optional number (kiln.clamp's bounds, as the eager backend and the
/// interpreter call kiln::clamp): nothing for an undefined tensor, else its
/// element as a Scalar of its category.
std::optional<Scalar> optionalScalar(const Tensor &t);

/// The graph call of code kiln compile left uncompiled, `why`: an
/// instantiation of a template's statements that the translation unit it
/// compiled never instantiated, or a root whose graphs it could not type
/// or compile. Returns false, counted as a graph call and a guard miss,
/// with the warning a miss gives (once per site). The code runs eagerly.
bool uncompiledCall(const GraphSite &site, const char *why);

/// What a graph's training forward saves for its backward (kiln compile
/// --autograd): one of the call's inputs, one of its results, or the
/// forward's extra result `index` (after the graph's results), of `rank`
/// and `dtype`; an extra `scalar` comes back as a 0-d tensor and is passed
/// to the backward as a scalar.
struct SavedValue {
  enum From : uint8_t { input, result, extra };
  From from;
  uint32_t index;
  int64_t rank = 0;
  DType dtype = kFloat32;
  bool scalar = false;
};

/// Packs the arguments of a compiled graph's entry point, calls it and
/// hands its results to Tensors (see the ABI above). For a graph compiled
/// for CUDA, CPU inputs are copied to the GPU first; the results stay on
/// the GPU when the graph has tensor inputs and every one was there, and
/// are copied back to the CPU otherwise (a graph of factories alone returns
/// CPU tensors, as eager's factories do). A failed kernel raises
/// kiln::Error.
class GraphCall {
public:
  GraphCall(const GraphSite &site, EntryPoint entry,
            Device device = Device::cpu())
      : site_(site), entry_(entry), device_(device) {}
  GraphCall &input(const Tensor &t);
  GraphCall &input(int64_t value);
  GraphCall &input(float value);
  GraphCall &input(double value);
  /// The next result: a tensor of this rank and dtype, stored into out.
  GraphCall &output(Tensor &out, int64_t rank, DType dtype);
  /// The graph's training pair (buildForwardBackward), given before the
  /// inputs: `forward` returns the graph's results, then the extra values
  /// of `saved`; `backward` takes the `saved` values in order, a gradient
  /// per floating-point result, then per such result an int64 nonzero when its
  /// gradient arrived (zeros where none did), then per floating-point tensor
  /// input whether its gradient is needed, and returns a gradient per
  /// floating-point tensor input. When grad mode is on and an input
  /// requires grad, run() calls `forward` instead of the graph and records
  /// `backward` as the one autograd node of the call's results, keeping
  /// what it saves (and nothing else) until then. `versionChecked` names
  /// the inputs and results that eager autograd would save (the backward
  /// reads their elements): the node keeps them too, and its backward
  /// raises eager's error when an in-place op changed one since the call.
  GraphCall &backward(EntryPoint forward, EntryPoint backward,
                      std::initializer_list<SavedValue> saved,
                      std::initializer_list<SavedValue> versionChecked = {});
  /// Per floating-point tensor input, the floating-point results (counted
  /// among those) whose gradients make its gradient; given after backward()
  /// where one is not made of all of them. Where none of its results'
  /// gradients arrived, the input's is left undefined, as eager leaves it.
  GraphCall &gradientSources(
      std::initializer_list<std::initializer_list<unsigned>> sources);
  /// A graph without a compiled backward, `why`: a call that needs one runs
  /// eagerly instead (counted as a fallback and warned of once).
  GraphCall &noBackward(const char *why);
  /// Calls the graph. False when a shape check inside it failed: the caller
  /// then runs the same statements eagerly, which raise the same kiln::Error.
  bool run();

private:
  struct Output {
    Tensor *target;
    int64_t rank;
    DType dtype;
  };
  GraphSite site_;
  EntryPoint entry_;
  Device device_;
  /// GPU copies of CPU inputs, alive until the call returns.
  std::vector<Tensor> staged_;
  /// Whether some tensor input came from the CPU, and whether some was on
  /// the device already.
  bool hostInputs_ = false;
  bool deviceInputs_ = false;
  std::vector<std::vector<int64_t>> descriptors_;
  std::vector<int64_t> scalars_;
  /// Per input, in order: a tensor's descriptor or a scalar's slot.
  struct Arg {
    bool tensor;
    size_t index; // into descriptors_ or scalars_
  };
  std::vector<Arg> args_;
  std::vector<Output> outputs_;
  /// The tensor inputs as passed, kept once backward() or noBackward() is
  /// given (a recorded backward's inputs).
  std::vector<Tensor> tensors_;
  EntryPoint forward_ = nullptr, backward_ = nullptr;
  std::vector<SavedValue> saved_, versionChecked_;
  std::vector<std::vector<unsigned>> gradientSources_;
  bool backwardGiven_ = false;
  const char *noBackward_ = "";
  /// The call of a graph's backward, from its autograd node (counted as
  /// backward_compiled by KILN_STATS).
  bool backwardOf_ = false;

  /// Calls the entry point and takes its results; false on a failed check.
  bool call();
  /// run() where the call records its backward.
  bool runForward();
};

/// Runs an allow_in_graph function for compiled code (the adapter that
/// stitched code defines as _mlir_ciface_SYMBOL) and writes its result as
/// a descriptor of the rank and dtype the graph was built for. When the
/// function throws or returns another rank or dtype, an empty result is
/// written and the running GraphCall fails, so that the statements run
/// eagerly (and raise the same error there).
void callOpaque(const char *name, void *result, int64_t rank, DType dtype,
                Tensor (*fn)(void *context), void *context);

/// Where the running code was reached from. Stitched compile roots open a
/// CompiledScope(true) for their body, KILN_DISABLE() functions a
/// CompiledScope(false), which holds for everything they call (a compile
/// root called below it runs eagerly, as torch.compiler.disable does). A
/// callee that breaks (or a callee of a KILN_DISABLE(recursive=false)
/// function) gets graphs of its own, which run only when compiled code
/// reached them: eager callers keep the original (docs/frontend.md).
class CompiledScope {
public:
  explicit CompiledScope(bool compiled);
  ~CompiledScope();
  CompiledScope(const CompiledScope &) = delete;
  CompiledScope &operator=(const CompiledScope &) = delete;

private:
  int saved_;
};
/// Reached from a compile root, with no KILN_DISABLE() between.
bool inCompiledCode();
/// Below a KILN_DISABLE() function: no graph runs.
bool inDisabledCode();

/// Records a call of compile root `root` when the environment variable
/// KILN_RECORD names a file: each argument's dtype, rank and sizes (a
/// null pointer for a parameter that is not a tensor). At exit the file
/// receives one signature per root, for `kiln compile --signatures FILE`
/// (docs/frontend.md): {"kiln.signatures": 1, "signatures":
/// ["Model::forward(f32[?,?,768], _)", ...]}, the sizes that varied
/// between calls as ?, a parameter whose rank or dtype varied (or that was
/// undefined) as _. Stitched compile roots call it on entry.
void recordRootCall(const char *root,
                    std::initializer_list<const Tensor *> args);

/// True when KILN_LOGS (comma-separated; read when first asked) names this
/// log.
bool logEnabled(const char *name);

} // namespace kiln::abi

#endif
