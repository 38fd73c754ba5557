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
Tensor Tensor::sin() const { return kiln::sin(*this); }
Tensor Tensor::cos() const { return kiln::cos(*this); }
Tensor Tensor::tan() const { return kiln::tan(*this); }
Tensor Tensor::atan() const { return kiln::atan(*this); }
Tensor Tensor::erf() const { return kiln::erf(*this); }
Tensor Tensor::erfc() const { return kiln::erfc(*this); }
Tensor Tensor::log1p() const { return kiln::log1p(*this); }
Tensor Tensor::expm1() const { return kiln::expm1(*this); }
Tensor Tensor::log2() const { return kiln::log2(*this); }
Tensor Tensor::log10() const { return kiln::log10(*this); }
Tensor Tensor::exp2() const { return kiln::exp2(*this); }
Tensor Tensor::reciprocal() const { return kiln::reciprocal(*this); }
Tensor Tensor::softplus() const { return kiln::softplus(*this); }
Tensor Tensor::mish() const { return kiln::mish(*this); }
Tensor Tensor::hardswish() const { return kiln::hardswish(*this); }
Tensor Tensor::hardsigmoid() const { return kiln::hardsigmoid(*this); }
Tensor Tensor::floor() const { return kiln::floor(*this); }
Tensor Tensor::ceil() const { return kiln::ceil(*this); }
Tensor Tensor::round() const { return kiln::round(*this); }
Tensor Tensor::trunc() const { return kiln::trunc(*this); }
Tensor Tensor::square() const { return kiln::square(*this); }
Tensor Tensor::pow(Scalar exponent) const { return kiln::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor &exponent) const {
  return kiln::pow(*this, exponent);
}
Tensor Tensor::leaky_relu(Scalar negativeSlope) const {
  return kiln::leaky_relu(*this, negativeSlope);
}
Tensor Tensor::elu(Scalar alpha) const { return kiln::elu(*this, alpha); }
Tensor Tensor::clamp(std::optional<Scalar> min,
                     std::optional<Scalar> max) const {
  return kiln::clamp(*this, min, max);
}
Tensor Tensor::masked_fill(const Tensor &mask, Scalar value) const {
  return kiln::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor &mask, const Tensor &value) const {
  return kiln::masked_fill(*this, mask, value);
}
Tensor Tensor::tril(int64_t diagonal) const {
  return kiln::tril(*this, diagonal);
}
Tensor Tensor::triu(int64_t diagonal) const {
  return kiln::triu(*this, diagonal);
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return kiln::narrow(*this, dim, start, length);
}
Tensor Tensor::select(int64_t dim, int64_t index) const {
  return kiln::select(*this, dim, index);
}
Tensor Tensor::bmm(const Tensor &other) const {
  return kiln::bmm(*this, other);
}
Tensor Tensor::addmm(const Tensor &m1, const Tensor &m2, Scalar beta,
                     Scalar alpha) const {
  return kiln::addmm(*this, m1, m2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor &b1, const Tensor &b2, Scalar beta,
                       Scalar alpha) const {
  return kiln::baddbmm(*this, b1, b2, beta, alpha);
}
Tensor Tensor::lerp(const Tensor &end, Scalar weight) const {
  return kiln::lerp(*this, end, weight);
}
Tensor Tensor::sign() const { return kiln::sign(*this); }
Tensor Tensor::isnan() const { return kiln::isnan(*this); }
Tensor Tensor::isinf() const { return kiln::isinf(*this); }
Tensor Tensor::isfinite() const { return kiln::isfinite(*this); }
Tensor Tensor::logical_and(const Tensor &other) const {
  return kiln::logical_and(*this, other);
}
Tensor Tensor::logical_or(const Tensor &other) const {
  return kiln::logical_or(*this, other);
}
Tensor Tensor::logical_not() const { return kiln::logical_not(*this); }
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
Tensor Tensor::prod(const Dims &dims, bool keepdim) const {
  return kiln::prod(*this, dims, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return kiln::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return kiln::argmin(*this, dim, keepdim);
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
