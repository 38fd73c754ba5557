//===- Autograd.cpp - Grad mode, recording, backward and in-place ops -----===//
#include "Core/Autograd.h"
#include "Core/Stats.h"

#include "kiln/Ops.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace kiln {
namespace detail {
void copyConvert(const Tensor &dst, const Tensor &src);
void checkCpu(const Tensor &t, const char *op);
} // namespace detail

namespace {
thread_local bool gradEnabled = true;
} // namespace

bool GradMode::is_enabled() { return gradEnabled; }
void GradMode::set_enabled(bool enabled) { gradEnabled = enabled; }

namespace autograd {

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

namespace {

/// The node of an op: its formula and what it saved.
struct FunctionNode : Node {
  FunctionNode(std::string name, BackwardFn fn, bool saves,
               Recorder::Missing missing)
      : Node(std::move(name)), fn(std::move(fn)), saves(saves),
        missing(missing) {}

  Grads apply(Grads &&grads) override {
    if (!fn)
      throw Error("backward: trying to backward through the graph a second "
                  "time (or directly access saved tensors after they have "
                  "already been freed). Saved intermediate values of the "
                  "graph are freed when you call backward(); pass "
                  "retain_graph = true to backward() the first time to keep "
                  "them (" +
                  name + ")");
    // No gradient reached the node (the nodes after it gave none): it
    // gives none either. Otherwise an output none reached contributes
    // zeros.
    if (std::none_of(grads.begin(), grads.end(),
                     [](const Tensor &g) { return g.defined(); }))
      return Grads(next.size());
    if (missing == Recorder::Missing::Zeros)
      for (size_t i = 0; i < grads.size(); ++i)
        if (!grads[i].defined() && isFloating(slots[i].dtype))
          grads[i] = zeros(slots[i].shape, slots[i].dtype);
    Needs needs(next.size());
    for (size_t i = 0; i < next.size(); ++i)
      needs[i] = next[i].fn != nullptr;
    return fn(grads, needs);
  }
  /// Frees the saved tensors; a node that saved none stays usable (as
  /// torch's: a view reused across steps backpropagates every time).
  void release() override {
    if (saves)
      fn = nullptr;
  }

  BackwardFn fn;
  bool saves;
  Recorder::Missing missing;
};

/// Adds the gradient that reaches a leaf into its grad().
struct AccumulateGrad : Node {
  AccumulateGrad(std::shared_ptr<AutogradMeta> leaf, GradSlot slot)
      : Node("AccumulateGrad"), leaf(std::move(leaf)) {
    slots.push_back(std::move(slot));
  }

  Grads apply(Grads &&grads) override {
    Tensor &g = grads[0];
    if (!g.defined())
      return {};
    // Backwards on several threads may reach one parameter.
    std::lock_guard<std::mutex> lock(mutex);
    Tensor &grad = leaf->grad;
    if (!grad.defined()) {
      // Take the gradient over when nothing else can see it (torch steals
      // it the same way); copy it otherwise, so that a grad never aliases
      // another tensor.
      bool owned = g.is_contiguous() && g.storage_offset() == 0 &&
                   g.storage().use_count() == 1 &&
                   g.storage()->nbytes() ==
                       static_cast<size_t>(g.numel()) * elementSize(g.dtype());
      grad = owned ? g : g.clone();
    } else if (grad.storage().use_count() == 1) {
      grad.add_(g);
    } else {
      grad = grad + g;
    }
    return {};
  }

