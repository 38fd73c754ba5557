//===- Tensor.cpp - Storage, metadata, views and copies -------------------===//
#include "kiln/Tensor.h"
#include "kiln/Ops.h"
#include "kiln/abi.h"

#include "Core/Allocator.h"
#include "Core/Autograd.h"
#include "Core/Device.h"
#include "Core/Dispatch.h"
#include "Core/Loops.h"
#include "Core/Stats.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace kiln {

using detail::dispatchAll;
using detail::TypeTag;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string shapeStr(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t wrapDim(int64_t dim, int64_t rank, const char *op) {
  // A 0-d tensor accepts dims -1 and 0, as in torch.
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r)
    throw Error(std::string(op) + ": dim " + std::to_string(dim) +
                " is out of range for a tensor of rank " +
                std::to_string(rank) + " (expected a dim in [" +
                std::to_string(-r) + ", " + std::to_string(r - 1) + "])");
  return dim < 0 ? dim + r : dim;
}

Shape contiguousStrides(const Shape &shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

int64_t shapeNumel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

static void checkShape(const Shape &shape, const char *op) {
  for (int64_t s : shape)
    if (s < 0)
      throw Error(std::string(op) + ": negative size in shape " +
                  shapeStr(shape));
}

//===----------------------------------------------------------------------===//
// Storage and construction
//===----------------------------------------------------------------------===//

/// Throws unless device is one the runtime can hold data on.
static void checkDevice(Device device, const char *op) {
  if (device.type == DeviceType::CUDA && device.index != 0)
    throw Error(std::string(op) + ": " + device.str() +
                ": the runtime uses one GPU, cuda:0");
}

Storage::Storage(size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device) {
  checkDevice(device, "tensor allocation");
  detail::Block block = detail::allocate(nbytes, device);
  data_ = owner_ = block.data;
  deleter_ = block.free;
}

Storage::Storage(void *data, size_t nbytes, void *owner, Deleter deleter,
                 Device device)
    : data_(data), nbytes_(nbytes), device_(device), owner_(owner),
      deleter_(deleter) {}

Storage::~Storage() {
  if (deleter_)
    deleter_(owner_, nbytes_);
}

Tensor::Tensor(const Shape &shape, DType dtype, Device device)
    : shape_(shape), strides_(contiguousStrides(shape)), dtype_(dtype) {
  checkShape(shape, "tensor");
  storage_ = std::make_shared<Storage>(
      static_cast<size_t>(shapeNumel(shape)) * elementSize(dtype), device);
  autograd_ = std::make_shared<autograd::AutogradMeta>();
}

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides,
               int64_t offset, DType dtype)
    : storage_(std::move(storage)), shape_(std::move(shape)),
      strides_(std::move(strides)), offset_(offset), dtype_(dtype) {
  if (storage_)
    autograd_ = std::make_shared<autograd::AutogradMeta>();
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

void Tensor::checkDefined(const char *op) const {
  if (!defined())
    throw Error(std::string(op) + ": undefined tensor");
}

int64_t Tensor::size(int64_t d) const {
  checkDefined("size");
  if (shape_.empty())
    throw Error("size: dim " + std::to_string(d) +
                " is out of range for a tensor of rank 0");
  return shape_[wrapDim(d, dim(), "size")];
}

int64_t Tensor::stride(int64_t d) const {
  checkDefined("stride");
  if (shape_.empty())
    throw Error("stride: dim " + std::to_string(d) +
                " is out of range for a tensor of rank 0");
  return strides_[wrapDim(d, dim(), "stride")];
}

int64_t Tensor::numel() const { return shapeNumel(shape_); }

Device Tensor::device() const {
  return storage_ ? storage_->device() : Device::cpu();
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1)
      continue;
    if (shape_[i] == 0)
      return true;
    if (strides_[i] != expected)
      return false;
    expected *= shape_[i];
  }
  return true;
}

void *Tensor::raw_data() const {
  checkDefined("data");
  return static_cast<char *>(storage_->data()) +
         offset_ * static_cast<int64_t>(elementSize(dtype_));
}

