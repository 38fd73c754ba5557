//===- kiln/Ops.h - The eager operators -------------------------*- C++ -*-===//
//
// Names and semantics follow ATen (docs/runtime.md lists the differences).
// Binary ops and where() broadcast like numpy and promote types like torch.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_H
#define KILN_OPS_H

#include "kiln/Tensor.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kiln {

//===----------------------------------------------------------------------===//
// Factories (CPU; float32 unless asked otherwise)
//===----------------------------------------------------------------------===//

Tensor empty(const Shape &shape, DType dtype = kFloat32);
Tensor zeros(const Shape &shape, DType dtype = kFloat32);
Tensor ones(const Shape &shape, DType dtype = kFloat32);
Tensor full(const Shape &shape, Scalar value, DType dtype = kFloat32);
/// 0, 1, ..., n-1 as int64 (torch.arange of an integer).
Tensor arange(int64_t n);
/// start, start+step, ... < end; int64 when all three are integers, float32
/// otherwise.
Tensor arange(Scalar start, Scalar end, Scalar step = 1);
/// The [n, m] identity (m = n when -1): ones on the diagonal.
Tensor eye(int64_t n, int64_t m = -1, DType dtype = kFloat32);
/// steps values from start to end, evenly spaced (torch's: the first half
/// counted up from start, the second down from end; both ends exact).
/// Floating dtypes.
Tensor linspace(double start, double end, int64_t steps,
                DType dtype = kFloat32);
/// Standard normal samples, the same for a given seed on every machine
/// (SplitMix64 counters and Box-Muller; see docs/runtime.md).
Tensor randn(const Shape &shape, uint64_t seed, DType dtype = kFloat32);
/// Uniform in [0, 1): element i is the top 53 bits of SplitMix64(seed, i)
/// as a double, converted to dtype (floating). kiln's own generator, the
/// same in eager and compiled code (not torch's stream).
Tensor rand(const Shape &shape, uint64_t seed, DType dtype = kFloat32);
/// Integers uniform in [low, high): floor(rand(shape, seed, float64) *
/// (high - low)) + low, as dtype (int64 by default).
Tensor randint(int64_t low, int64_t high, const Shape &shape, uint64_t seed,
               DType dtype = kInt64);
Tensor randint(int64_t high, const Shape &shape, uint64_t seed,
               DType dtype = kInt64);

namespace detail {
/// Throws unless count values exactly fill t.
void checkValueCount(size_t count, const Tensor &t);
} // namespace detail

template <typename T>
Tensor from_vector(const std::vector<T> &values, const Shape &shape) {
  Tensor t(shape, DTypeOf<T>::value);
  detail::checkValueCount(values.size(), t);
  T *out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = values[i];
  return t;
}
/// from_vector<bool> (std::vector<bool> is packed).
Tensor from_vector(const std::vector<bool> &values, const Shape &shape);

//===----------------------------------------------------------------------===//
// Elementwise arithmetic, broadcasting
//===----------------------------------------------------------------------===//

Tensor add(const Tensor &a, const Tensor &b);
Tensor sub(const Tensor &a, const Tensor &b);
Tensor mul(const Tensor &a, const Tensor &b);
/// True division: integer operands give float32.
Tensor div(const Tensor &a, const Tensor &b);
Tensor neg(const Tensor &a);
Tensor pow(const Tensor &a, const Tensor &b);
Tensor pow(const Tensor &a, Scalar exponent);
Tensor maximum(const Tensor &a, const Tensor &b);
Tensor minimum(const Tensor &a, const Tensor &b);
Tensor maximum(const Tensor &a, Scalar b);
Tensor maximum(Scalar a, const Tensor &b);
Tensor minimum(const Tensor &a, Scalar b);
Tensor minimum(Scalar a, const Tensor &b);
/// min(max(x, min), max), either bound left out with std::nullopt (at
/// least one given); NaN propagates; the dtype is result_type(x, bounds).
Tensor clamp(const Tensor &x, std::optional<Scalar> min,
             std::optional<Scalar> max = std::nullopt);
