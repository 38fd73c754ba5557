//===- Partition.cpp - A joint graph cut into forward and backward -------===//
//
// AOTAutograd's min-cut rematerialization partitioner
// (torch/_functorch/partitioners.py) on the kiln dialect. Of the joint
// graph (Differentiate.cpp), the ops that do not read a result's gradient
// are the forward side. Each forward value is an edge of a flow network
// whose capacity is its size in bytes (weighed up the further it is from
// the backward, as AOTAutograd does, so that of equal sizes the value the
// backward reads itself is kept); the arguments, and the ops that are not
// worth computing twice when the forward needs them, hang from the source,
// the values the backward reads from the sink. The minimum cut is what the
// forward saves; the forward values on the sink's side of it are computed
// again in the backward.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>
#include <deque>

using namespace mlir;
namespace k = mlir::kiln;

namespace {

using Capacity = int64_t;
constexpr Capacity kInfinite = std::numeric_limits<Capacity>::max() / 4;
/// The most an edge weighs (a petabyte): the sum of a graph's finite
/// capacities stays far below kInfinite.
constexpr double kWeightCap = 1e15;

/// A flow network cut at its maximum flow (Dinic's algorithm).
class FlowNetwork {
public:
  unsigned addNode() {
    adjacent_.emplace_back();
    return adjacent_.size() - 1;
  }
  void addEdge(unsigned from, unsigned to, Capacity capacity) {
    adjacent_[from].push_back(edges_.size());
    edges_.push_back({to, capacity});
    adjacent_[to].push_back(edges_.size());
    edges_.push_back({from, 0});
  }
  /// Pushes the maximum flow from source to sink; then onSourceSide holds
  /// for the nodes the source still reaches (the minimum cut's side).
  void cut(unsigned source, unsigned sink) {
    while (levels(source, sink)) {
      next_.assign(adjacent_.size(), 0);
      while (push(source, sink, kInfinite) > 0) {
      }
    }
  }
  bool onSourceSide(unsigned node) const { return level_[node] >= 0; }

private:
  struct Edge {
    unsigned to;
    Capacity capacity;
  };
  /// Breadth-first levels over edges with capacity left; whether the sink
  /// is reached.
  bool levels(unsigned source, unsigned sink) {
    level_.assign(adjacent_.size(), -1);
    level_[source] = 0;
    std::deque<unsigned> queue{source};
    while (!queue.empty()) {
      unsigned node = queue.front();
      queue.pop_front();
      for (unsigned e : adjacent_[node])
        if (edges_[e].capacity > 0 && level_[edges_[e].to] < 0) {
          level_[edges_[e].to] = level_[node] + 1;
          queue.push_back(edges_[e].to);
        }
    }
    return level_[sink] >= 0;
  }
  Capacity push(unsigned node, unsigned sink, Capacity limit) {
    if (node == sink)
      return limit;
    for (unsigned &i = next_[node]; i < adjacent_[node].size(); ++i) {
      unsigned e = adjacent_[node][i];
      Edge &edge = edges_[e];
      if (edge.capacity <= 0 || level_[edge.to] != level_[node] + 1)
        continue;
      Capacity pushed = push(edge.to, sink, std::min(limit, edge.capacity));
      if (pushed > 0) {
        if (edge.capacity < kInfinite)
          edge.capacity -= pushed;
        if (edges_[e ^ 1].capacity < kInfinite)
          edges_[e ^ 1].capacity += pushed;
        return pushed;
      }
    }
    return 0;
  }

  std::vector<Edge> edges_;
  std::vector<std::vector<unsigned>> adjacent_;
  std::vector<int> level_;
  std::vector<unsigned> next_;
};

/// A value's size in bytes, a dynamic dim counted as kDynamicSizeEstimate;
/// a scalar's is 8.
int64_t bytesOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return 8;
  // (In double, capped: an estimate of many dynamic dims must not wrap.)
  double n = 1;
  for (int64_t d : type.getShape())
    n *= static_cast<double>(ShapedType::isDynamic(d) ? k::kDynamicSizeEstimate
                                                      : d);
  Type e = type.getElementType();
  int64_t bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
  return static_cast<int64_t>(std::min(
      n * static_cast<double>(std::max<int64_t>(1, bits / 8)), kWeightCap));
}