  std::shared_ptr<AutogradMeta> leaf;
  std::mutex mutex;
};

std::shared_ptr<Node> accumulatorOf(const Tensor &leaf) {
  AutogradMeta &meta = leaf.autogradMeta();
  if (std::shared_ptr<Node> node = meta.gradAccumulator.lock())
    return node;
  auto node = std::make_shared<AccumulateGrad>(
      leaf.autogradMetaPtr(), GradSlot{leaf.shape(), leaf.dtype()});
  meta.gradAccumulator = node;
  return node;
}

/// Where the gradient of t goes.
Edge edgeOf(const Tensor &t) {
  AutogradMeta &meta = t.autogradMeta();
  if (meta.gradFn)
    return Edge{meta.gradFn, meta.outputNr};
  if (meta.requiresGrad)
    return Edge{accumulatorOf(t), 0};
  return Edge{};
}

std::string describe(const Tensor &t) {
  return std::string("[") + dtypeName(t.dtype()) + " " + shapeStr(t.shape()) +
         "]";
}

} // namespace

bool needsGrad(const Tensor &t) {
  return gradEnabled && t.defined() && t.autogradMeta().requiresGrad;
}

void markView(const Tensor &out) { out.autogradMeta().isView = true; }

//===----------------------------------------------------------------------===//
// Saved tensors
//===----------------------------------------------------------------------===//

SavedTensor::SavedTensor(const Tensor &t, const std::string &node,
                         uint32_t outputNr, bool isOutput)
    : node_(node), outputNr_(outputNr), isOutput_(isOutput),
      defined_(t.defined()) {
  if (!defined_)
    return;
  data_ = t.detach();
  version_ = t.storage()->version();
}

Tensor SavedTensor::get() const {
  if (!defined_)
    return Tensor();
  uint32_t now = data_.storage()->version();
  if (now != version_)
    throw Error("backward: one of the variables needed for gradient "
                "computation has been modified by an inplace operation: " +
                describe(data_) +
                (isOutput_ ? ", which is output " + std::to_string(outputNr_) +
                                 " of " + node_ + ","
                           : "") +
                " is at version " + std::to_string(now) +
                "; expected version " + std::to_string(version_) + " instead");
  return data_;
}

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

Recorder::Recorder(const char *name, const std::vector<Tensor> &inputs)
    : name_(name) {
  std::vector<const Tensor *> list;
  for (const Tensor &t : inputs)
    list.push_back(&t);
  init(list.data(), list.size());
}

void Recorder::init(const Tensor *const *inputs, size_t n) {
  if (!gradEnabled)
    return;
  for (size_t i = 0; i < n && !active_; ++i)
    active_ = inputs[i]->requires_grad();
  if (!active_)
    return;
  edges_.reserve(n);
  inputMetas_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor &t = *inputs[i];
    edges_.push_back(t.defined() ? edgeOf(t) : Edge{});
    inputMetas_.push_back(t.defined() ? &t.autogradMeta() : nullptr);
  }
  previousMode_ = gradEnabled;
  gradEnabled = false;
}

Recorder::~Recorder() {
  if (active_)
    gradEnabled = previousMode_;
}

SavedTensor Recorder::save(const Tensor &t, bool isOutput,
                           uint32_t outputNr) const {
  saves_ |= t.defined();
  return SavedTensor(t, name_, outputNr, isOutput);
}

void Recorder::record(const Tensor &out, BackwardFn fn) {
  record(std::vector<Tensor>{out}, std::move(fn));
}

void Recorder::record(const std::vector<Tensor> &outs, BackwardFn fn,
                      Missing missing) {
  if (!active_)
    return;
  auto node =
      std::make_shared<FunctionNode>(name_, std::move(fn), saves_, missing);
  node->next = edges_;
  for (const Tensor &out : outs)
    node->slots.push_back(out.defined() ? GradSlot{out.shape(), out.dtype()}
                                        : GradSlot{});
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor &out = outs[i];
    if (!out.defined() || !isFloating(out.dtype()))
      continue;
    AutogradMeta &meta = out.autogradMeta();
    // An op that returns an input itself (x.to(its own dtype)) adds no
    // node: the tensor keeps its history.
    bool isInput = false;
    for (AutogradMeta *m : inputMetas_)
      isInput |= m == &meta;
    if (isInput)
      continue;
    meta.requiresGrad = true;
    meta.gradFn = node;
    meta.outputNr = static_cast<uint32_t>(i);
  }
}

void notDifferentiable(const char *op, std::initializer_list<Tensor> inputs) {
  for (const Tensor &t : inputs)
    if (needsGrad(t))
      throw Error(std::string(op) +
                  ": the derivative is not implemented; compute it under "
                  "kiln::NoGradGuard or on detach()ed inputs");
}

Tensor sumTo(const Tensor &grad, const Shape &shape) {
  if (grad.shape() == shape)
    return grad;
  const Shape &from = grad.shape();
  if (from.size() < shape.size())
    throw Error("backward: a gradient of shape " + shapeStr(from) +
                " cannot be reduced to shape " + shapeStr(shape));
  size_t lead = from.size() - shape.size();
  Shape dims;
  for (size_t i = 0; i < from.size(); ++i) {
    if (i < lead) {
      dims.push_back(static_cast<int64_t>(i));
      continue;
    }
    int64_t want = shape[i - lead];
    if (want == 1 && from[i] != 1)
      dims.push_back(static_cast<int64_t>(i));
    else if (want != from[i])
      throw Error("backward: a gradient of shape " + shapeStr(from) +
                  " cannot be reduced to shape " + shapeStr(shape));
  }
  Tensor out = dims.empty() ? grad : kiln::sum(grad, dims, true);
  return out.reshape(shape);
}

