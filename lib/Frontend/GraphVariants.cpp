//===- GraphVariants.cpp - What a traced graph is compiled as -------------===//
//
// One traced graph may need several compiled graphs behind one dispatcher.
//
// Host-bool variants. An `if` on a host bool inside a graph traces both
// arms and selects between them. When one arm reads a tensor that the
// other never needs (a block's optional projection, left undefined when
// the flag is false), the one graph would need that tensor on every call,
// and its guard would reject the undefined one forever. Instead the graph
// is compiled once per value of the flags that choose select arms: each
// variant keeps the arms its flags choose and drops what only the others
// used, including inputs.
//
// Type versions. Where the translation unit leaves an input's rank or
// element type open, a single guess would either fail to type (the graph
// stays host code) or be rejected by the guard on every call of another
// type. The graph is typed in a bounded number of versions instead, and
// the stitched dispatcher runs the first whose guard passes (torch.compile
// keeps one compiled graph per guard set in the same way).
//
// docs/frontend.md says which, in what order.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Graph.h"
#include "kiln/Frontend/GraphBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir;

namespace kiln::frontend {

namespace {

constexpr size_t kMaxFlags = 2;

/// The value of bool `v` under `flags` (argument -> value), through
/// not/and/or (xori with true, andi, ori); nullopt when it depends on
/// anything else.
std::optional<bool> evaluate(Value v,
                             const llvm::DenseMap<Value, bool> &flags) {
  if (auto it = flags.find(v); it != flags.end())
    return it->second;
  Operation *op = v.getDefiningOp();
  if (auto x = dyn_cast_or_null<arith::XOrIOp>(op)) {
    if (!matchPattern(x.getRhs(), m_One()))
      return std::nullopt;
    if (std::optional<bool> a = evaluate(x.getLhs(), flags))
      return !*a;
    return std::nullopt;
  }
  if (isa_and_present<arith::AndIOp, arith::OrIOp>(op)) {
    bool isAnd = isa<arith::AndIOp>(op);
    std::optional<bool> a = evaluate(op->getOperand(0), flags);
    std::optional<bool> b = evaluate(op->getOperand(1), flags);
    if ((a && *a != isAnd) || (b && *b != isAnd))
      return !isAnd; // false && _, true || _
    if (a && b)
      return isAnd;
  }
  return std::nullopt;
}

/// The bool inputs (arguments) that the condition `v` reads through
/// not/and/or.
void flagsOf(Value v, const llvm::DenseMap<Value, size_t> &boolInputs,
             std::set<size_t> &out) {
  if (auto it = boolInputs.find(v); it != boolInputs.end()) {
    out.insert(it->second);
    return;
  }
  Operation *op = v.getDefiningOp();
  if (isa_and_present<arith::XOrIOp, arith::AndIOp, arith::OrIOp>(op))
    for (Value operand : op->getOperands())
      flagsOf(operand, boolInputs, out);
}

/// A copy of `body`, its values mapped.
std::shared_ptr<GraphBody> cloneBody(const GraphBody &body) {
  auto copy = std::make_shared<GraphBody>();
  IRMapping map;
  copy->module = cast<ModuleOp>(body.module.get()->clone(map));
  copy->fn = map.lookup(body.fn);
  for (Value v : body.values)
    copy->values.push_back(v ? map.lookupOrDefault(v) : Value());
  copy->error = body.error;
  return copy;
}

/// `g` with each select whose condition `flags` decide replaced by the
/// chosen arm, and what no output needs any more removed: its ops, and its
/// inputs. Shape checks (a split's count) go too: which arm one belongs to
/// is not kept, and one of the arm not chosen must not fail the call.
GraphVariant specialize(const Graph &g,
                        const std::map<size_t, bool> &flagInputs) {
  GraphVariant variant;
  Graph &out = variant.graph;
  out.name = g.name;
  out.values = g.values;
  out.hostLoops = g.hostLoops;
  out.body = cloneBody(*g.body);
  GraphBody &body = *out.body;
  Block &entry = body.entry();
  llvm::DenseMap<Value, bool> flags;
  for (const auto &[input, value] : flagInputs)
    flags[entry.getArgument(input)] = value;
  auto replace = [&](Value from, Value to) {
    from.replaceAllUsesWith(to);
    for (Value &v : body.values)
      if (v == from)
        v = to;
  };
  for (Operation &op : llvm::make_early_inc_range(entry))
    if (auto select = dyn_cast<arith::SelectOp>(op))
      if (std::optional<bool> c = evaluate(select.getCondition(), flags)) {
        replace(select.getResult(),
                *c ? select.getTrueValue() : select.getFalseValue());
        select->erase();
      }
  // What the outputs need, then the checks whose inputs those keep.
  llvm::DenseSet<Value> live;
  llvm::DenseSet<Operation *> kept;
  for (const GraphOutput &o : g.outputs)
    live.insert(body.values[o.value]);
  SmallVector<Operation *> ops;
  for (Operation &op : entry)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(),
                     [&](Value r) { return live.contains(r); })) {
      kept.insert(op);
      live.insert(op->operand_begin(), op->operand_end());
    }
  for (Value &v : body.values)
    if (v && ((v.getDefiningOp() && !kept.contains(v.getDefiningOp())) ||
              (isa<BlockArgument>(v) && !live.contains(v))))
      v = Value();
  for (Operation *op : llvm::reverse(ops))
    if (!kept.contains(op))
      op->erase();
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (live.contains(entry.getArgument(i))) {
      out.inputs.push_back(g.inputs[i]);
      variant.inputIndex.push_back(i);
    }
  for (size_t i = g.inputs.size(); i-- > 0;)
    if (!live.contains(entry.getArgument(i)))
      entry.eraseArgument(i);
  body.updateType();
  for (size_t v = 0; v < body.values.size(); ++v)
    if (body.values[v])
      body.ids.try_emplace(body.values[v], static_cast<int>(v));
  // An output chosen by a flag is the value its arm computes.
  for (GraphOutput o : g.outputs) {
    int id = body.idOf(body.values[o.value]);
    if (id >= 0)
      o.value = id;
    out.outputs.push_back(o);
  }
  return variant;
}

} // namespace