/// mask (bool, broadcastable to x's shape) ? value : x, in x's dtype.
Tensor masked_fill(const Tensor &x, const Tensor &mask, Scalar value);
/// The same with a 0-d tensor's value (converted to x's dtype), through
/// which a gradient flows, as torch's masked_fill.Tensor.
Tensor masked_fill(const Tensor &x, const Tensor &mask, const Tensor &value);
/// The lower (upper) triangle of the last two dims: elements (i, j) with
/// j - i <= diagonal (>= diagonal) kept, the others zero; rank >= 2.
Tensor tril(const Tensor &x, int64_t diagonal = 0);
Tensor triu(const Tensor &x, int64_t diagonal = 0);
/// start + weight * (end - start), from the nearer end (floating tensors
/// of one dtype).
Tensor lerp(const Tensor &start, const Tensor &end, Scalar weight);
/// -1, 0 or 1 in x's dtype; NaN gives 0, as ATen's sign does.
Tensor sign(const Tensor &x);
/// A tensor of x's shape and dtype filled with value (empty_like's
/// elements are zeros here).
Tensor full_like(const Tensor &x, Scalar value);
Tensor zeros_like(const Tensor &x);
Tensor ones_like(const Tensor &x);
Tensor empty_like(const Tensor &x);
/// Bool results: NaN, +-inf, neither (integers are always finite).
Tensor isnan(const Tensor &x);
Tensor isinf(const Tensor &x);
Tensor isfinite(const Tensor &x);
/// Elementwise logic on any dtypes, non-zero as true; bool results.
Tensor logical_and(const Tensor &a, const Tensor &b);
Tensor logical_or(const Tensor &a, const Tensor &b);
Tensor logical_not(const Tensor &x);

Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, Scalar b);
Tensor operator-(const Tensor &a, Scalar b);
Tensor operator*(const Tensor &a, Scalar b);
Tensor operator/(const Tensor &a, Scalar b);
Tensor operator+(Scalar a, const Tensor &b);
Tensor operator-(Scalar a, const Tensor &b);
Tensor operator*(Scalar a, const Tensor &b);
Tensor operator/(Scalar a, const Tensor &b);
Tensor operator-(const Tensor &a);

// Comparisons give bool tensors.
Tensor operator<(const Tensor &a, const Tensor &b);
Tensor operator<=(const Tensor &a, const Tensor &b);
Tensor operator>(const Tensor &a, const Tensor &b);
Tensor operator>=(const Tensor &a, const Tensor &b);
Tensor operator==(const Tensor &a, const Tensor &b);
Tensor operator!=(const Tensor &a, const Tensor &b);
Tensor operator<(const Tensor &a, Scalar b);
Tensor operator<=(const Tensor &a, Scalar b);
Tensor operator>(const Tensor &a, Scalar b);
Tensor operator>=(const Tensor &a, Scalar b);
Tensor operator==(const Tensor &a, Scalar b);
Tensor operator!=(const Tensor &a, Scalar b);
Tensor operator<(Scalar a, const Tensor &b);
Tensor operator<=(Scalar a, const Tensor &b);
Tensor operator>(Scalar a, const Tensor &b);
Tensor operator>=(Scalar a, const Tensor &b);
Tensor operator==(Scalar a, const Tensor &b);
Tensor operator!=(Scalar a, const Tensor &b);

/// cond ? a : b elementwise; cond must be bool; all three broadcast.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b);
Tensor where(const Tensor &cond, const Tensor &a, Scalar b);
Tensor where(const Tensor &cond, Scalar a, const Tensor &b);

//===----------------------------------------------------------------------===//
// Elementwise functions (integer inputs of the floating functions give
// float32, as in torch)
//===----------------------------------------------------------------------===//