Tensor restoreReducedDims(const Tensor &g, const Shape &inputShape,
                          const Shape &dims, bool keepdim) {
  if (inputShape.empty())
    return g.reshape(inputShape);
  if (keepdim)
    return g;
  int64_t rank = static_cast<int64_t>(inputShape.size());
  std::vector<bool> reduced(rank, dims.empty());
  for (int64_t d : dims)
    reduced[wrapDim(d, rank, "backward")] = true;
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(reduced[d] ? 1 : inputShape[d]);
  return g.reshape(shape);
}

//===----------------------------------------------------------------------===//
// The engine
//===----------------------------------------------------------------------===//

namespace {

/// A gradient fit for slot: reduced to its shape, converted to its dtype.
Tensor fitToSlot(Tensor grad, const GradSlot &slot, const Node &from,
                 size_t index) {
  if (grad.shape() != slot.shape) {
    try {
      grad = sumTo(grad, slot.shape);
    } catch (const Error &) {
      throw Error(
          "backward: " + from.name + " returned an invalid gradient at index " +
          std::to_string(index) + " - got " + shapeStr(grad.shape()) +
          " but expected shape compatible with " + shapeStr(slot.shape));
    }
  }
  if (grad.dtype() != slot.dtype && isFloating(slot.dtype))
    grad = grad.to(slot.dtype);
  return grad;
}

/// Runs the graph from roots (their gradients given). With `captures`,
/// the gradients arriving at those edges are returned instead of being
/// accumulated into leaves (autograd::grad).
Grads execute(const std::vector<Edge> &roots, const Grads &rootGrads,
              bool retainGraph, const std::vector<Edge> *captures) {
  NoGradGuard noGrad;
  // Dependencies: how many edges of reachable nodes lead to each node.
  std::unordered_map<Node *, int> deps;
  std::unordered_map<Node *, std::shared_ptr<Node>> nodes;
  std::vector<Node *> stack;
  for (const Edge &e : roots)
    if (e.fn && nodes.emplace(e.fn.get(), e.fn).second)
      stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node *n = stack.back();
    stack.pop_back();
    for (const Edge &e : n->next) {
      if (!e.fn)
        continue;
      ++deps[e.fn.get()];
      if (nodes.emplace(e.fn.get(), e.fn).second)
        stack.push_back(e.fn.get());
    }
  }

  std::unordered_map<Node *, Grads> buffers;
  auto accumulate = [&](const Edge &e, Tensor grad) {
    Grads &buffer = buffers[e.fn.get()];
    buffer.resize(e.fn->slots.size());
    Tensor &slot = buffer[e.inputNr];
    slot = slot.defined() ? slot + grad : std::move(grad);
  };
  for (size_t i = 0; i < roots.size(); ++i)
    if (roots[i].fn)
      accumulate(roots[i], rootGrads[i]);

  // For autograd::grad, only the nodes that lead to a requested input run
  // (and a node that does not count as a dependency of the ones that do).
  std::unordered_map<Node *, bool> leads;
  if (captures) {
    std::function<bool(Node *)> reaches = [&](Node *n) -> bool {
      auto it = leads.find(n);
      if (it != leads.end())
        return it->second;
      leads[n] = false; // graphs are acyclic; this only stops revisits
      bool found = false;
      for (const Edge &c : *captures)
        found |= c.fn.get() == n;
      for (const Edge &e : n->next)
        if (e.fn && reaches(e.fn.get()))
          found = true;
      return leads[n] = found;
    };
    for (auto &[node, owner] : nodes)
      reaches(node);
  }
  auto runs = [&](Node *n) { return !captures || leads[n]; };