void Tensor::checkDType(DType expected, const char *op) const {
  checkDefined(op);
  if (dtype_ != expected)
    throw Error(std::string(op) + ": requested " + dtypeName(expected) +
                " data from a tensor of dtype " + dtypeName(dtype_));
}

void Tensor::checkSingleElement() const {
  checkDefined("item");
  if (numel() != 1)
    throw Error("item: a tensor with " + std::to_string(numel()) +
                " elements (shape " + shapeStr(shape_) +
                ") cannot be converted to a scalar");
}

double Tensor::itemAsDouble() const {
  checkSingleElement();
  if (device().type != DeviceType::CPU)
    return to(Device::cpu()).itemAsDouble();
  return dispatchAll(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return detail::convertValue<double>(*static_cast<const T *>(raw_data()));
  });
}

int64_t Tensor::itemAsInt() const {
  checkSingleElement();
  if (device().type != DeviceType::CPU)
    return to(Device::cpu()).itemAsInt();
  return dispatchAll(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return detail::convertValue<int64_t>(*static_cast<const T *>(raw_data()));
  });
}

//===----------------------------------------------------------------------===//
// Copies and conversions
//===----------------------------------------------------------------------===//

/// The bytes of t's elements (t contiguous).
static size_t nbytes(const Tensor &t) {
  return static_cast<size_t>(t.numel()) * elementSize(t.dtype());
}

namespace detail {
/// dst (contiguous, dst's dtype) = src converted elementwise.
void copyConvert(const Tensor &dst, const Tensor &src) {
  dispatchAll(src.dtype(), [&](auto srcTag) {
    using S = typename decltype(srcTag)::type;
    dispatchAll(dst.dtype(), [&](auto dstTag) {
      using D = typename decltype(dstTag)::type;
      unaryLoop<D, S>(dst, src, [](S v) { return convertValue<D>(v); });
    });
  });
}
} // namespace detail

namespace {
/// Records out = a copy of in (clone, to): the gradient passes through,
/// converted back to in's dtype and device.
void recordCopy(autograd::Recorder &grad, const Tensor &out, Device from) {
  if (grad)
    grad.record(out, [from](const autograd::Grads &g, const autograd::Needs &) {
      return autograd::Grads{g[0].to(from)};
    });
}
} // namespace

Tensor Tensor::clone() const {
  detail::CountedOp counted;
  checkDefined("clone");
  autograd::Recorder grad("CloneBackward0", *this);
  Tensor out = cloneData();
  recordCopy(grad, out, device());
  return out;
}

Tensor Tensor::cloneData() const {
  if (device().type != DeviceType::CPU) {
    if (!is_contiguous())
      return to(Device::cpu()).to(device());
    Tensor out(shape_, dtype_, device());
    detail::deviceBackend(device().type, "clone")
        .copyOnDevice(out.raw_data(), raw_data(), nbytes(*this));
    return out;
  }
  Tensor out(shape_, dtype_, device());
  detail::copyConvert(out, *this);
  return out;
}

Tensor Tensor::contiguous() const {
  detail::CountedOp counted;
  checkDefined("contiguous");
  return is_contiguous() ? *this : clone();
}

Tensor Tensor::to(Device target) const {
  detail::CountedOp counted;
  checkDefined("to");
  checkDevice(target, "to");
  if (target == device())
    return *this;
  autograd::Recorder grad("ToCopyBackward0", *this);
  Tensor out = toDevice(target);
  recordCopy(grad, out, device());
  return out;
}

