//===- GraphVariants.cpp - Graphs specialized on their host bools ---------===//
//
// An `if` on a host bool inside a graph traces both arms and selects
// between them. When one arm reads a tensor that the other never needs (a
// block's optional projection, left undefined when the flag is false), the
// one graph would need that tensor on every call, and its guard would
// reject the undefined one forever. Instead the graph is compiled once per
// value of the flags that choose select arms: each variant keeps the arms
// its flags choose and drops what only the others used, including inputs.
// The stitched wrapper picks the variant from the flags' values at run
// time (docs/frontend.md).
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/TraceGraph.h"

#include <map>
#include <set>

namespace kiln::frontend {

namespace {

constexpr size_t kMaxFlags = 2;

/// The value of bool `v` under `flags` (input value -> value), through
/// not/and/or; nullopt when it depends on anything else.
std::optional<bool> evaluate(const Graph &g, int v,
                             const std::map<int, bool> &flags) {
  if (auto it = flags.find(v); it != flags.end())
    return it->second;
  const TraceOp *op = g.producer(v);
  if (!op)
    return std::nullopt;
  switch (op->code) {
  case OpCode::ScalarNot:
    if (std::optional<bool> x = evaluate(g, op->operands[0], flags))
      return !*x;
    return std::nullopt;
  case OpCode::ScalarAnd:
  case OpCode::ScalarOr: {
    bool isAnd = op->code == OpCode::ScalarAnd;
    std::optional<bool> a = evaluate(g, op->operands[0], flags);
    std::optional<bool> b = evaluate(g, op->operands[1], flags);
    if ((a && *a != isAnd) || (b && *b != isAnd))
      return !isAnd; // false && _, true || _
    if (a && b)
      return isAnd;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

/// The bool inputs that the condition `v` reads through not/and/or.
void flagsOf(const Graph &g, int v, const std::map<int, size_t> &boolInputs,
             std::set<size_t> &out) {
  if (auto it = boolInputs.find(v); it != boolInputs.end()) {
    out.insert(it->second);
    return;
  }
  const TraceOp *op = g.producer(v);
  if (op && (op->code == OpCode::ScalarNot || op->code == OpCode::ScalarAnd ||
             op->code == OpCode::ScalarOr))
    for (int operand : op->operands)
      flagsOf(g, operand, boolInputs, out);
}

/// `g` with each select whose condition `flags` decide replaced by the
/// chosen arm, and what no output needs any more removed.
GraphVariant specialize(const Graph &g, const std::map<int, bool> &flags) {
  GraphVariant variant;
  Graph &out = variant.graph;
  out.values = g.values;
  std::map<int, int> alias;
  auto resolve = [&](int v) {
    auto it = alias.find(v);
    return it == alias.end() ? v : it->second;
  };
  std::vector<TraceOp> ops;
  for (TraceOp op : g.ops) {
    for (int &operand : op.operands)
      operand = resolve(operand);
    if (op.code == OpCode::Select)
      if (std::optional<bool> c = evaluate(g, op.operands[0], flags)) {
        alias[op.result] = op.operands[*c ? 1 : 2];
        continue;
      }
    ops.push_back(op);
  }
  std::set<int> live;
  for (GraphOutput o : g.outputs) {
    o.value = resolve(o.value);
    live.insert(o.value);
    out.outputs.push_back(o);
  }
  std::vector<TraceOp> kept;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (!live.count(it->result))
      continue;
    live.insert(it->operands.begin(), it->operands.end());
    kept.push_back(*it);
  }
  out.ops.assign(kept.rbegin(), kept.rend());
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (live.count(g.inputs[i].value)) {
      out.inputs.push_back(g.inputs[i]);
      variant.inputIndex.push_back(i);
    }
  return variant;
}

} // namespace

std::vector<GraphVariant> specializeOnHostBools(const Graph &g) {
  std::map<int, size_t> boolInputs; // value -> input index
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (g.values[g.inputs[i].value].kind == ValueKind::Bool)
      boolInputs[g.inputs[i].value] = i;
  std::set<size_t> chosen;
  for (const TraceOp &op : g.ops)
    if (op.code == OpCode::Select)
      flagsOf(g, op.operands[0], boolInputs, chosen);
  if (chosen.empty() || chosen.size() > kMaxFlags)
    return {};
  std::vector<size_t> flags(chosen.begin(), chosen.end());
  std::vector<GraphVariant> variants;
  bool needed = false;
  for (unsigned bits = 0; bits < (1u << flags.size()); ++bits) {
    std::map<int, bool> values;
    std::vector<std::pair<size_t, bool>> when;
    for (size_t k = 0; k < flags.size(); ++k) {
      bool value = (bits >> k) & 1;
      values[g.inputs[flags[k]].value] = value;
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

} // namespace kiln::frontend