  Grads captured(captures ? captures->size() : 0);
  std::deque<Node *> ready;
  for (auto &[node, owner] : nodes)
    if (!deps.count(node))
      ready.push_back(node);
  std::vector<Node *> ran;
  while (!ready.empty()) {
    Node *n = ready.front();
    ready.pop_front();
    Grads in = std::move(buffers[n]);
    buffers.erase(n);
    in.resize(n->slots.size());
    bool isLeaf = dynamic_cast<AccumulateGrad *>(n) != nullptr;
    if (captures) {
      for (size_t c = 0; c < captures->size(); ++c) {
        const Edge &e = (*captures)[c];
        if (e.fn.get() == n && in[e.inputNr].defined())
          captured[c] = in[e.inputNr];
      }
    }
    Grads out;
    if (!(captures && isLeaf) && runs(n)) {
      out = n->apply(std::move(in));
      ran.push_back(n);
    }
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge &e = n->next[i];
      if (!e.fn)
        continue;
      if (i < out.size() && out[i].defined())
        accumulate(e,
                   fitToSlot(std::move(out[i]), e.fn->slots[e.inputNr], *n, i));
      if (--deps[e.fn.get()] == 0)
        ready.push_back(e.fn.get());
    }
  }
  if (!retainGraph)
    for (Node *n : ran)
      n->release();
  return captured;
}

/// The edge and gradient a backward starts from for output t.
void addRoot(const Tensor &t, const Tensor &gradient, size_t index,
             std::vector<Edge> &roots, Grads &grads) {
  t.checkDefined("backward");
  if (!t.autogradMeta().requiresGrad)
    throw Error("backward: element " + std::to_string(index) +
                " of tensors does not require grad and does not have a "
                "grad_fn");
  Tensor g = gradient;
  if (!g.defined()) {
    if (t.numel() != 1)
      throw Error("backward: grad can be implicitly created only for scalar "
                  "outputs (got a tensor of shape " +
                  shapeStr(t.shape()) + "); pass a gradient of its shape");
    g = ones(t.shape(), t.dtype());
  } else if (g.shape() != t.shape()) {
    throw Error("backward: mismatch in shape: grad_output[" +
                std::to_string(index) + "] has a shape of " +
                shapeStr(g.shape()) + " and output[" + std::to_string(index) +
                "] has a shape of " + shapeStr(t.shape()));
  }
  roots.push_back(edgeOf(t));
  grads.push_back(g.dtype() == t.dtype() ? g : g.to(t.dtype()));
}

} // namespace

std::vector<Tensor> grad(const std::vector<Tensor> &outputs,
                         const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &grad_outputs,
                         bool retain_graph) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    throw Error("grad: " + std::to_string(grad_outputs.size()) +
                " grad_outputs for " + std::to_string(outputs.size()) +
                " outputs");
  std::vector<Edge> roots;
  Grads rootGrads;
  for (size_t i = 0; i < outputs.size(); ++i)
    addRoot(outputs[i], grad_outputs.empty() ? Tensor() : grad_outputs[i], i,
            roots, rootGrads);
  std::vector<Edge> captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].checkDefined("grad");
    if (!inputs[i].autogradMeta().requiresGrad)
      throw Error("grad: input " + std::to_string(i) +
                  " does not require grad");
    captures.push_back(edgeOf(inputs[i]));
  }
  // What reaches a capture was fitted to its slot on the way (or is a
  // root's gradient, checked against the root).
  return execute(roots, rootGrads, retain_graph, &captures);
}

//===----------------------------------------------------------------------===//
// In-place ops
//===----------------------------------------------------------------------===//

namespace {
/// torch's canCast: no floating to integral, nothing but bool to bool.
bool canCast(DType from, DType to) {
  if (isFloating(from) && !isFloating(to))
    return false;
  if (from != DType::Bool && to == DType::Bool)
    return false;
  return true;
}
} // namespace