/// Whether computing op again in the backward is cheaper than keeping its
/// results (AOTAutograd's ban_recomputation): not for products, attention,
/// convolutions, scans and scatters, nor for an op whose results are a quarter
/// of its inputs or less (a reduction: it would read them all again).
bool worthRecomputing(Operation *op) {
  if (isa<k::MatmulOp, k::LinearOp, k::ScaledDotProductAttentionOp, k::Conv2dOp,
          k::CumsumOp, k::CumprodOp, k::TopkOp, k::ScatterAddOp,
          k::CrossEntropyOp, k::OpaqueCallOp>(op))
    return false;
  int64_t in = 0, out = 0;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()))
      in += bytesOf(v);
  for (Value r : op->getResults())
    out += bytesOf(r);
  return out * 4 >= in;
}

/// Whether op only reads its input in another shape or order.
bool isView(Operation *op) { return op->hasTrait<k::trait::ViewOfInput>(); }

/// The ops that compute `roots`, stopping at `stops`.
DenseSet<Operation *> sliceOf(ArrayRef<Value> roots,
                              const DenseSet<Value> &stops) {
  DenseSet<Operation *> ops;
  SmallVector<Value> work(roots.begin(), roots.end());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (stops.contains(v) || !seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !ops.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return ops;
}

} // namespace

