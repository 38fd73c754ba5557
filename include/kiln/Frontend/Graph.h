//===- kiln/Frontend/Graph.h - What the tracer captures --------*- C++ -*-===//
//
// The tracer's output: one Graph per segment of a compile root that holds
// tensor work: its ops, built in the kiln dialect as they are traced (its
// GraphBody: a func.func on open types, its values numbered as the tracer
// numbers them), its inputs (the C++ expressions live into the segment, with
// the ranks and dtypes the source shows for them), its outputs (the C++
// variables it assigns that are read afterwards). It plays the part of
// torch.fx's graph in Dynamo: typing refines a copy of the function once
// the inputs' ranks and dtypes are chosen, and the eager backend prints it
// back as calls into the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_GRAPH_H
#define KILN_FRONTEND_GRAPH_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::frontend {

/// What a traced value is. Host scalars are C++ integers (int64), floats
/// and doubles; sizes are I64.
enum class ValueKind { Tensor, I64, F32, F64, Bool };

/// A tensor's element type as the runtime names it (kiln::DType).
enum class ElementType { F32, F64, F16, BF16, I32, I64, Bool };

const char *elementTypeName(ElementType type); // "f32", "i64", ...
/// The element type of kiln::DType's enumerator number `dtype`.
ElementType elementOfDType(int64_t dtype);
/// The element type of a host scalar of `kind` (bool, int64, float,
/// double) as a 0-d tensor, and the host kind that holds an element of
/// type `e` (int32 in an int64, half types in a float).
ElementType elementOfScalar(ValueKind kind);
ValueKind scalarOfElement(ElementType e);
const char *dtypeSpelling(ElementType type); // "kiln::kFloat32", ...

struct SourcePos {
  std::string file;
  unsigned line = 0, column = 0;
};

/// A graph's ops in the kiln dialect (GraphBody.h).
struct GraphBody;

struct TraceValue {
  ValueKind kind = ValueKind::Tensor;
  /// For tensors, filled by inferSignature: rank and element type.
  int64_t rank = -1;
  ElementType element = ElementType::F32;
  /// A C++ number made a 0-d tensor: it takes part in type promotion as
  /// torch's wrapped numbers do (below any tensor of its category).
  bool wrapped = false;
};

/// Where a graph input's rank and element type came from, strongest first.
enum class TypeOrigin {
  Stated,       // --signature
  Recorded,     // --signatures, from a KILN_RECORD run
  CallSite,     // what the callers pass (a parameter; TypeEvidence.cpp)
  Source,       // what the translation unit shows otherwise (TypeEvidence.cpp)
  EarlierGraph, // what the graph before a break left in the variable
  Uses,         // what its ops require (conv2d's rank, ids' dtype)
  Open,         // nothing says: the role's usual rank, float32
};
const char *typeOriginName(TypeOrigin origin); // "stated", "source", ...

/// A value that enters the graph from C++: `expr` is how the stitched code
/// spells it at the call site (a parameter, a local, `this->w1`).
struct GraphInput {
  int value = -1;
  std::string expr;
  /// Ranks the uses need at least, or exactly (-1: no constraint); the
  /// tracer records them and inferSignature resolves them.
  int64_t minRank = 0, exactRank = -1;
  int64_t preferredRank = -1;
  /// A second rank the op that chose preferredRank takes as readily (an
  /// unbatched input of conv2d, conv1d or a 2-d pool), or -1: a type
  /// version tries it when the rank is open.
  int64_t otherRank = -1;
  /// The rank the source shows for it (kiln::randn({C}, 1) initializing a
  /// member, a caller passing kiln::zeros({B, T, C})), or -1.
  int64_t sourceRank = -1;
  /// The element type the source shows for it (from_vector<int64_t>,
  /// kiln::full(..., kiln::kFloat64), a comparison), if one.
  std::optional<ElementType> sourceElement;
  /// When the source shows several (callers passing f32 and f64 tensors),
  /// all of them: what its type versions try first (typeGraphs).
  std::vector<int64_t> sourceRanks;
  std::vector<ElementType> sourceElements;
  /// What its uses suggest when the source shows nothing; whether an op
  /// requires it (an embedding's ids are integers) rather than the default.
  ElementType preferredElement = ElementType::F32;
  bool elementFromUses = false;
  /// The rank and element type the user stated (--signature) or recorded
  /// (--signatures), if any.
  int64_t statedRank = -1;
  std::optional<ElementType> statedElement;
  bool statedRecorded = false;
  /// Whether the source's types are what the callers pass (a parameter).
  bool sourceFromCallSite = false;
  /// Whether the source stores an undefined tensor in it (an absent bias).
  bool sourceUndefined = false;
  /// What the call passes in its place when it may be undefined and a
  /// stand-in computes the same (a bias of -0.0s), or empty.
  std::string standIn;
  /// Whether sourceRank/sourceElement are what an earlier graph left in
  /// the variable (typeGraphs).
  bool fromEarlierGraph = false;
  /// A local that only its declaration sets (never assigned, passed by
  /// non-const reference or taken by address): what an earlier graph left
  /// in it is exact, and wins over the source's types (typeGraphs).
  bool onlyInitialized = false;
  /// For a local that host code initializes from what earlier graphs
  /// computed (`Tensor h = host_step(t);` after a break, `Tensor h = t;`
  /// before a loop that assigns it), whose type the source alone leaves
  /// open: its initializer typed again with the types
  /// those graphs leave in variables (`leftIn(name)`: a rank and element
  /// type, or nullopt). Returns a rank (or -1) and an element type. Set by
  /// the tracer; typeGraphs calls it while the AST lives.
  using LeftTypes =
      std::function<std::optional<std::pair<int64_t, ElementType>>(
          const std::string &variable)>;
  std::function<std::pair<int64_t, std::optional<ElementType>>(
      const LeftTypes &leftIn)>
      typeFromEarlierGraphs;
  /// Where inferSignature took its rank and element type from.
  TypeOrigin origin = TypeOrigin::Open;
};

