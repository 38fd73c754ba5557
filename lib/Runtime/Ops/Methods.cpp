//===- Methods.cpp - ATen-style Tensor methods ----------------------------===//
//
// x.sum(dims, keepdim), x.exp(), x.matmul(w), ...: each is kiln's free
// function of the same name (counted once, as that op), for code ported
// from PyTorch.
//
//===----------------------------------------------------------------------===//
#include "kiln/Ops.h"

namespace kiln {

Tensor Tensor::abs() const { return kiln::abs(*this); }
Tensor Tensor::exp() const { return kiln::exp(*this); }
Tensor Tensor::log() const { return kiln::log(*this); }
Tensor Tensor::sqrt() const { return kiln::sqrt(*this); }
Tensor Tensor::rsqrt() const { return kiln::rsqrt(*this); }
Tensor Tensor::tanh() const { return kiln::tanh(*this); }
Tensor Tensor::sigmoid() const { return kiln::sigmoid(*this); }
Tensor Tensor::relu() const { return kiln::relu(*this); }
Tensor Tensor::silu() const { return kiln::silu(*this); }
Tensor Tensor::gelu(const std::string &approximate) const {
  return kiln::gelu(*this, approximate);
}
Tensor Tensor::sum(const Dims &dims, bool keepdim) const {
  return kiln::sum(*this, dims, keepdim);
}
Tensor Tensor::mean(const Dims &dims, bool keepdim) const {
  return kiln::mean(*this, dims, keepdim);
}
Tensor Tensor::amax(const Dims &dims, bool keepdim) const {
  return kiln::amax(*this, dims, keepdim);
}
Tensor Tensor::amin(const Dims &dims, bool keepdim) const {
  return kiln::amin(*this, dims, keepdim);
}
Tensor Tensor::softmax(int64_t dim) const { return kiln::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const {
  return kiln::log_softmax(*this, dim);
}
Tensor Tensor::matmul(const Tensor &other) const {
  return kiln::matmul(*this, other);
}
Tensor Tensor::maximum(const Tensor &other) const {
  return kiln::maximum(*this, other);
}
Tensor Tensor::minimum(const Tensor &other) const {
  return kiln::minimum(*this, other);
}

} // namespace kiln
