//===- kiln/Tensor.h - The eager tensor -------------------------*- C++ -*-===//
//
// kiln::Tensor is a reference-counted view of a Storage: shape, strides (in
// elements), an offset, a dtype and a device. Views (transpose, permute,
// slice, view, reshape of compatible data, unsqueeze, squeeze, expand) share
// the storage; contiguous() copies only when the layout is not row-major.
// Copying a Tensor copies the handle, not the data (like at::Tensor), and
// shares its autograd state: requires_grad, grad and grad_fn belong to the
// tensor, not to one handle (docs/training.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TENSOR_H
#define KILN_TENSOR_H

#include "kiln/DType.h"
#include "kiln/Error.h"

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kiln {

using Shape = std::vector<int64_t>;

namespace autograd {
struct AutogradMeta;
} // namespace autograd

/// "[2, 3]": shapes in error messages and printing.
std::string shapeStr(const Shape &shape);

/// The dims of a reduction: one dim (`sum(x, 1)`), a braced list
/// (`sum(x, {0, 2})`) or a Shape, like ATen's IntArrayRef.
class Dims {
public:
  Dims() = default;
  Dims(int64_t dim) : dims_{dim} {}
  Dims(std::initializer_list<int64_t> dims) : dims_(dims) {}
  Dims(Shape dims) : dims_(std::move(dims)) {}
  const Shape &vec() const { return dims_; }

private:
  Shape dims_;
};

/// A block of memory, and how to give it back.
class Storage {
public:
  /// Gives a block back: `owner` is what the block was adopted with (or
  /// what the device's allocator returned), `nbytes` its size.
  using Deleter = void (*)(void *owner, size_t nbytes);
  /// Allocates nbytes on device through that device's allocator.
  Storage(size_t nbytes, Device device);
  /// Adopts memory: data is where the elements start, and deleter(owner,
  /// nbytes) gives the block back when the last tensor on it goes; no
  /// deleter: borrowed memory, never freed here.
  Storage(void *data, size_t nbytes, void *owner, Deleter deleter,
          Device device = Device::cpu());
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;

  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Bumped by every in-place op on a tensor of this storage: autograd
  /// compares it with the version a saved tensor had (torch's version
  /// counter, shared by a tensor and its views).
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bumpVersion() { version_.fetch_add(1, std::memory_order_relaxed); }

private:
  void *data_;
  size_t nbytes_;
  Device device_;
  void *owner_ = nullptr;
  Deleter deleter_ = nullptr;
  std::atomic<uint32_t> version_{0};
};

class Tensor {
public:
  /// An undefined tensor (no storage), e.g. an absent bias.
  Tensor() = default;
  /// An uninitialised contiguous tensor.
  Tensor(const Shape &shape, DType dtype, Device device = Device::cpu());
  /// A view of existing storage.
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides,
         int64_t offset, DType dtype);

  bool defined() const { return storage_ != nullptr; }

  // Metadata.
  const Shape &shape() const { return shape_; }
  const Shape &sizes() const { return shape_; }
  const Shape &strides() const { return strides_; }
  /// Negative dims count from the end.
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;
  int64_t storage_offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  bool is_contiguous() const;
  const std::shared_ptr<Storage> &storage() const { return storage_; }
  /// Whether both tensors view the same storage.
  bool shares_storage(const Tensor &other) const {
    return storage_ && storage_ == other.storage_;
  }

  // Data access.
  /// Pointer to the first element (at the storage offset). T must match the
  /// dtype. The data may be strided: index it with strides(). For a tensor
  /// on a GPU, a device address.
  template <typename T> T *data() const {
    checkDType(DTypeOf<T>::value, "data");
    return static_cast<T *>(raw_data());
  }
  void *raw_data() const;
  /// The single element, converted to T. Throws when numel() != 1.
  template <typename T> T item() const;

  // Copies and conversions.
  Tensor clone() const;
  Tensor contiguous() const;
  /// A copy on `device` (this tensor when it is there already): to the GPU
  /// contiguous, back to the CPU in this tensor's shape (contiguous).
  /// Throws kiln::Error when there is no GPU.
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;

  // Views and reshapes.
  /// A view when the strides allow it, a copy otherwise. One dim may be -1.
  Tensor reshape(const Shape &shape) const;
  /// Always a view; throws when the strides do not allow it.
  Tensor view(const Shape &shape) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(const Shape &dims) const;
  Tensor unsqueeze(int64_t dim) const;
  /// Removes dim if its size is 1 (a no-op otherwise, as in torch).
  Tensor squeeze(int64_t dim) const;
  /// Removes every size-1 dim.
  Tensor squeeze() const;
  /// Elements start, start+step, ... < end along dim. Negative start/end
  /// count from the end; both are clamped to the size as in Python slicing.
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  /// Broadcasts size-1 dims (stride 0) to shape; -1 keeps a size.
  Tensor expand(const Shape &shape) const;
  /// expand to other's shape.
  Tensor expand_as(const Tensor &other) const;
  Tensor flatten(int64_t startDim = 0, int64_t endDim = -1) const;
  /// reshape (view) to other's shape.
  Tensor reshape_as(const Tensor &other) const;
  Tensor view_as(const Tensor &other) const;

  // Autograd (LibTorch's API; lib/Runtime/Core/Autograd.cpp).
  /// Makes this leaf record the ops on it (floating dtypes only); false
  /// stops it (leaves only).
  const Tensor &requires_grad_(bool requiresGrad = true) const;
  /// True for a leaf made to require grad and for every result computed
  /// from one while grad mode is on.
  bool requires_grad() const;
  /// The gradient backward() accumulated into this leaf; undefined before
  /// (and for a tensor that is not a leaf).
  Tensor grad() const;
  /// The gradient itself, to assign or reset (optimizers, zero_grad).
  Tensor &mutable_grad() const;
  /// Computes the gradients of this tensor with respect to the leaves it
  /// was computed from and accumulates them into their grad(). `gradient`
  /// (this tensor's shape) may be left out for a one-element tensor. The
  /// graph is freed afterwards unless retain_graph.
  void backward(const Tensor &gradient, bool retain_graph = false) const;
  void backward() const;
  /// The same data, cut off from the graph: never requires grad.
  Tensor detach() const;
  /// True unless computed by a recorded op (a tensor that does not require
  /// grad is a leaf).
  bool is_leaf() const;
  /// The name of the node that computes this tensor's gradient
  /// ("MulBackward0"), empty for a leaf.
  std::string grad_fn_name() const;
  /// The autograd state shared by every handle of this tensor (internal).
  autograd::AutogradMeta &autogradMeta() const;
  const std::shared_ptr<autograd::AutogradMeta> &autogradMetaPtr() const {
    return autograd_;
  }

  // In-place ops (torch's: the result is cast to this tensor's dtype, and
  // must be castable; `other` broadcasts to this tensor's shape).
  const Tensor &add_(const Tensor &other, Scalar alpha = 1) const;
  const Tensor &add_(Scalar other) const;
  const Tensor &sub_(const Tensor &other, Scalar alpha = 1) const;
  const Tensor &sub_(Scalar other) const;
  const Tensor &mul_(const Tensor &other) const;
  const Tensor &mul_(Scalar other) const;
  const Tensor &div_(const Tensor &other) const;
  const Tensor &div_(Scalar other) const;
  /// this += value * t1 * t2 (value / t1 / t2 for addcdiv_).
  const Tensor &addcmul_(const Tensor &t1, const Tensor &t2,
                         Scalar value = 1) const;
  const Tensor &addcdiv_(const Tensor &t1, const Tensor &t2,
                         Scalar value = 1) const;
  const Tensor &zero_() const;
  const Tensor &fill_(Scalar value) const;
  /// Copies src (broadcast, converted) into this tensor's elements.
  const Tensor &copy_(const Tensor &src) const;
  const Tensor &clamp_(std::optional<Scalar> min,
                       std::optional<Scalar> max = std::nullopt) const;
  /// `x += y` and the rest: add_, sub_, mul_, div_ (as LibTorch's).
  const Tensor &operator+=(const Tensor &other) const;
  const Tensor &operator+=(Scalar other) const;
  const Tensor &operator-=(const Tensor &other) const;
  const Tensor &operator-=(Scalar other) const;
  const Tensor &operator*=(const Tensor &other) const;
  const Tensor &operator*=(Scalar other) const;
  const Tensor &operator/=(const Tensor &other) const;
  const Tensor &operator/=(Scalar other) const;

  // ATen-style methods: the same as kiln's free functions of the same name
  // (`x.sum({-1}, true)` is `kiln::sum(x, {-1}, true)`), for code ported
  // from PyTorch (lib/Runtime/Ops/Methods.cpp).
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor silu() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor atan() const;
  Tensor erf() const;
  Tensor erfc() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor exp2() const;
  Tensor reciprocal() const;
  Tensor softplus() const;
  Tensor mish() const;
  Tensor hardswish() const;
  Tensor hardsigmoid() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor square() const;
  Tensor pow(Scalar exponent) const;
  Tensor pow(const Tensor &exponent) const;
  Tensor leaky_relu(Scalar negativeSlope = 0.01) const;
  Tensor elu(Scalar alpha = 1.0) const;
  Tensor clamp(std::optional<Scalar> min,
               std::optional<Scalar> max = std::nullopt) const;
  Tensor masked_fill(const Tensor &mask, Scalar value) const;
  Tensor masked_fill(const Tensor &mask, const Tensor &value) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor bmm(const Tensor &other) const;
  Tensor gather(int64_t dim, const Tensor &index) const;
  Tensor scatter_add(int64_t dim, const Tensor &index, const Tensor &src) const;
  Tensor cumsum(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1,
                                  bool largest = true,
                                  bool sorted = true) const;
  Tensor index_select(int64_t dim, const Tensor &index) const;
  Tensor flip(const Dims &dims) const;
  Tensor roll(const Shape &shifts, const Dims &dims = {}) const;
  Tensor repeat(const Shape &reps) const;
  Tensor tile(const Shape &reps) const;
  Tensor unflatten(int64_t dim, const Shape &sizes) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t size, int64_t dim = 0) const;
  std::vector<Tensor> split(const Shape &sizes, int64_t dim = 0) const;
  Tensor addmm(const Tensor &m1, const Tensor &m2, Scalar beta = 1,
               Scalar alpha = 1) const;
  Tensor baddbmm(const Tensor &b1, const Tensor &b2, Scalar beta = 1,
                 Scalar alpha = 1) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor lerp(const Tensor &end, Scalar weight) const;
  Tensor sign() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor logical_and(const Tensor &other) const;
  Tensor logical_or(const Tensor &other) const;
  Tensor logical_not() const;
  Tensor gelu(const std::string &approximate = "none") const;
  Tensor sum(const Dims &dims = {}, bool keepdim = false) const;
  Tensor mean(const Dims &dims = {}, bool keepdim = false) const;
  Tensor amax(const Dims &dims = {}, bool keepdim = false) const;
  Tensor amin(const Dims &dims = {}, bool keepdim = false) const;
  Tensor prod(const Dims &dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false) const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor matmul(const Tensor &other) const;
  Tensor maximum(const Tensor &other) const;
  Tensor minimum(const Tensor &other) const;

  /// Throws kiln::Error unless the tensor is defined and on the CPU.
  void checkDefined(const char *op) const;