std::vector<GraphVariant> specializeOnHostBools(const Graph &g) {
  if (g.body->error)
    return {};
  Block &entry = g.body->entry();
  llvm::DenseMap<Value, size_t> boolInputs; // argument -> input index
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (g.values[g.inputs[i].value].kind == ValueKind::Bool)
      boolInputs[entry.getArgument(i)] = i;
  std::set<size_t> chosen;
  for (Operation &op : entry)
    if (auto select = dyn_cast<arith::SelectOp>(op))
      flagsOf(select.getCondition(), boolInputs, chosen);
  if (chosen.empty() || chosen.size() > kMaxFlags)
    return {};
  std::vector<size_t> flags(chosen.begin(), chosen.end());
  std::vector<GraphVariant> variants;
  bool needed = false;
  for (unsigned bits = 0; bits < (1u << flags.size()); ++bits) {
    std::map<size_t, bool> values;
    std::vector<std::pair<size_t, bool>> when;
    for (size_t k = 0; k < flags.size(); ++k) {
      bool value = (bits >> k) & 1;
      values[flags[k]] = value;
      when.push_back({flags[k], value});
    }
    GraphVariant v = specialize(g, values);
    v.when = when;
    v.graph.name = g.name + "_v" + std::to_string(bits);
    // An output that is an input: the caller's own tensor, not a result
    // the graph computes (the compiled ABI returns fresh buffers).
    for (const GraphOutput &o : v.graph.outputs)
      for (const GraphInput &in : v.graph.inputs)
        if (o.value == in.value)
          return {};
    for (const GraphInput &in : g.inputs)
      if (g.values[in.value].kind == ValueKind::Tensor &&
          std::none_of(
              v.graph.inputs.begin(), v.graph.inputs.end(),
              [&](const GraphInput &kept) { return kept.value == in.value; }))
        needed = true;
    variants.push_back(std::move(v));
  }
  if (!needed)
    return {};
  return variants;
}