Tensor abs(const Tensor &x);
Tensor exp(const Tensor &x);
Tensor log(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor rsqrt(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor relu(const Tensor &x);
/// approximate = "none" (the exact erf form, torch's default) or "tanh".
Tensor gelu(const Tensor &x, const std::string &approximate = "none");
Tensor silu(const Tensor &x);
Tensor sin(const Tensor &x);
Tensor cos(const Tensor &x);
Tensor tan(const Tensor &x);
Tensor atan(const Tensor &x);
Tensor erf(const Tensor &x);
Tensor erfc(const Tensor &x);
/// log(1 + x) and exp(x) - 1, accurate for small x.
Tensor log1p(const Tensor &x);
Tensor expm1(const Tensor &x);
Tensor log2(const Tensor &x);
Tensor log10(const Tensor &x);
Tensor exp2(const Tensor &x);
/// 1 / x.
Tensor reciprocal(const Tensor &x);
/// log(1 + exp(x)), x itself above 20 (torch's default beta 1, threshold
/// 20). Floating inputs only, as the three below.
Tensor softplus(const Tensor &x);
/// x * tanh(softplus(x)).
Tensor mish(const Tensor &x);
/// x * relu6(x + 3) / 6.
Tensor hardswish(const Tensor &x);
/// relu6(x + 3) / 6.
Tensor hardsigmoid(const Tensor &x);
/// x above 0, negative_slope * x below (floating inputs only).
Tensor leaky_relu(const Tensor &x, Scalar negativeSlope = 0.01);
/// x above 0, alpha * (exp(x) - 1) below (floating inputs only).
Tensor elu(const Tensor &x, Scalar alpha = 1.0);
/// Rounding keeps the dtype; integers are returned as they are. round
/// rounds halves to even, as torch.round does.
Tensor floor(const Tensor &x);
Tensor ceil(const Tensor &x);
Tensor round(const Tensor &x);
Tensor trunc(const Tensor &x);
/// x * x, in x's dtype.
Tensor square(const Tensor &x);

//===----------------------------------------------------------------------===//
// Reductions. An empty dims list reduces over every dim.
//===----------------------------------------------------------------------===//

/// Integer and bool inputs sum to int64.
Tensor sum(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
/// Floating inputs only.
Tensor mean(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
Tensor amax(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
Tensor amin(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
/// The product over dims (all when empty; several at once, a superset of
/// torch's one dim); integer and bool inputs multiply as int64, wrapping.
Tensor prod(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
/// The int64 index of the first maximum (minimum) along dim, or of the
/// flattened tensor when dim is not given; NaN counts as the maximum and
/// the minimum, as in torch. Not for bool; an empty dim is an error.
Tensor argmax(const Tensor &x, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);
Tensor argmin(const Tensor &x, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);
/// torch.max(x, dim, keepdim): the maxima along dim and their int64
/// indices (argmax's: the first maximum, NaN counting as one, so a NaN's
/// value comes with its index). `auto [values, indices] = max(x, 1);`.
std::tuple<Tensor, Tensor> max(const Tensor &x, int64_t dim,
                               bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor &x, int64_t dim,
                               bool keepdim = false);
/// The largest (smallest) element, NaN propagating: amax (amin) over all
/// dims.
Tensor max(const Tensor &x);
Tensor min(const Tensor &x);
/// Variance over dims with Bessel's `correction` (torch's default 1), and
/// its square root; floating inputs only.
Tensor var(const Tensor &x, const Dims &dims = {}, int64_t correction = 1,
           bool keepdim = false);
Tensor std(const Tensor &x, const Dims &dims = {}, int64_t correction = 1,
           bool keepdim = false);
/// log(sum(exp(x))) over dims, computed from the maximum (stable; infinite
/// maxima handled as torch does); integers give float32.
Tensor logsumexp(const Tensor &x, const Dims &dims, bool keepdim = false);
/// The p-norm over dims: p = 2 (the default), 1, 0 (the count of non-zero
/// elements), +-infinity (the largest or smallest magnitude) or any other
/// p; floating inputs only.
Tensor norm(const Tensor &x, Scalar p = 2, const Dims &dims = {},
            bool keepdim = false);
/// Whether any (all) elements over dims are non-zero; bool results.
Tensor any(const Tensor &x, const Dims &dims = {}, bool keepdim = false);
Tensor all(const Tensor &x, const Dims &dims = {}, bool keepdim = false);

/// torch.cumsum (cumprod): the running sum (product) along dim. Integer
/// and bool inputs give int64, wrapping; floats keep their dtype and
/// accumulate in double, as ATen does on the CPU. `dtype` (int64 or a
/// floating dtype) converts the input first.
Tensor cumsum(const Tensor &x, int64_t dim,
              std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor &x, int64_t dim,
               std::optional<DType> dtype = std::nullopt);
/// torch.topk: the k largest (smallest, with largest = false) elements
/// along dim and their int64 indices, best first. NaN counts as the
/// largest, as in torch; equal values come in index order (torch leaves
/// their order open). The result is sorted whatever `sorted` says, which
/// torch allows. Not for bool; k must lie in [0, size(dim)] (be 1 for a
/// 0-d tensor).
/// `auto [values, indices] = topk(logits, 50);`.
std::tuple<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);

Tensor softmax(const Tensor &x, int64_t dim);
Tensor log_softmax(const Tensor &x, int64_t dim);
/// Normalises over the last weight.dim() dims (torch's normalized_shape is
/// weight's shape). bias may be undefined.
Tensor layer_norm(const Tensor &x, const Tensor &weight, const Tensor &bias,
                  double eps = 1e-5);
/// x / sqrt(mean(x^2) + eps) * weight over the last weight.dim() dims.
Tensor rms_norm(const Tensor &x, const Tensor &weight, double eps = 1e-6);

//===----------------------------------------------------------------------===//
// Linear algebra and neural-network ops
//===----------------------------------------------------------------------===//

/// torch.matmul: dot, mv, mm, and batched mm with broadcast batch dims.
Tensor matmul(const Tensor &a, const Tensor &b);
/// x @ w^T + b, w of shape [out, in]; b may be undefined.
Tensor linear(const Tensor &x, const Tensor &w, const Tensor &b = Tensor());
/// Rows of table [V, D] picked by integer ids of any shape: [..., D].
Tensor embedding(const Tensor &ids, const Tensor &table);
/// NCHW convolution (or CHW, unbatched); w is [O, C/groups, kH, kW]; b may
/// be undefined. stride, padding and dilation hold one value for both dims
/// or {h, w}. With groups g, the channels split into g groups, each
/// convolved with O/g of the filters (groups = C: depthwise).
Tensor conv2d(const Tensor &x, const Tensor &w, const Tensor &b,
              const Shape &stride, const Shape &padding,
              const Shape &dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor &x, const Tensor &w, const Tensor &b = Tensor(),
              int64_t stride = 1, int64_t padding = 0, int64_t dilation = 1,
              int64_t groups = 1);
/// conv2d's gradients (ATen's convolution_backward but for the bias's,
/// grad_output summed over all but its channels): the input's where
/// output_mask[0], the weight's where output_mask[1] (undefined where not
/// asked for). grad_output has the shape conv2d(x, w, ...) gives.
std::tuple<Tensor, Tensor>
conv2d_backward(const Tensor &grad_output, const Tensor &x, const Tensor &w,
                const Shape &stride, const Shape &padding,
                const Shape &dilation, int64_t groups,
                std::array<bool, 2> output_mask = {true, true});
Tensor cat(const std::vector<Tensor> &tensors, int64_t dim = 0);
/// Tensors of one shape stacked along a new dim (in [-(rank+1), rank]).
Tensor stack(const std::vector<Tensor> &tensors, int64_t dim = 0);
/// x.slice(dim, start, start + length), the range checked (start may count
/// from the end).
Tensor narrow(const Tensor &x, int64_t dim, int64_t start, int64_t length);
/// The slice at index along dim, that dim removed (index may count from the
/// end; out of range is an error).
Tensor select(const Tensor &x, int64_t dim, int64_t index);
/// torch.gather: result[i..] is x at i.. with index[i..] in place of dim.
/// index (integer) has x's rank and at most x's sizes outside dim; the
/// result has its shape. Indices outside [0, x.size(dim)) are an error.
Tensor gather(const Tensor &x, int64_t dim, const Tensor &index);
/// torch.scatter_add: a copy of x with src[i..] added at i.. with
/// index[i..] in place of dim. index, x and src have one rank; index is
/// at most src in every dim and at most x outside dim; its values lie in
/// [0, x.size(dim)). src has x's dtype. Additions to one element happen in
/// index order (deterministic).
Tensor scatter_add(const Tensor &x, int64_t dim, const Tensor &index,
                   const Tensor &src);
/// The slices of x at a 1-d integer index along dim (indices checked).
Tensor index_select(const Tensor &x, int64_t dim, const Tensor &index);
/// A copy with the order along each of dims reversed.
Tensor flip(const Tensor &x, const Dims &dims);
/// A copy shifted by shifts[i] along dims[i], wrapping around; without
/// dims, the flattened tensor is shifted by the one shift.
Tensor roll(const Tensor &x, const Shape &shifts, const Dims &dims = {});
/// x repeated reps[i] times along each dim (torch's Tensor.repeat: at least
/// one rep per dim; extra leading reps add dims).
Tensor repeat(const Tensor &x, const Shape &reps);
/// repeat, with reps padded by leading 1s to x's rank (torch.tile).
Tensor tile(const Tensor &x, const Shape &reps);
/// dim split into sizes (one may be -1), a reshape.
Tensor unflatten(const Tensor &x, int64_t dim, const Shape &sizes);
/// torch.nn.functional.pad: pads holds (before, after) pairs from the last
/// dim backwards; mode "constant" (value; negative pads crop), "reflect"
/// (pads less than the size) or "replicate". The result keeps x's dtype.
Tensor pad(const Tensor &x, const Shape &pads,
           const std::string &mode = "constant", Scalar value = 0);
/// torch.nn.functional.interpolate of x [N, C, H, W] to size {h, w} (or
/// one value for both), or scaled by scale_factor (the size floor(H *
/// scale_factor), positions mapped back by 1 / scale_factor as torch maps
/// them). mode "nearest" (source floor(o * H / h)) or "bilinear" (source
/// (o + 0.5) * H / h - 0.5, or o * (H - 1) / (h - 1) with align_corners,
/// between its two neighbours).
Tensor interpolate(const Tensor &x, const Shape &size,
                   const std::string &mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt);
Tensor interpolate(const Tensor &x, double scale_factor,
                   const std::string &mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt);
/// Views of ceil(size / chunks) elements along dim, the last shorter (as
/// torch, fewer than chunks pieces when the size does not allow them all;
/// chunks empty pieces of an empty dim).
std::vector<Tensor> chunk(const Tensor &x, int64_t chunks, int64_t dim = 0);
/// Views of `size` elements along dim, the last shorter; with a list,
/// views of those sizes, which must add up to the dim's size. (A braced
/// single size, split(x, {4}), is the integer overload: pass Shape{4}.)
std::vector<Tensor> split(const Tensor &x, int64_t size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor &x, const Shape &sizes, int64_t dim = 0);
/// Batched product of [B, n, k] and [B, k, m] (no broadcasting).
Tensor bmm(const Tensor &a, const Tensor &b);
/// torch.einsum over one or two operands: subscripts are letters, `...`
/// stands for broadcast batch dims, and `->` names the output's (without
/// it: the letters that appear once, in alphabetical order). Labels only
/// one operand has are summed, shared ones kept or contracted by one
/// batched matmul ("bhqd,bhkd->bhqk"). A label repeated within one operand
/// (a diagonal) is not supported.
Tensor einsum(const std::string &equation, const std::vector<Tensor> &operands);
/// beta * input + alpha * (m1 @ m2) for matrices m1, m2; input broadcasts.
/// With beta 0, input is ignored (NaN included), as in torch.
Tensor addmm(const Tensor &input, const Tensor &m1, const Tensor &m2,
             Scalar beta = 1, Scalar alpha = 1);
/// beta * input + alpha * bmm(b1, b2).
Tensor baddbmm(const Tensor &input, const Tensor &b1, const Tensor &b2,
               Scalar beta = 1, Scalar alpha = 1);
/// int64 ids [...] as int64 one-hot rows [..., num_classes]; ids outside
/// [0, num_classes) are an error; num_classes -1 takes max(ids) + 1.
Tensor one_hot(const Tensor &ids, int64_t num_classes = -1);
/// The identity unless training; in training each element is zeroed with
/// probability p and the others scaled by 1 / (1 - p) (all zeroed at p =
/// 1), the mask drawn from the dropout generator (below): kiln's stream,
/// not torch's. p must lie in [0, 1].
Tensor dropout(const Tensor &x, double p = 0.5, bool training = false);
/// Seeds the generator training-mode dropout draws its masks from (each
/// call takes the next seed of a SplitMix64 sequence, the same on every
/// machine); torch.manual_seed's role for it. The default seed is 0.
void manual_seed(uint64_t seed);
/// Batch norm over dim 1: (x - mean) / sqrt(var + eps) * weight + bias
/// (weight, bias may be undefined), with the running statistics [C]; in
/// training, with the batch's (the biased variance), and running_mean,
/// running_var (when defined) updated in place: (1 - momentum) * running +
/// momentum * batch, the batch variance unbiased.
Tensor batch_norm(const Tensor &x, const Tensor &running_mean,
                  const Tensor &running_var, const Tensor &weight = Tensor(),
                  const Tensor &bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
/// Group normalisation of x [N, C, ...]: the C channels split into groups
/// of C / groups, each normalised over its channels and the spatial dims
/// ((x - mean) / sqrt(var + eps), the biased variance), then scaled and
/// shifted per channel by weight and bias [C] (either may be undefined).
Tensor group_norm(const Tensor &x, int64_t groups,
                  const Tensor &weight = Tensor(),
                  const Tensor &bias = Tensor(), double eps = 1e-5);
/// Each channel of each sample of x [N, C, spatial...] normalised over the
/// spatial dims with its own statistics (torch's instance_norm with
/// use_input_stats, nn.InstanceNorm's default; no running statistics),
/// then weight and bias [C]: group_norm with one channel a group.
Tensor instance_norm(const Tensor &x, const Tensor &weight = Tensor(),
                     const Tensor &bias = Tensor(), double eps = 1e-5);
/// The transposed convolution (torch's conv_transpose2d) of x [N, C, H, W]
/// (or [C, H, W]) with w [C, O/groups, kH, kW]: the output is [N, O,
/// (H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding +
/// 1, ...]; output_padding below stride or dilation. Computed as eager
/// and compiled code both do: a convolution with stride 1 of x with
/// stride - 1 zeros between its pixels, padded by dilation * (k - 1) -
/// padding (cropped where negative), with the weight flipped and its in and
/// out swapped within each group.
Tensor conv_transpose2d(const Tensor &x, const Tensor &w, const Tensor &b,
                        const Shape &stride, const Shape &padding = {0},
                        const Shape &output_padding = {0}, int64_t groups = 1,
                        const Shape &dilation = {1});
Tensor conv_transpose2d(const Tensor &x, const Tensor &w,
                        const Tensor &b = Tensor(), int64_t stride = 1,
                        int64_t padding = 0, int64_t output_padding = 0,
                        int64_t groups = 1, int64_t dilation = 1);
/// 1-d convolution of x [N, C, L] (or [C, L]) with w [O, C/groups, k]:
/// conv2d over a height of 1. b may be undefined.
Tensor conv1d(const Tensor &x, const Tensor &w, const Tensor &b = Tensor(),
              int64_t stride = 1, int64_t padding = 0, int64_t dilation = 1,
              int64_t groups = 1);
/// Max over windows of kernel_size taps, dilation apart, starting every
/// stride (empty: the kernel size) at o * stride - padding, of x [N, C, H,
/// W] or [C, H, W]; padding at most half the kernel; ceil_mode keeps a last
/// partial window that starts inside the input or its left padding. A NaN
/// in a window is its max. Floating dtypes.
Tensor max_pool2d(const Tensor &x, const Shape &kernel_size,
                  const Shape &stride = {}, const Shape &padding = {0},
                  const Shape &dilation = {1}, bool ceil_mode = false);
Tensor max_pool2d(const Tensor &x, int64_t kernel_size,
                  std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, int64_t dilation = 1,
                  bool ceil_mode = false);
/// Mean over the same windows (no dilation). The divisor is the window
/// clipped to the padded input (count_include_pad) or to the input, or
/// divisor_override.
Tensor avg_pool2d(const Tensor &x, const Shape &kernel_size,
                  const Shape &stride = {}, const Shape &padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool2d(const Tensor &x, int64_t kernel_size,
                  std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// Means over output_size ({h, w}, or one value for both) windows: output
/// o averages input rows [floor(o * H / h), ceil((o + 1) * H / h)), and so
/// for columns.
Tensor adaptive_avg_pool2d(const Tensor &x, const Shape &output_size);
Tensor adaptive_avg_pool2d(const Tensor &x, int64_t output_size);
/// The pooling ops' gradients (ATen's max_pool2d_with_indices_backward,
/// avg_pool2d_backward, _adaptive_avg_pool2d_backward): grad_output (the
/// pooling's shape) carried back to x's, for the same parameters. Max
/// pooling's goes to each window's first maximum (or first NaN).
Tensor max_pool2d_backward(const Tensor &grad_output, const Tensor &x,
                           const Shape &kernel_size, const Shape &stride,
                           const Shape &padding, const Shape &dilation,
                           bool ceil_mode);
Tensor avg_pool2d_backward(const Tensor &grad_output, const Tensor &x,
                           const Shape &kernel_size, const Shape &stride,
                           const Shape &padding, bool ceil_mode,
                           bool count_include_pad,
                           std::optional<int64_t> divisor_override);
/// The output size is grad_output's last two sizes.
Tensor adaptive_avg_pool2d_backward(const Tensor &grad_output, const Tensor &x);
/// torch's scaled_dot_product_attention: softmax(q k^T * scale + mask) v
/// for q [..., L, E], k [..., S, E], v [..., S, Ev] (ranks 2 to 4, batch
/// dims broadcast) giving [..., L, Ev]. attn_mask (may be undefined)
/// broadcasts to [..., L, S]: bool (true attends) or q's float dtype
/// (added to the scores). is_causal attends key j from query i when
/// j <= i (torch's top-left alignment) and excludes attn_mask. scale
/// defaults to 1 / sqrt(E). A query that attends to no key gives zeros (as
/// torch's math kernel since 2.5). dropout_p must be 0: kiln computes at
/// inference. One fused kernel: blocks of queries against blocks of keys
/// with an online softmax; the [..., L, S] scores are never in memory.
Tensor scaled_dot_product_attention(const Tensor &query, const Tensor &key,
                                    const Tensor &value,
                                    const Tensor &attn_mask = Tensor(),
                                    double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);
/// Mean cross-entropy of logits [N, C] (or [C]) against integer class ids
/// [N] (or []).
Tensor cross_entropy(const Tensor &logits, const Tensor &targets);

/// |a - b| <= atol + rtol * |b| everywhere (broadcasting); NaNs differ.
bool allclose(const Tensor &a, const Tensor &b, double rtol = 1e-5,
              double atol = 1e-8);

} // namespace kiln

#endif // KILN_OPS_H