/// A value that leaves the graph into a C++ variable (or the return).
struct GraphOutput {
  int value = -1;
  std::string variable; // empty for the function's return value
  /// For a braced return (`return {logits, loss};`), which element of the
  /// braces this is (variable empty); -1 otherwise.
  int returnPart = -1;
};

struct Graph {
  std::string name; // unique per translation unit: root name + index
  std::vector<TraceValue> values;
  std::vector<GraphInput> inputs;
  /// Its ops, built in the kiln dialect as they were traced; shared by the
  /// graph's copies (typing copies the body), replaced in a variant.
  std::shared_ptr<GraphBody> body;
  std::vector<GraphOutput> outputs;
  /// The loops left on the host that run this graph once per iteration,
  /// outermost first (an id per loop: its location's encoding).
  std::vector<uint64_t> hostLoops;
  /// kiln compile --autograd: a call with an input that requires grad runs
  /// the graph's training forward (NAME_forward) and records its compiled
  /// backward (NAME_backward; buildForwardBackward) as its one autograd
  /// node; `noBackward` says why the graph has none (a call that needs one
  /// then runs eagerly).
  bool autograd = false;
  std::string noBackward;
  /// The first in-place op the tracer wrote as its functional op
  /// ("Tensor::add_ at f.cpp:3:5"), or empty. Eager autograd's checks of
  /// tensors modified after it saved them are not modeled: such a graph
  /// gets no backward (calls that need gradients run eagerly).
  std::string inPlace;
  /// Typed and built as eager code computes under kiln::autocast(
  /// kBFloat16): the ops holdsAutocastOps names take their float32
  /// operands cast to bfloat16 (cross_entropy its 16-bit logits to
  /// float32), so their results and all that follows have the dtypes
  /// eager code gives (GraphBody.cpp's GraphTyper).
  bool autocast = false;
  /// The aot_eager backend's definitions of its entry points (the graph's
  /// function, and its training forward and backward: stitch's
  /// emitEagerEntry), which the stitched source holds instead of an
  /// object's compiled code.
  std::string eagerEntries;
  /// What the training forward saves for the backward, in the backward's
  /// argument order: an input, a result, or an extra result of the
  /// forward (of this rank and element type; a scalar passed back as one).
  struct Saved {
    enum class From { Input, Result, Extra } from;
    unsigned index;
    int64_t rank = 0;
    ElementType element = ElementType::F32;
    bool scalar = false;
    /// "input", "result" or "extra" (kiln::abi::SavedValue's names).
    const char *fromName() const {
      static const char *names[] = {"input", "result", "extra"};
      return names[static_cast<int>(from)];
    }
  };
  std::vector<Saved> saved;
  /// The inputs and results whose elements eager autograd would keep for
  /// the backward (ForwardBackward's checked arguments and results): the
  /// call checks at backward that no in-place op changed them.
  std::vector<Saved> versionChecked;
  /// Per floating-point tensor input, the floating-point results whose
  /// gradients make its gradient (ForwardBackward's gradientSources);
  /// empty where each is made of all of them.
  std::vector<std::vector<unsigned>> gradientSources;
  /// kiln explain --autograd: the backward function as text, the bytes the
  /// forward saves for it beyond its inputs and results, and the ops of the
  /// forward it computes again with their bytes (ForwardBackward's).
  struct BackwardReport {
    std::string ir;
    int64_t savedBytes = 0, recomputedBytes = 0;
    unsigned recomputedOps = 0;
  };
  std::optional<BackwardReport> backwardReport;
  bool hasBackward() const { return autograd && noBackward.empty(); }