namespace {

/// `x` appended to `list` unless there.
template <typename T> void addOnce(std::vector<T> &list, T x) {
  if (!llvm::is_contained(list, x))
    list.push_back(x);
}
/// `x` moved or put at the front of `list`.
template <typename T> void putFirst(std::vector<T> &list, T x) {
  llvm::erase(list, x);
  list.insert(list.begin(), x);
}

/// Whether the input's rank, or its element type, is what nothing shows.
bool rankOpen(const GraphInput &in) {
  return in.statedRank < 0 && in.exactRank < 0 &&
         !(in.sourceRank >= 0 && in.sourceRank >= in.minRank);
}
bool elementOpen(const GraphInput &in) {
  return !in.statedElement && !in.sourceElement && !in.elementFromUses;
}

/// Input types fixed for a version (-1 rank or no element: the guess's).
struct Pin {
  int64_t rank = -1;
  std::optional<ElementType> element;
};
using Pins = std::map<size_t, Pin>;

/// `g` typed with `pins` stated, or nullopt when it
/// does not type.
std::optional<Graph> typedWith(const Graph &g, const Pins &pins,
                               llvm::Error *error = nullptr) {
  Graph v = g;
  for (const auto &[i, pin] : pins) {
    GraphInput &in = v.inputs[i];
    if (pin.rank >= 0)
      in.statedRank = pin.rank;
    if (pin.element)
      in.statedElement = pin.element;
    in.statedRecorded = false;
  }
  llvm::Error e = inferSignature(v);
  if (e) {
    if (error)
      *error = std::move(e);
    else
      llvm::consumeError(std::move(e));
    return std::nullopt;
  }
  for (const auto &[i, pin] : pins)
    v.inputs[i].origin = TypeOrigin::Open; // a version only tries a type
  return v;
}

/// The tensor inputs' types, as a version's identity ("f32[2],i64[1]").
std::string inputTypes(const Graph &g) {
  std::string key;
  for (const GraphInput &in : g.inputs) {
    const TraceValue &v = g.values[in.value];
    if (v.kind == ValueKind::Tensor)
      key += std::string(elementTypeName(v.element)) + "[" +
             std::to_string(v.rank) + "],";
  }
  return key;
}

constexpr ElementType kElements[] = {ElementType::F32, ElementType::F64,
                                     ElementType::I64, ElementType::Bool};

/// The versions to try on top of `base`, likeliest first (docs/frontend.md,
/// steps 2 to 6): the types the source shows for the open inputs, all
/// together and one at a time, `peers` (the element types of the inputs
/// whose types are known), other ranks and, when `base` pins something
/// (the guess did not type), other element types.
std::vector<Pins> versionTries(const Graph &g, const std::vector<size_t> &open,
                               const Pins &base,
                               const std::vector<ElementType> &peers) {
  std::vector<Pins> tries;
  auto vary = [&](size_t i, Pin pin) {
    Pins p = base;
    Pin &at = p[i];
    if (pin.rank >= 0)
      at.rank = pin.rank;
    if (pin.element)
      at.element = pin.element;
    tries.push_back(std::move(p));
  };
  // First, the likely types: every open input at the first rank and
  // element type the source shows for it (what a variable held on entry
  // to a loop that assigns it: the first iteration's, and what follows
  // the loop when it does not run). Then every rank-open input at each
  // rank the source shows for them (variables the same loop carried).
  {
    Pins likely = base;
    for (size_t i : open) {
      const GraphInput &in = g.inputs[i];
      if (rankOpen(in) && !in.sourceRanks.empty() &&
          in.sourceRanks.front() >= in.minRank)
        likely[i].rank = in.sourceRanks.front();
      if (elementOpen(in) && !in.sourceElements.empty())
        likely[i].element = in.sourceElements.front();
    }
    if (likely.size() > base.size() ||
        llvm::any_of(likely, [&](const auto &pin) {
          auto b = base.find(pin.first);
          return b == base.end() || b->second.rank != pin.second.rank ||
                 b->second.element != pin.second.element;
        }))
      tries.push_back(std::move(likely));
  }
  std::vector<int64_t> jointRanks;
  size_t openRanks = 0;
  for (size_t i : open)
    if (rankOpen(g.inputs[i]) && !g.inputs[i].sourceRanks.empty()) {
      ++openRanks;
      for (int64_t r : g.inputs[i].sourceRanks)
        addOnce(jointRanks, r);
    }
  if (openRanks > 1)
    for (int64_t r : jointRanks) {
      Pins p = base;
      for (size_t i : open)
        if (rankOpen(g.inputs[i]) &&
            llvm::is_contained(g.inputs[i].sourceRanks, r) &&
            r >= g.inputs[i].minRank)
          p[i].rank = r;
      tries.push_back(std::move(p));
    }
  // Then every input of open element type in one of the element types
  // the source shows for them (a module used with float32 and float64
  // activations and weights); then each such input in the element type of
  // the inputs whose types are known (a module's weight in its
  // activations' dtype, a float type the source shows for it, if any),
  // with each rank the source shows for it.
  std::set<ElementType> shared;
  size_t openElements = 0;
  for (size_t i : open)
    if (elementOpen(g.inputs[i])) {
      ++openElements;
      shared.insert(g.inputs[i].sourceElements.begin(),
                    g.inputs[i].sourceElements.end());
    }
  if (openElements > 1)
    for (ElementType e : shared) {
      Pins p = base;
      for (size_t i : open)
        if (elementOpen(g.inputs[i]))
          p[i].element = e;
      tries.push_back(std::move(p));
    }
  for (size_t i : open) {
    const GraphInput &in = g.inputs[i];
    if (!elementOpen(in))
      continue;
    std::vector<int64_t> ranks = {-1};
    if (rankOpen(in) && !in.sourceRanks.empty())
      ranks = in.sourceRanks;
    for (ElementType e : peers)
      if (in.sourceElements.empty() || llvm::is_contained(in.sourceElements, e))
        for (int64_t r : ranks)
          vary(i, Pin{r, e});
  }
  for (size_t i : open) {
    const GraphInput &in = g.inputs[i];
    if (rankOpen(in))
      for (int64_t r : in.sourceRanks)
        vary(i, Pin{r, std::nullopt});
    // An unbatched conv or pool input (a host function's result, whose
    // rank nothing shows).
    if (rankOpen(in) && in.otherRank >= 0)
      vary(i, Pin{in.otherRank, std::nullopt});
    if (elementOpen(in))
      for (ElementType e : in.sourceElements)
        vary(i, Pin{-1, e});
  }
  for (size_t i : open)
    if (rankOpen(g.inputs[i]) && g.inputs[i].preferredRank < 0)
      for (int64_t r = std::max<int64_t>(1, g.inputs[i].minRank); r <= 4; ++r)
        vary(i, Pin{r, std::nullopt});
  if (!base.empty())
    for (size_t i : open)
      if (elementOpen(g.inputs[i]))
        for (ElementType e : kElements)
          vary(i, Pin{-1, e});
  return tries;
}

/// What becomes the base when the guess does not type, in order: the first
/// open input's element type changed (float32 targets of a cross_entropy),
/// then what a version of the guess would try (the types the source shows,
/// other ranks), so that a guess failing for any reason (a rank guessed
/// where the source shows another) still leads to them.
std::vector<Pins> baseCandidates(const Graph &g,
                                 const std::vector<size_t> &open) {
  std::vector<Pins> candidates;
  for (size_t i : open)
    if (elementOpen(g.inputs[i]))
      for (ElementType e : kElements)
        candidates.push_back({{i, Pin{-1, e}}});
  for (Pins &p : versionTries(g, open, {}, {}))
    candidates.push_back(std::move(p));
  return candidates;
}

/// The typed versions of `g` (docs in Graph.h), or the guess's error
/// when none types.
llvm::Expected<std::vector<Graph>> typedVersions(const Graph &g) {
  std::vector<size_t> open;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (g.values[g.inputs[i].value].kind == ValueKind::Tensor &&
        (rankOpen(g.inputs[i]) || elementOpen(g.inputs[i])))
      open.push_back(i);
  // The base: the guess, or, when it does not type, the first of
  // baseCandidates that does.
  llvm::Error error = llvm::Error::success();
  Pins base;
  std::optional<Graph> first = typedWith(g, base, &error);
  if (!first)
    for (const Pins &pins : baseCandidates(g, open))
      if ((first = typedWith(g, pins))) {
        base = pins;
        break;
      }
  if (!first)
    return std::move(error);
  llvm::consumeError(std::move(error));
  // Then the versions on top of the base: the types the source shows, the
  // known inputs' element type, other ranks (for inputs no op gives a
  // usual rank: a matmul's weight is rank 2, a norm's weight rank 1), and,
  // when the guess did not type, the other element types.
  std::vector<ElementType> peers;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TraceValue &v = first->values[g.inputs[i].value];
    if (v.kind == ValueKind::Tensor && !llvm::is_contained(open, i) &&
        isFloat(v.element) && !llvm::is_contained(peers, v.element))
      peers.push_back(v.element);
  }
  std::vector<Pins> tries = versionTries(g, open, base, peers);