const Tensor &applyInPlace(const Tensor &self, const char *op,
                           const std::function<Tensor(const Tensor &)> &compute,
                           std::initializer_list<Tensor> others) {
  detail::checkCpu(self, op);
  AutogradMeta &meta = self.autogradMeta();
  bool recording = needsGrad(self);
  for (const Tensor &o : others)
    recording |= needsGrad(o);
  if (recording && !meta.gradFn && meta.requiresGrad)
    throw Error(std::string(op) +
                ": a leaf tensor that requires grad is being used in an "
                "in-place operation (wrap the update in kiln::NoGradGuard)");
  if (recording && meta.isView)
    throw Error(std::string(op) +
                ": an in-place operation on a view that autograd records is "
                "not supported (its base's history would change): clone() "
                "the view first");
  for (size_t i = 0; i < self.shape().size(); ++i)
    if (self.stride(i) == 0 && self.size(i) > 1)
      throw Error(std::string(op) +
                  ": unsupported operation: more than one element of the "
                  "written-to tensor refers to a single memory location; "
                  "clone() it first");
  // While recording, the op computes from a copy of self (torch's
  // original_self): what its node saves must not be overwritten below.
  Tensor result = compute(recording ? self.clone() : self);
  if (!canCast(result.dtype(), self.dtype()))
    throw Error(std::string(op) + ": result type " + dtypeName(result.dtype()) +
                " can't be cast to the desired output type " +
                dtypeName(self.dtype()));
  if (result.shape() != self.shape())
    throw Error(std::string(op) + ": output with shape " +
                shapeStr(self.shape()) + " doesn't match the broadcast shape " +
                shapeStr(result.shape()));
  {
    detail::UncountedOps plumbing;
    if (result.shares_storage(self)) {
      NoGradGuard noGrad;
      result = result.clone();
    }
    detail::copyConvert(self, result);
  }
  self.storage()->bumpVersion();
  if (recording) {
    AutogradMeta &from = result.autogradMeta();
    meta.requiresGrad = from.requiresGrad;
    meta.gradFn = from.gradFn;
    meta.outputNr = from.outputNr;
  }
  return self;
}

//===----------------------------------------------------------------------===//
// gradcheck
//===----------------------------------------------------------------------===//

std::string gradcheck(
    const std::function<std::vector<Tensor>(const std::vector<Tensor> &)> &fn,
    const std::vector<Tensor> &inputs, double eps, double atol, double rtol) {
  std::vector<Tensor> outputs = fn(inputs);
  // Numerical Jacobian columns: d outputs / d input[i][j].
  auto evaluate = [&](size_t which, const Tensor &replaced) {
    NoGradGuard noGrad;
    std::vector<Tensor> args = inputs;
    for (Tensor &a : args)
      a = a.defined() ? a.detach() : a;
    args[which] = replaced;
    std::vector<Tensor> outs = fn(args);
    for (Tensor &o : outs)
      o = o.to(DType::F64).contiguous();
    return outs;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &x = inputs[i];
    if (!x.defined() || !x.requires_grad())
      continue;
    Tensor base = x.detach().to(DType::F64).contiguous().clone();
    int64_t n = base.numel();
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Tensor &out = outputs[o];
      if (!out.defined() || !isFloating(out.dtype()))
        continue;
      int64_t m = out.numel();
      // Analytic: one backward per output element.
      std::vector<Tensor> rows(m);
      for (int64_t k = 0; k < m; ++k) {
        Tensor seed = zeros({m}, DType::F64);
        seed.data<double>()[k] = 1.0;
        seed = seed.reshape(out.shape()).to(out.dtype());
        Tensor g;
        if (out.requires_grad())
          g = grad({out}, {x}, {seed}, true)[0];
        rows[k] = g.defined() ? g.to(DType::F64).contiguous()
                              : zeros(x.shape(), DType::F64);
      }
      for (int64_t j = 0; j < n; ++j) {
        double saved = base.data<double>()[j];
        base.data<double>()[j] = saved + eps;
        Tensor plus = evaluate(i, base.clone().to(x.dtype()))[o];
        base.data<double>()[j] = saved - eps;
        Tensor minus = evaluate(i, base.clone().to(x.dtype()))[o];
        base.data<double>()[j] = saved;
        const double *p = plus.data<double>(), *q = minus.data<double>();
        for (int64_t k = 0; k < m; ++k) {
          double numerical = (p[k] - q[k]) / (2 * eps);
          double analytic = rows[k].data<double>()[j];
          if (!(std::fabs(analytic - numerical) <=
                atol + rtol * std::fabs(numerical))) {
            std::ostringstream msg;
            msg << "gradcheck: Jacobian mismatch for output " << o
                << " with respect to input " << i << " at input element " << j
                << ", output element " << k << ": numerical " << numerical
                << ", analytical " << analytic;
            return msg.str();
          }
        }
      }
    }
  }
  return "";
}

} // namespace autograd

//===----------------------------------------------------------------------===//
// Tensor's autograd methods
//===----------------------------------------------------------------------===//

autograd::AutogradMeta &Tensor::autogradMeta() const {
  checkDefined("autograd");
  return *autograd_;
}