Tensor Tensor::toDevice(Device target) const {
  if (device().type == DeviceType::CPU) {
    const detail::DeviceBackend &backend =
        detail::deviceBackend(target.type, "to");
    std::string device = target.str();
    backend.require(("to(" + device.substr(0, device.find(':')) + ")").c_str());
    Tensor src = contiguous();
    Tensor out(shape_, dtype_, target);
    backend.copyToDevice(out.raw_data(), src.raw_data(), nbytes(src));
    return out;
  }
  if (is_contiguous()) {
    Tensor out(shape_, dtype_, Device::cpu());
    detail::deviceBackend(device().type, "to")
        .copyToHost(out.raw_data(), raw_data(), nbytes(*this));
    return out;
  }
  // A strided view: bring the span of storage it covers to the host, view
  // it there the same way, and make that contiguous.
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 0)
      return Tensor(shape_, dtype_, Device::cpu());
    int64_t reach = (shape_[i] - 1) * strides_[i];
    (reach < 0 ? lo : hi) += reach;
  }
  Tensor span({hi - lo + 1}, dtype_, Device::cpu());
  int64_t size = static_cast<int64_t>(elementSize(dtype_));
  detail::deviceBackend(device().type, "to")
      .copyToHost(span.raw_data(), static_cast<char *>(raw_data()) + lo * size,
                  static_cast<size_t>((hi - lo + 1) * size));
  return Tensor(span.storage(), shape_, strides_, -lo, dtype_).contiguous();
}

Tensor Tensor::to(DType target) const {
  detail::CountedOp counted;
  checkDefined("to");
  if (target == dtype_)
    return *this;
  autograd::Recorder grad("ToCopyBackward0", *this);
  Tensor out;
  if (device().type != DeviceType::CPU) {
    out = to(Device::cpu()).to(target).to(device());
  } else {
    out = Tensor(shape_, target, device());
    detail::copyConvert(out, *this);
  }
  recordCopy(grad, out, device());
  return out;
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

namespace {
using autograd::Grads;
using autograd::Needs;

/// A view of self's storage, recorded for autograd as `node` with backward
/// fn. A view of a computed tensor checks at backward that the storage was
/// not modified in place since (an in-place op on the base changes the
/// base's history, not the view's: torch regenerates the view's, Kiln
/// raises). A view of a leaf saves nothing: a parameter updated under
/// no_grad keeps its views valid, as in torch. makeFn() gives the backward
/// function, made only when the view is recorded.
template <typename MakeFn>
Tensor makeView(const Tensor &self, Shape shape, Shape strides, int64_t offset,
                const char *node, const MakeFn &makeFn) {
  autograd::Recorder grad(node, self);
  Tensor out(self.storage(), std::move(shape), std::move(strides), offset,
             self.dtype());
  if (grad) {
    autograd::SavedTensor check;
    if (!self.is_leaf())
      check = grad.save(out, true);
    grad.record(out, [check, fn = makeFn()](const Grads &g, const Needs &n) {
      check.get();
      return fn(g, n);
    });
  }
  autograd::markView(out);
  return out;
}

/// The backward of a view that only rearranges: the gradient reshaped back.
struct ReshapeBack {
  Shape inputShape;
  Grads operator()(const Grads &g, const Needs &) const {
    return Grads{g[0].reshape(inputShape)};
  }
};
} // namespace

/// Resolves a -1 in a requested shape against numel.
static Shape inferShape(const Shape &requested, int64_t numel, const char *op) {
  Shape shape = requested;
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        throw Error(std::string(op) + ": only one dim can be -1 in " +
                    shapeStr(requested));
      inferred = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw Error(std::string(op) + ": invalid size " +
                  std::to_string(shape[i]) + " in " + shapeStr(requested));
    } else {
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0)
      throw Error(std::string(op) + ": shape " + shapeStr(requested) +
                  " is invalid for input of size " + std::to_string(numel));
    shape[inferred] = numel / known;
  } else if (known != numel) {
    throw Error(std::string(op) + ": shape " + shapeStr(requested) +
                " is invalid for input of size " + std::to_string(numel));
  }
  return shape;
}