  std::vector<Graph> versions = {std::move(*first)};
  std::set<std::string> kept = {inputTypes(versions.front())};
  for (const Pins &pins : tries) {
    if (versions.size() == kMaxTypeVersions)
      break;
    if (std::optional<Graph> v = typedWith(g, pins))
      if (kept.insert(inputTypes(*v)).second)
        versions.push_back(std::move(*v));
  }
  return versions;
}

/// Variables that compiled code leaves 16-bit under autocast (autocast
/// twins' results, and what reads them), with their ranks and types.
using AutocastResults = std::map<std::string, std::pair<int64_t, ElementType>>;

/// The versions kiln compile --autocast adds beside `variants` (g's plain
/// variant when g alone served). A graph holding ops autocast changes gets
/// its autocast twin: the same graph typed as under kiln::autocast, named
/// `_autocast`. Where variables it reads hold 16-bit values under autocast
/// (`autocastResults`: earlier twins' results, or this graph's own on a
/// host loop's next iteration: an RNN's hidden state), it gets a version
/// typed for them too, `_autocast16` (the twin's) or `_16` (a graph
/// autocast does not change), so that those calls run compiled. Left as
/// they were when none types. Returns the index of the first one added
/// (variants.size() when none was).
size_t addAutocastVersions(const Graph &g, std::vector<GraphVariant> &variants,
                           const AutocastResults &autocastResults) {
  std::vector<GraphVariant> plain = variants;
  if (plain.empty()) {
    GraphVariant all;
    all.graph = g;
    all.graph.name = g.name + "_plain";
    for (size_t i = 0; i < g.inputs.size(); ++i)
      all.inputIndex.push_back(i);
    plain.push_back(std::move(all));
  }
  bool twins = g.holdsAutocastOps();
  std::vector<GraphVariant> added;
  for (const GraphVariant &v : plain) {
    Pins lowered;
    for (size_t i = 0; i < v.graph.inputs.size(); ++i) {
      const TraceValue &t = v.graph.values[v.graph.inputs[i].value];
      auto it = autocastResults.find(v.graph.inputs[i].expr);
      if (t.kind == ValueKind::Tensor && it != autocastResults.end() &&
          it->second.first == t.rank && it->second.second != t.element)
        lowered[i] = Pin{t.rank, it->second.second};
    }
    GraphVariant version = v;
    version.graph.autocast = twins;
    std::optional<Graph> low =
        lowered.empty() ? std::nullopt : typedWith(version.graph, lowered);
    if (twins) {
      version.graph.name = v.graph.name + "_autocast";
      if (llvm::Error error = typeBody(version.graph))
        llvm::consumeError(std::move(error)); // its calls run eagerly
      else
        added.push_back(version);
    }
    if (low) {
      version.graph = std::move(*low);
      version.graph.name = v.graph.name + (twins ? "_autocast16" : "_16");
      added.push_back(std::move(version));
    }
  }
  if (added.empty())
    return variants.size();
  variants = std::move(plain);
  size_t first = variants.size();
  for (GraphVariant &v : added)
    variants.push_back(std::move(v));
  return first;
}

} // namespace