  int addValue(ValueKind kind) {
    values.push_back({kind, -1, ElementType::F32, false});
    return static_cast<int>(values.size()) - 1;
  }
  /// Ops that compute tensors (what `explain` counts), conversions of an
  /// operand to another's type aside.
  int64_t tensorOpCount() const;
  /// Whether it holds an op that kiln::autocast changes (the products on
  /// ATen's lower_precision_fp list, cross_entropy on its fp32 list; the
  /// runtime's AutocastOp): its guard sends calls under autocast to eager
  /// code, which computes them in the dtypes autocast gives.
  bool holdsAutocastOps() const;
  /// The number a constant gives value, if that is what computes it.
  std::optional<double> constantValue(int value) const;
};

/// One of the graphs a traced graph is compiled as, each behind its own
/// guard in the stitched code's dispatcher: a specialization on the values
/// of host bools that choose between the arms of its selects (an
/// `if (has_proj)` whose two arms were both traced: the chosen arms kept,
/// what only the other arms used dropped, and the inputs left unused, such
/// as an optional tensor that stays undefined when the flag is false,
/// removed), or one typing of it where its inputs' types are open.
struct GraphVariant {
  Graph graph;
  /// The bool inputs it is specialized on (indices into the original
  /// graph's inputs) and their values.
  std::vector<std::pair<size_t, bool>> when;
  /// For each input of the variant, its index among the original's.
  std::vector<size_t> inputIndex;
  /// Which of several typings of the graph (or of its host-bool variant)
  /// it is, or -1 when the types are not open.
  int typeVersion = -1;
};

/// The variants a graph needs when fixing at most two host bools that
/// choose select arms leaves a tensor input unused: one per assignment of
/// them (2 or 4), each named `graph.name + "_v" + bits`; otherwise none.
/// Structural: it reads value kinds, not types (GraphVariants.cpp).
std::vector<GraphVariant> specializeOnHostBools(const Graph &graph);

/// The highest rank a graph's tensors may have (a use that indexes dim -64
/// does not make a rank-64 kernel).
constexpr int64_t kMaxRank = 8;

/// At most this many type versions are compiled for one graph (or for each
/// of its host-bool variants).
constexpr size_t kMaxTypeVersions = 4;

/// Types the graphs of one function in order and says what each is compiled
/// as. An input that an earlier graph leaves in the same C++ variable (a
/// value crossing a graph break) and that the source shows nothing of
/// takes that output's rank and element type. Where an input's rank or
/// element type stays open, the graph is typed in versions (at most
/// kMaxTypeVersions): the guess first, then every open input at its likely
/// type (the first the source shows: what a variable held on entry to a
/// loop), the open inputs together at each rank and element type shown for
/// them, then the others the source shows, then the open input's rank
/// changed to 1..4, then its element type to f32, f64, i64 or bool, one
/// input at a time, keeping each that types and differs from those kept
/// (docs/frontend.md, "Open types"). `graphs[i]` is left typed as its first
/// version; `variants[i]` gets its host-bool variants and type versions
/// (named `_v<bits>` and `_t<k>`; empty when the graph alone serves). A
/// graph none of whose versions types is an error; every graph is typed
/// and the first error returned (GraphVariants.cpp). With
/// autocastVersions, each variant of a graph that holdsAutocastOps gets
/// an autocast twin (`_autocast`, Graph::autocast) where it types, and
/// a graph that had none gets a plain variant (`_plain`) beside it.
llvm::Error typeGraphs(const std::vector<Graph *> &graphs,
                       std::vector<std::vector<GraphVariant>> &variants,
                       bool autocastVersions = false);

/// Whether t is a floating-point type (float32, float64 or a half type).
bool isFloat(ElementType t);

/// torch.promote_types: the element type of an elementwise op on two
/// tensors of these types that both have dims.
ElementType promoteTypes(ElementType a, ElementType b);

/// Chooses each tensor input's rank and element type (exact constraints,
/// else the larger of the uses' minimum and the role's preferred rank) and
/// types every op as the kiln dialect does: a copy of the body is refined
/// (GraphBody.cpp) and each value takes its op's inferred type. Fails
/// with why the graph cannot be typed: an op's own refusal, in eager's
/// words where eager refuses it too.
llvm::Error inferSignature(Graph &graph);

/// The tensor inputs' ranks and element types: inferSignature's first part.
llvm::Error typeInputs(Graph &graph);

} // namespace kiln::frontend

#endif