private:
  void checkDType(DType expected, const char *op) const;
  void checkSingleElement() const;
  Tensor cloneData() const;
  Tensor toDevice(Device target) const;
  double itemAsDouble() const;
  int64_t itemAsInt() const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::F32;
  /// Made with the tensor, shared by its handles; null when undefined.
  std::shared_ptr<autograd::AutogradMeta> autograd_;
};

template <typename T> T Tensor::item() const {
  if constexpr (std::is_same<T, bool>::value)
    return itemAsDouble() != 0.0;
  else if constexpr (std::is_integral<T>::value)
    return static_cast<T>(itemAsInt());
  else
    return static_cast<T>(itemAsDouble());
}

/// Normalises a possibly negative dim against rank, throwing a kiln::Error
/// that names op when it is out of range.
int64_t wrapDim(int64_t dim, int64_t rank, const char *op);
/// Row-major strides of shape.
Shape contiguousStrides(const Shape &shape);
/// The product of the sizes.
int64_t shapeNumel(const Shape &shape);

/// Prints like torch: tensor([[1.0000, 2.0000], ...]), summarised with "..."
/// beyond 1000 elements.
std::ostream &operator<<(std::ostream &os, const Tensor &t);
std::string toString(const Tensor &t);

} // namespace kiln

#endif // KILN_TENSOR_H