llvm::Error typeGraphs(const std::vector<Graph *> &graphs,
                       std::vector<std::vector<GraphVariant>> &variants,
                       bool autocastVersions) {
  // Variable -> the types a graph left there (several: its versions'), in
  // the order they are likely: what held before a loop first.
  struct Typed {
    std::vector<int64_t> ranks;
    std::vector<ElementType> elements;
  };
  std::map<std::string, Typed> left;
  // What compiled code leaves 16-bit in variables under autocast.
  AutocastResults autocastResults;
  llvm::Error first = llvm::Error::success();
  auto fail = [&](llvm::Error e) {
    if (first)
      llvm::consumeError(std::move(e));
    else
      first = std::move(e);
  };
  variants.assign(graphs.size(), {});
  // The one type earlier graphs left in a variable, if one.
  GraphInput::LeftTypes leftIn = [&](const std::string &variable)
      -> std::optional<std::pair<int64_t, ElementType>> {
    auto it = left.find(variable);
    if (it == left.end() || it->second.ranks.size() != 1 ||
        it->second.elements.size() != 1)
      return std::nullopt;
    return std::make_pair(*it->second.ranks.begin(),
                          *it->second.elements.begin());
  };
  // An input of graph gi takes the types earlier graphs left in its
  // variable.
  auto takeLeft = [&](GraphInput &in, const Typed &t) {
    // The one value of a local only its declaration sets: the graph's
    // type is exact, the source's a reading of the initializer.
    if (std::optional<std::pair<int64_t, ElementType>> exact =
            in.onlyInitialized ? leftIn(in.expr) : std::nullopt;
        exact && exact->first >= in.minRank) {
      in.sourceRank = exact->first;
      in.sourceElement = exact->second;
      in.sourceRanks.clear();
      in.sourceElements.clear();
      in.fromEarlierGraph = true;
      return;
    }
    if (in.sourceRank < 0) {
      if (t.ranks.size() == 1 && t.ranks.front() >= in.minRank) {
        in.sourceRank = t.ranks.front();
        in.fromEarlierGraph = true;
      } else if (t.ranks.size() > 1) {
        in.sourceRanks = t.ranks;
      }
    }
    if (!in.sourceElement) {
      if (t.elements.size() == 1) {
        in.sourceElement = t.elements.front();
        in.fromEarlierGraph = true;
      } else {
        in.sourceElements = t.elements;
      }
    }
  };
  // The likely type earlier graphs left in a variable (the first).
  GraphInput::LeftTypes leftLikely = [&](const std::string &variable)
      -> std::optional<std::pair<int64_t, ElementType>> {
    auto it = left.find(variable);
    if (it == left.end() || it->second.ranks.empty() ||
        it->second.elements.empty())
      return std::nullopt;
    return std::make_pair(it->second.ranks.front(),
                          it->second.elements.front());
  };
  // Types graph gi from what the graphs before it left, and records what
  // it leaves.
  auto typeOne = [&](size_t gi) {
    Graph &g = *graphs[gi];
    for (GraphInput &in : g.inputs) {
      // A local host code initializes from earlier graphs' values: its
      // initializer typed with what they left.
      // Exact when it is the one value of a local only its declaration
      // sets and earlier graphs left one type in what it reads; else
      // likely (typed with the likely types they left).
      std::pair<int64_t, std::optional<ElementType>> initial{-1, std::nullopt};
      bool exact = false;
      if (in.typeFromEarlierGraphs &&
          (in.sourceRank < 0 || !in.sourceElement) &&
          !(in.onlyInitialized && left.count(in.expr))) {
        if (in.onlyInitialized)
          initial = in.typeFromEarlierGraphs(leftIn);
        exact = initial.first >= 0 || initial.second;
        if (!exact)
          initial = in.typeFromEarlierGraphs(leftLikely);
      }
      in.typeFromEarlierGraphs = nullptr; // it reads the AST: not kept
      if (exact) {
        if (in.sourceRank < 0 && initial.first >= in.minRank) {
          in.sourceRank = initial.first;
          in.sourceRanks.clear();
          in.fromEarlierGraph = true;
        }
        if (!in.sourceElement && initial.second) {
          in.sourceElement = initial.second;
          in.sourceElements.clear();
          in.fromEarlierGraph = true;
        }
      }
      auto it = left.find(in.expr);
      if (it != left.end() && g.values[in.value].kind == ValueKind::Tensor)
        takeLeft(in, it->second);
      // One that a loop assigns as well: what its initializer holds is
      // what the first iteration finds (and what follows the loop, when
      // it does not run), tried before the rest.
      if (!exact) {
        if (in.sourceRank < 0 && initial.first >= in.minRank)
          putFirst(in.sourceRanks, initial.first);
        if (!in.sourceElement && initial.second)
          putFirst(in.sourceElements, *initial.second);
      }
    }
    // Host-bool variants first (they may drop the open inputs), then the
    // type versions of each.
    std::vector<GraphVariant> units = specializeOnHostBools(g);
    bool whole = units.empty();
    if (whole) {
      GraphVariant all;
      all.graph = g;
      for (size_t i = 0; i < g.inputs.size(); ++i)
        all.inputIndex.push_back(i);
      units.push_back(std::move(all));
    }
    llvm::Expected<std::vector<Graph>> typed = typedVersions(g);
    if (!typed) {
      fail(typed.takeError());
      llvm::consumeError(inferSignature(g)); // typed as guessed, for explain
      return;
    }
    g = typed->front();
    std::vector<GraphVariant> out;
    bool failed = false;
    for (GraphVariant &unit : units) {
      llvm::Expected<std::vector<Graph>> versions =
          whole ? std::move(typed) : typedVersions(unit.graph);
      if (!versions) {
        fail(versions.takeError());
        failed = true;
        break;
      }
      for (size_t k = 0; k < versions->size(); ++k) {
        GraphVariant v = unit;
        v.graph = std::move((*versions)[k]);
        if (versions->size() > 1) {
          v.graph.name = unit.graph.name + "_t" + std::to_string(k);
          v.typeVersion = static_cast<int>(k);
        }
        out.push_back(std::move(v));
      }
    }
    if (failed)
      return;
    bool versioned = out.size() > units.size();
    if (whole && !versioned)
      out.clear(); // the typed graph alone serves
    // What it leaves in variables: each version's types.
    for (const GraphOutput &o : g.outputs)
      if (!o.variable.empty())
        left.erase(o.variable);
    std::vector<const Graph *> typings;
    for (const GraphVariant &v : out)
      typings.push_back(&v.graph);
    if (typings.empty())
      typings.push_back(&g);
    for (const Graph *t : typings)
      for (const GraphOutput &o : t->outputs) {
        const TraceValue &v = t->values[o.value];
        if (o.variable.empty() || v.kind != ValueKind::Tensor)
          continue;
        addOnce(left[o.variable].ranks, v.rank);
        addOnce(left[o.variable].elements, v.element);
      }
    // What the autocast versions leave reaches only the autocast versions
    // of what follows (16-bit values read under autocast), not its plain
    // typing: the graphs' types outside autocast stay as traced.
    if (autocastVersions) {
      for (size_t k = addAutocastVersions(g, out, autocastResults);
           k < out.size(); ++k)
        for (const GraphOutput &o : out[k].graph.outputs) {
          const TraceValue &v = out[k].graph.values[o.value];
          if (!o.variable.empty() && v.kind == ValueKind::Tensor &&
              (v.element == ElementType::BF16 || v.element == ElementType::F16))
            autocastResults[o.variable] = {v.rank, v.element};
        }
    }
    variants[gi] = std::move(out);
  };
  // `into` with what `before` held first (the types on entry to a loop).
  auto unite = [](std::map<std::string, Typed> &into,
                  const std::map<std::string, Typed> &before) {
    for (const auto &[variable, t] : before) {
      Typed &to = into[variable];
      for (auto r = t.ranks.rbegin(); r != t.ranks.rend(); ++r)
        putFirst(to.ranks, *r);
      for (auto e = t.elements.rbegin(); e != t.elements.rend(); ++e)
        putFirst(to.elements, *e);
    }
  };
  for (size_t gi = 0; gi < graphs.size();) {
    if (graphs[gi]->hostLoops.empty()) {
      typeOne(gi++);
      continue;
    }
    // The graphs of one loop left on the host (its body, nested loops
    // included): a variable the body assigns reaches the next iteration's
    // graphs, and after the loop may still hold what it held before (no
    // iteration). The body is typed, then typed again from what it left
    // united with what it found; what follows sees both.
    size_t end = gi;
    while (end < graphs.size() && !graphs[end]->hostLoops.empty() &&
           graphs[end]->hostLoops.front() == graphs[gi]->hostLoops.front())
      ++end;
    std::vector<Graph> untyped;
    for (size_t k = gi; k < end; ++k)
      untyped.push_back(*graphs[k]);
    std::map<std::string, Typed> before = left;
    bool failedBefore = static_cast<bool>(first);
    for (size_t k = gi; k < end; ++k)
      typeOne(k);
    if (!failedBefore && first) { // the second typing decides
      llvm::consumeError(std::move(first));
      first = llvm::Error::success();
    }
    unite(left, before);
    for (size_t k = gi; k < end; ++k) {
      *graphs[k] = untyped[k - gi];
      variants[k].clear();
    }
    for (size_t k = gi; k < end; ++k)
      typeOne(k);
    unite(left, before);
    gi = end;
  }
  return first;
}

} // namespace kiln::frontend
