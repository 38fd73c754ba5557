//===- Autograd.h - The recorded graph and how ops record -------*- C++ -*-===//
//
// torch's design, in small: a tensor computed by a recorded op holds
// (grad_fn, output_nr), grad_fn a Node whose edges lead to the nodes of the
// op's inputs; a leaf that requires grad is reached through its
// AccumulateGrad node. backward() (Autograd.cpp) walks the nodes in
// dependency order, summing the gradients that reach each one, reducing a
// gradient of a broadcast shape to the input's shape and converting it to
// the input's dtype (torch's validate_outputs), so that formulas may
// return gradients in the broadcast shape.
//
// An op records with a Recorder:
//
//   Tensor exp(const Tensor &x) {
//     autograd::Recorder grad("ExpBackward0", x);
//     Tensor out = <the kernel>;
//     if (grad)
//       grad.record(out, [r = grad.save(out)](const autograd::Grads &g,
//                                              const autograd::Needs &) {
//         return autograd::Grads{g[0] * r.get()};
//       });
//     return out;
//   }
//
// The Recorder turns grad mode off while it lives, so the ops the kernel
// or the formula is built from record nothing themselves. Saved tensors
// hold the data only (no grad_fn: a saved output makes no cycle) and the
// version of its storage: unpacking one that an in-place op changed since
// raises torch's error.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CORE_AUTOGRAD_H
#define KILN_RUNTIME_CORE_AUTOGRAD_H

#include "kiln/Autograd.h"
#include "kiln/Tensor.h"

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace kiln::autograd {

struct Node;

/// Where a gradient goes: input `inputNr` of node `fn` (none when fn is
/// null: a non-differentiable input).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t inputNr = 0;
};

/// A tensor's autograd state, shared by its handles.
struct AutogradMeta {
  bool requiresGrad = false;
  Tensor grad;
  std::shared_ptr<Node> gradFn;
  uint32_t outputNr = 0;
  /// The leaf's AccumulateGrad node, while some graph holds it.
  std::weak_ptr<Node> gradAccumulator;
  /// Made by a view op (shares another tensor's elements): in-place ops
  /// that autograd would record on it raise instead.
  bool isView = false;
};

/// Marks out as a view of another tensor (Tensor's view methods).
void markView(const Tensor &out);

using Grads = std::vector<Tensor>;
/// needs[i]: whether input i's gradient goes anywhere.
using Needs = std::vector<bool>;
using BackwardFn = std::function<Grads(const Grads &, const Needs &)>;

/// The shape and dtype a gradient flowing into a node's input must have.
struct GradSlot {
  Shape shape;
  DType dtype = DType::F32;
};

struct Node {
  explicit Node(std::string name) : name(std::move(name)) {}
  virtual ~Node() = default;
  /// The gradients of the forward inputs from those of the forward outputs
  /// (one per slot; an output no gradient reached is undefined).
  virtual Grads apply(Grads &&grads) = 0;
  /// Frees what the node saved (after a backward without retain_graph).
  virtual void release() {}

  std::string name;
  /// One per forward input, in order.
  std::vector<Edge> next;
  /// One per forward output: what the incoming gradients must be.
  std::vector<GradSlot> slots;
};

/// A tensor kept for the backward, and its storage's version then.
class SavedTensor {
public:
  SavedTensor() = default;
  SavedTensor(const Tensor &t, const std::string &node, uint32_t outputNr,
              bool isOutput);
  /// The tensor; throws if an in-place op modified it since it was saved.
  Tensor get() const;
  /// The tensor without the check, for its shape and dtype only (which no
  /// in-place op changes).
  const Tensor &metadata() const { return data_; }

private:
  Tensor data_;
  uint32_t version_ = 0;
  std::string node_;
  uint32_t outputNr_ = 0;
  bool isOutput_ = false;
  bool defined_ = false;
};

/// Whether t requires grad while grad mode is on (ops record then).
bool needsGrad(const Tensor &t);

/// Opened by a differentiable op over its tensor inputs (undefined ones
/// allowed): active when grad mode is on and one of them requires grad,
/// and then grad mode stays off until it closes.
class Recorder {
public:
  /// The inputs by reference: an op that records nothing pays for a look
  /// at each input's flag, no copy.
  template <typename... Inputs>
  Recorder(const char *name, const Inputs &...inputs) : name_(name) {
    const Tensor *list[] = {&inputs...};
    init(list, sizeof...(Inputs));
  }
  Recorder(const char *name, const std::vector<Tensor> &inputs);
  ~Recorder();
  Recorder(const Recorder &) = delete;
  Recorder &operator=(const Recorder &) = delete;

  explicit operator bool() const { return active_; }
  /// Saves an input or (isOutput) output number outputNr of the op for
  /// the backward.
  SavedTensor save(const Tensor &t, bool isOutput = false,
                   uint32_t outputNr = 0) const;
  /// What a node's formula gets for a floating-point output that no
  /// gradient reached, when another did (a node none reached does not run
  /// and gives none, as torch's formulas do): zeros of its shape, or the
  /// undefined tensor (a compiled backward, which passes on which arrived).
  enum class Missing { Zeros, Undefined };
  /// Makes out (a fresh result) the output of a node running fn.
  void record(const Tensor &out, BackwardFn fn);
  /// The same for several outputs (undefined ones, and non-floating ones,
  /// get no node).
  void record(const std::vector<Tensor> &outs, BackwardFn fn,
              Missing missing = Missing::Zeros);

private:
  void init(const Tensor *const *inputs, size_t n);

  const char *name_;
  bool active_ = false;
  bool previousMode_ = true;
  std::vector<Edge> edges_;
  std::vector<AutogradMeta *> inputMetas_;
  /// Whether the formula keeps saved tensors (release() frees them).
  mutable bool saves_ = false;
};

/// For an op with no gradient formula: throws torch's "not implemented"
/// error when an input would need one.
void notDifferentiable(const char *op, std::initializer_list<Tensor> inputs);

/// grad summed over the dims it was broadcast along, to shape (the
/// gradient of expand).
Tensor sumTo(const Tensor &grad, const Shape &shape);

/// A reduction's gradient g (or its output) over dims (all when empty) of
/// an input of inputShape, with the reduced dims put back as size 1 unless
/// keepdim kept them: broadcastable to the input (torch's
/// restore_reduced_dims).
Tensor restoreReducedDims(const Tensor &g, const Shape &inputShape,
                          const Shape &dims, bool keepdim);

/// Runs an in-place op on self the way autograd sees it: out-of-place
/// `compute` gives the new value from self (a copy of it while recording,
/// so that what the node saves survives), recording its node when it must;
/// the value is written into self's elements and self takes over its
/// history. Raises
/// torch's errors for a leaf that requires grad and for a view that would
/// need its base's history rewritten.
const Tensor &applyInPlace(const Tensor &self, const char *op,
                           const std::function<Tensor(const Tensor &)> &compute,
                           std::initializer_list<Tensor> others);

} // namespace kiln::autograd

#endif // KILN_RUNTIME_CORE_AUTOGRAD_H