FailureOr<k::ForwardBackward>
k::buildForwardBackward(func::FuncOp fn, StringRef forwardName,
                        StringRef backwardName) {
  FailureOr<func::FuncOp> built =
      detail::buildJoint(fn, (backwardName + "_joint").str(), true);
  if (failed(built))
    return failure();
  func::FuncOp joint = *built;
  auto eraseJoint = llvm::scope_exit([&] { joint.erase(); });
  // The kiln ops' folds and canonicalizations (a transpose of a transposed
  // operand, a product's transpose), then one value per size the rules
  // read, so that each is saved once.
  {
    MLIRContext *context = fn.getContext();
    RewritePatternSet patterns(context);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (name.getDialectNamespace() == k::KilnDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(joint, std::move(patterns));
    IRRewriter rewriter(context);
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, joint);
  }
  Block &body = joint.getBody().front();
  unsigned numArgs = fn.getNumArguments(), numResults = fn.getNumResults();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Location loc = fn.getLoc();

  // The backward side: the ops that read a result's gradient.
  DenseSet<Value> tangents;
  for (BlockArgument arg : body.getArguments().drop_front(numArgs))
    tangents.insert(arg);
  DenseSet<Operation *> backwardSide;
  DenseSet<Value> varying = tangents;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions()) {
      op.emitOpError("has regions: its graph is not partitioned");
      return failure();
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); })) {
      backwardSide.insert(&op);
      varying.insert(op.result_begin(), op.result_end());
    }
  }

  // The forward values, in order, and how far each is from the backward
  // (in uses).
  SmallVector<Value> values(body.getArguments().take_front(numArgs));
  for (Operation &op : body.without_terminator())
    if (!backwardSide.contains(&op))
      llvm::append_range(values, op.getResults());
  auto readByBackward = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    return user == ret ? use.getOperandNumber() >= numResults
                       : backwardSide.contains(user);
  };
  DenseMap<Value, unsigned> distance;
  for (Value v : llvm::reverse(values)) {
    unsigned d = 1000;
    for (OpOperand &use : v.getUses()) {
      if (readByBackward(use))
        d = 1;
      else if (use.getOwner() != ret)
        for (Value r : use.getOwner()->getResults())
          d = std::min(d, distance.lookup(r) + 1);
    }
    distance[v] = d;
  }
  SmallVector<Value> forwardResults(ret.getOperands().take_front(numResults));
  DenseSet<Operation *> neededByResults = sliceOf(forwardResults, {});

  FlowNetwork network;
  unsigned source = network.addNode(), sink = network.addNode();
  DenseMap<Value, unsigned> in;
  for (Value v : values) {
    in[v] = network.addNode();
    network.addNode(); // in + 1: its out node
  }
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || (neededByResults.contains(def) && !worthRecomputing(def)))
      network.addEdge(source, in[v], kInfinite);
    // An argument or a result saved is a reference to a tensor that exists
    // anyway; a view is worth saving only where its input is not
    // (AOTAutograd's weight for values fusion would not materialize).
    double weight = static_cast<double>(bytesOf(v));
    if (def && !llvm::is_contained(forwardResults, v))
      weight *= std::pow(1.1, std::min(distance[v], 100u)) *
                (isView(def) ? 2 : 1);
    network.addEdge(in[v], in[v] + 1,
                    std::llround(std::min(weight, kWeightCap)));
    for (OpOperand &use : v.getUses()) {
      if (readByBackward(use))
        network.addEdge(in[v] + 1, sink, kInfinite);
      else if (use.getOwner() != ret)
        for (Value r : use.getOwner()->getResults())
          network.addEdge(in[v] + 1, in[r], kInfinite);
    }
  }
  network.cut(source, sink);

  ForwardBackward out;
  // What eager autograd keeps: the values of the forward proper that the
  // gradient formulas read (in the joint, before the partition chose what
  // to save), through views of the same elements.
  auto elementsOf = [](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isView(def))
        break;
      v = def->getOperand(0);
    }
    return v;
  };
  // (A dim, or the shape or dtype a `_as`/`_like` op takes from its second
  // operand, is no read of the elements: eager keeps sizes for it.)
  auto readByFormulas = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (user == ret)
      return use.getOperandNumber() >= numResults;
    if (isa<k::DimOp>(user) ||
        (isa<k::ReshapeAsOp, k::ExpandAsOp, k::CastLikeOp>(user) &&
         use.getOperandNumber() == 1))
      return false;
    return !neededByResults.contains(user);
  };
  DenseSet<Value> readElements;
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (isa<RankedTensorType>(v.getType()) &&
        (!def || neededByResults.contains(def)) &&
        llvm::any_of(v.getUses(), readByFormulas))
      readElements.insert(elementsOf(v));
  }
  for (BlockArgument arg : body.getArguments().take_front(numArgs))
    if (readElements.contains(arg))
      out.checkedArguments.push_back(arg.getArgNumber());
  for (auto [i, r] : llvm::enumerate(forwardResults))
    if (isa<RankedTensorType>(r.getType()) &&
        readElements.contains(elementsOf(r)))
      out.checkedResults.push_back(i);
  DenseSet<Value> saved;
  SmallVector<Value> savedValues, extras;
  for (Value v : values) {
    if (!network.onSourceSide(in[v]) || network.onSourceSide(in[v] + 1))
      continue;
    saved.insert(v);
    savedValues.push_back(v);
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      out.saved.push_back({SavedValue::From::Argument, arg.getArgNumber()});
      continue;
    }
    auto result = llvm::find(forwardResults, v);
    if (isa<RankedTensorType>(v.getType()) && result != forwardResults.end()) {
      out.saved.push_back(
          {SavedValue::From::Result,
           static_cast<unsigned>(result - forwardResults.begin())});
      continue;
    }
    out.saved.push_back({SavedValue::From::Extra,
                         static_cast<unsigned>(extras.size()),
                         !isa<RankedTensorType>(v.getType())});
    extras.push_back(v);
    out.savedBytes += bytesOf(v);
  }

  MLIRContext *context = fn.getContext();
  OpBuilder b(context);
  b.setInsertionPointAfter(fn);
  auto scalarTensor = [&](Type t) {
    return RankedTensorType::get({}, isa<IndexType>(t) ? b.getI64Type() : t);
  };
  // The ops without results or with effects (shape checks) stay on their
  // side.
  auto anchored = [](Operation &op) {
    return op.getNumResults() == 0 || !isMemoryEffectFree(&op);
  };

  // The forward: fn's results and the saved values, and fn's checks.
  SmallVector<Value> forwardRoots = forwardResults;
  llvm::append_range(forwardRoots, extras);
  for (Operation &op : body.without_terminator())
    if (!backwardSide.contains(&op) && anchored(op))
      llvm::append_range(forwardRoots, op.getOperands());
  DenseSet<Operation *> inForward = sliceOf(forwardRoots, {});
  SmallVector<Type> forwardTypes(fn.getResultTypes());
  for (Value v : extras)
    forwardTypes.push_back(isa<RankedTensorType>(v.getType())
                               ? v.getType()
                               : scalarTensor(v.getType()));
  out.forward = func::FuncOp::create(
      b, loc, forwardName,
      FunctionType::get(context, fn.getArgumentTypes(), forwardTypes));
  auto eraseForward = llvm::scope_exit([&] {
    if (out.forward)
      out.forward.erase();
  });
  {
    OpBuilder fb = OpBuilder::atBlockEnd(out.forward.addEntryBlock());
    IRMapping map;
    map.map(body.getArguments().take_front(numArgs),
            out.forward.getArguments());
    for (Operation &op : body.without_terminator())
      if (inForward.contains(&op) ||
          (!backwardSide.contains(&op) && anchored(op)))
        fb.clone(op, map);
    SmallVector<Value> returned;
    for (Value v : forwardResults)
      returned.push_back(map.lookup(v));
    for (Value v : extras) {
      Value x = map.lookup(v);
      if (!isa<RankedTensorType>(x.getType()))
        x = k::FromScalarOp::create(fb, loc, scalarTensor(x.getType()), x);
      returned.push_back(x);
    }
    func::ReturnOp::create(fb, loc, returned);
  }

  // The backward: the saved values and the gradients in; what the
  // gradients need of the rest computed again.
  SmallVector<Type> backwardTypes;
  for (Value v : savedValues)
    backwardTypes.push_back(isa<IndexType>(v.getType()) ? b.getI64Type()
                                                        : v.getType());
  for (BlockArgument arg : body.getArguments().drop_front(numArgs))
    backwardTypes.push_back(arg.getType());
  SmallVector<Value> gradients(ret.getOperands().drop_front(numResults));
  // (The joint's arguments after fn's: a gradient per floating-point
  // result, then whether it arrived.)
  unsigned numTangents = (body.getNumArguments() - numArgs) / 2;
  bool partialSources = false;
  // Then whether each gradient is needed (nonzero when it is).
  unsigned numInputs = backwardTypes.size();
  backwardTypes.append(gradients.size(), b.getI64Type());
  out.backward = func::FuncOp::create(
      b, loc, backwardName,
      FunctionType::get(context, backwardTypes,
                        ValueRange(gradients).getTypes()));
  for (unsigned k = 0; k < gradients.size(); ++k) {
    out.backward.setArgAttr(numInputs + k, kGradientNeedAttrName,
                            b.getI64IntegerAttr(k));
    auto from = joint.getResultAttrOfType<DenseI64ArrayAttr>(
        numResults + k, kGradientSourcesAttrName);
    SmallVector<unsigned> &sources = out.gradientSources.emplace_back();
    if (!from) {
      sources = llvm::to_vector(llvm::seq<unsigned>(numTangents));
      continue;
    }
    partialSources = true;
    out.backward.setResultAttr(k, kGradientSourcesAttrName, from);
    sources.assign(from.asArrayRef().begin(), from.asArrayRef().end());
  }
  if (!partialSources)
    out.gradientSources.clear();
  auto eraseBackward = llvm::scope_exit([&] {
    if (out.backward)
      out.backward.erase();
  });
  {
    Block *entry = out.backward.addEntryBlock();
    OpBuilder bb = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (auto [i, v] : llvm::enumerate(savedValues)) {
      Value arg = entry->getArgument(i);
      if (arg.getType() != v.getType())
        arg = arith::IndexCastOp::create(bb, loc, v.getType(), arg);
      map.map(v, arg);
    }
    map.map(body.getArguments().drop_front(numArgs),
            entry->getArguments()
                .drop_front(savedValues.size())
                .take_front(numInputs - savedValues.size()));
    SmallVector<Value> roots = gradients;
    for (Operation &op : body.without_terminator())
      if (backwardSide.contains(&op) && anchored(op))
        llvm::append_range(roots, op.getOperands());
    DenseSet<Value> stops = saved;
    stops.insert(tangents.begin(), tangents.end());
    DenseSet<Operation *> inBackward = sliceOf(roots, stops);
    for (Operation &op : body.without_terminator()) {
      bool backward = backwardSide.contains(&op);
      if (!inBackward.contains(&op) && !(backward && anchored(op)))
        continue;
      if (!backward && inForward.contains(&op)) {
        ++out.recomputedOps;
        for (Value r : op.getResults())
          out.recomputedBytes += bytesOf(r);
      }
      for (Value v : op.getOperands())
        if (!map.contains(v)) {
          op.emitOpError("reads a forward value the partition did not keep");
          return failure();
        }
      bb.clone(op, map);
    }
    SmallVector<Value> returned;
    for (Value g : gradients)
      returned.push_back(map.lookupOrDefault(g));
    func::ReturnOp::create(bb, loc, returned);
  }
  if (failed(verify(out.forward)) || failed(verify(out.backward)))
    return failure();
  eraseForward.release();
  eraseBackward.release();
  return out;
}