/// Strides that view old (shape, strides) data as newShape without copying,
/// or an empty optional-like result (ok=false). ATen's computeStride.
static bool viewStrides(const Shape &oldShape, const Shape &oldStrides,
                        const Shape &newShape, Shape &newStrides) {
  newStrides.assign(newShape.size(), 0);
  if (oldShape.empty() || shapeNumel(oldShape) == 0) {
    newStrides = contiguousStrides(newShape);
    return true;
  }
  int64_t viewD = static_cast<int64_t>(newShape.size()) - 1;
  int64_t chunkBase = oldStrides.empty() ? 1 : oldStrides.back();
  int64_t tensorNumel = 1, viewNumel = 1;
  for (int64_t d = static_cast<int64_t>(oldShape.size()) - 1; d >= 0; --d) {
    tensorNumel *= oldShape[d];
    if (d == 0 || (oldShape[d - 1] != 1 &&
                   oldStrides[d - 1] != tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
        newStrides[viewD] = viewNumel * chunkBase;
        viewNumel *= newShape[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel)
        return false;
      if (d > 0) {
        chunkBase = oldStrides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  return viewD == -1;
}

Tensor Tensor::view(const Shape &requested) const {
  detail::CountedOp counted;
  checkDefined("view");
  Shape shape = inferShape(requested, numel(), "view");
  Shape strides;
  if (!viewStrides(shape_, strides_, shape, strides))
    throw Error("view: shape " + shapeStr(requested) +
                " is not compatible with the strides of a tensor of shape " +
                shapeStr(shape_) + " and strides " + shapeStr(strides_) +
                "; use reshape() instead");
  return makeView(*this, shape, strides, offset_, "ViewBackward0",
                  [&] { return ReshapeBack{shape_}; });
}

Tensor Tensor::reshape(const Shape &requested) const {
  detail::CountedOp counted;
  checkDefined("reshape");
  Shape shape = inferShape(requested, numel(), "reshape");
  Shape strides;
  if (viewStrides(shape_, strides_, shape, strides))
    return makeView(*this, shape, strides, offset_, "ViewBackward0",
                    [&] { return ReshapeBack{shape_}; });
  return clone().view(shape);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  detail::CountedOp counted;
  checkDefined("transpose");
  int64_t d0 = wrapDim(dim0, dim(), "transpose");
  int64_t d1 = wrapDim(dim1, dim(), "transpose");
  if (shape_.empty())
    return *this;
  Shape shape = shape_, strides = strides_;
  std::swap(shape[d0], shape[d1]);
  std::swap(strides[d0], strides[d1]);
  return makeView(*this, shape, strides, offset_, "TransposeBackward0", [&] {
    return [d0, d1](const Grads &g, const Needs &) {
      return Grads{g[0].transpose(d0, d1)};
    };
  });
}

Tensor Tensor::permute(const Shape &dims) const {
  detail::CountedOp counted;
  checkDefined("permute");
  if (static_cast<int64_t>(dims.size()) != dim())
    throw Error("permute: " + std::to_string(dims.size()) +
                " dims given for a tensor of rank " + std::to_string(dim()) +
                " (dims " + shapeStr(dims) + ")");
  Shape shape(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrapDim(dims[i], dim(), "permute");
    if (seen[d])
      throw Error("permute: dim " + std::to_string(dims[i]) + " repeats in " +
                  shapeStr(dims));
    seen[d] = true;
    shape[i] = shape_[d];
    strides[i] = strides_[d];
  }
  return makeView(*this, shape, strides, offset_, "PermuteBackward0", [&] {
    Shape inverse(dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
      inverse[wrapDim(dims[i], dim(), "permute")] = static_cast<int64_t>(i);
    return [inverse](const Grads &g, const Needs &) {
      return Grads{g[0].permute(inverse)};
    };
  });
}

Tensor Tensor::unsqueeze(int64_t d) const {
  detail::CountedOp counted;
  checkDefined("unsqueeze");
  int64_t pos = wrapDim(d, dim() + 1, "unsqueeze");
  Shape shape = shape_, strides = strides_;
  int64_t stride = pos < dim() ? shape_[pos] * strides_[pos] : 1;
  shape.insert(shape.begin() + pos, 1);
  strides.insert(strides.begin() + pos, stride);
  return makeView(*this, shape, strides, offset_, "UnsqueezeBackward0",
                  [&] { return ReshapeBack{shape_}; });
}

Tensor Tensor::squeeze(int64_t d) const {
  detail::CountedOp counted;
  checkDefined("squeeze");
  int64_t pos = wrapDim(d, dim(), "squeeze");
  if (shape_.empty() || shape_[pos] != 1)
    return *this;
  Shape shape = shape_, strides = strides_;
  shape.erase(shape.begin() + pos);
  strides.erase(strides.begin() + pos);
  return makeView(*this, shape, strides, offset_, "SqueezeBackward1",
                  [&] { return ReshapeBack{shape_}; });
}

Tensor Tensor::squeeze() const {
  detail::CountedOp counted;
  checkDefined("squeeze");
  Shape shape, strides;
  for (size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != 1) {
      shape.push_back(shape_[i]);
      strides.push_back(strides_[i]);
    }
  return makeView(*this, shape, strides, offset_, "SqueezeBackward0",
                  [&] { return ReshapeBack{shape_}; });
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t end,
                     int64_t step) const {
  detail::CountedOp counted;
  checkDefined("slice");
  if (shape_.empty())
    throw Error("slice: cannot slice a 0-d tensor");
  int64_t pos = wrapDim(d, dim(), "slice");
  if (step <= 0)
    throw Error("slice: step must be positive, got " + std::to_string(step));
  int64_t n = shape_[pos];
  // Like Python slicing and ATen's slice: a negative start or end counts
  // from the end, and both are clamped into [0, n] (x.slice(0, 11, 12) of
  // 10 elements is empty).
  auto clamp = [n](int64_t v) {
    if (v < 0)
      v = std::max<int64_t>(v + n, 0);
    return std::min(v, n);
  };
  start = clamp(start);
  end = clamp(end);
  int64_t len = end > start ? (end - start + step - 1) / step : 0;
  Shape shape = shape_, strides = strides_;
  shape[pos] = len;
  strides[pos] = strides_[pos] * step;
  return makeView(*this, shape, strides, offset_ + start * strides_[pos],
                  "SliceBackward0", [&] {
                    return [inputShape = shape_, pos, start, end,
                            step](const Grads &g, const Needs &) {
                      // The gradient scattered into zeros (torch's
                      // slice_backward).
                      Tensor out = zeros(inputShape, g[0].dtype());
                      out.slice(pos, start, end, step).copy_(g[0]);
                      return Grads{out};
                    };
                  });
}

Tensor Tensor::expand(const Shape &target) const {
  detail::CountedOp counted;
  checkDefined("expand");
  if (target.size() < shape_.size())
    throw Error("expand: cannot expand shape " + shapeStr(shape_) +
                " to the lower-rank shape " + shapeStr(target));
  size_t lead = target.size() - shape_.size();
  Shape shape(target.size()), strides(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    if (i < lead) {
      if (target[i] < 0)
        throw Error("expand: -1 is not allowed for the new leading dim " +
                    std::to_string(i) + " in " + shapeStr(target));
      shape[i] = target[i];
      strides[i] = 0;
      continue;
    }
    int64_t have = shape_[i - lead];
    int64_t want = target[i] == -1 ? have : target[i];
    if (have == want) {
      shape[i] = have;
      strides[i] = strides_[i - lead];
    } else if (have == 1 && want >= 0) {
      shape[i] = want;
      strides[i] = 0;
    } else {
      throw Error("expand: the size " + std::to_string(have) + " of dim " +
                  std::to_string(i - lead) + " of shape " + shapeStr(shape_) +
                  " cannot be expanded to " + std::to_string(want) +
                  " (target " + shapeStr(target) + ")");
    }
  }
  return makeView(*this, shape, strides, offset_, "ExpandBackward0", [&] {
    return [inputShape = shape_](const Grads &g, const Needs &) {
      return Grads{autograd::sumTo(g[0], inputShape)};
    };
  });
}

Tensor Tensor::flatten(int64_t startDim, int64_t endDim) const {
  detail::CountedOp counted;
  checkDefined("flatten");
  if (shape_.empty())
    return reshape({1});
  int64_t s = wrapDim(startDim, dim(), "flatten");
  int64_t e = wrapDim(endDim, dim(), "flatten");
  if (s > e)
    throw Error("flatten: start dim " + std::to_string(startDim) +
                " comes after end dim " + std::to_string(endDim));
  Shape shape(shape_.begin(), shape_.begin() + s);
  int64_t merged = 1;
  for (int64_t i = s; i <= e; ++i)
    merged *= shape_[i];
  shape.push_back(merged);
  shape.insert(shape.end(), shape_.begin() + e + 1, shape_.end());
  return reshape(shape);
}

} // namespace kiln