const Tensor &Tensor::requires_grad_(bool requiresGrad) const {
  autograd::AutogradMeta &meta = autogradMeta();
  if (requiresGrad && !isFloating(dtype_))
    throw Error(std::string("requires_grad_: only tensors of floating point "
                            "dtype can require gradients, got ") +
                dtypeName(dtype_));
  if (!requiresGrad && meta.gradFn)
    throw Error("requires_grad_: you can only change requires_grad flags of "
                "leaf variables; use detach() for a tensor that does not "
                "require grad");
  meta.requiresGrad = requiresGrad;
  return *this;
}

bool Tensor::requires_grad() const {
  return defined() && autograd_->requiresGrad;
}

Tensor Tensor::grad() const { return defined() ? autograd_->grad : Tensor(); }

Tensor &Tensor::mutable_grad() const { return autogradMeta().grad; }

void Tensor::backward(const Tensor &gradient, bool retain_graph) const {
  std::vector<autograd::Edge> roots;
  autograd::Grads grads;
  autograd::addRoot(*this, gradient, 0, roots, grads);
  autograd::execute(roots, grads, retain_graph, nullptr);
}

void Tensor::backward() const { backward(Tensor()); }

Tensor Tensor::detach() const {
  checkDefined("detach");
  Tensor out(storage_, shape_, strides_, offset_, dtype_);
  autograd::markView(out);
  return out;
}

bool Tensor::is_leaf() const { return !defined() || !autograd_->gradFn; }

std::string Tensor::grad_fn_name() const {
  return defined() && autograd_->gradFn ? autograd_->gradFn->name : "";
}

// EXPR computes the new value from `self` (the tensor, or a copy of it
// while autograd records: the op's node may save it).
#define KILN_IN_PLACE(NAME, SIG, EXPR, ...)                                    \
  const Tensor &Tensor::NAME SIG const {                                       \
    detail::CountedOp counted;                                                 \
    return autograd::applyInPlace(*this, #NAME,                                \
                                  [&](const Tensor &self) { return EXPR; },    \
                                  {__VA_ARGS__});                              \
  }
KILN_IN_PLACE(add_, (const Tensor &other, Scalar alpha),
              alpha.toDouble() == 1 ? self + other : self + other * alpha,
              other)
KILN_IN_PLACE(add_, (Scalar other), self + other)
KILN_IN_PLACE(sub_, (const Tensor &other, Scalar alpha),
              alpha.toDouble() == 1 ? self - other : self - other * alpha,
              other)
KILN_IN_PLACE(sub_, (Scalar other), self - other)
KILN_IN_PLACE(mul_, (const Tensor &other), self *other, other)
KILN_IN_PLACE(mul_, (Scalar other), self *other)
KILN_IN_PLACE(div_, (const Tensor &other), self / other, other)
KILN_IN_PLACE(div_, (Scalar other), self / other)
KILN_IN_PLACE(addcmul_, (const Tensor &t1, const Tensor &t2, Scalar value),
              self + t1 * t2 * value, t1, t2)
KILN_IN_PLACE(addcdiv_, (const Tensor &t1, const Tensor &t2, Scalar value),
              self + t1 / t2 * value, t1, t2)
KILN_IN_PLACE(fill_, (Scalar value), full_like(self, value))
KILN_IN_PLACE(copy_, (const Tensor &src),
              src.to(dtype_).expand(shape_).contiguous(), src)
KILN_IN_PLACE(clamp_, (std::optional<Scalar> min, std::optional<Scalar> max),
              kiln::clamp(self, min, max))
#undef KILN_IN_PLACE

const Tensor &Tensor::zero_() const { return fill_(0); }

// `x += y` and the rest: the in-place ops above.
const Tensor &Tensor::operator+=(const Tensor &other) const {
  return add_(other);
}
const Tensor &Tensor::operator+=(Scalar other) const { return add_(other); }
const Tensor &Tensor::operator-=(const Tensor &other) const {
  return sub_(other);
}
const Tensor &Tensor::operator-=(Scalar other) const { return sub_(other); }
const Tensor &Tensor::operator*=(const Tensor &other) const {
  return mul_(other);
}
const Tensor &Tensor::operator*=(Scalar other) const { return mul_(other); }
const Tensor &Tensor::operator/=(const Tensor &other) const {
  return div_(other);
}
const Tensor &Tensor::operator/=(Scalar other) const { return div_(other); }

} // namespace kiln
