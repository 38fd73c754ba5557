//===- ImageOpsEntryPoints.cpp - Convolution and pooling for compiled code ===//
//
// The functions kiln-image-ops-to-runtime makes compiled code call for
// kiln.conv2d (the eager kiln::conv2d, Ops/NN.cpp: one image's columns at a
// time, a product per group) and for the backward graphs' image ops (the
// gradient functions eager autograd runs: kiln::conv2d_backward,
// kiln::max_pool2d_backward, ...), on the graph's buffers borrowed as
// tensors, each result returned in a buffer the graph owns
// (abi::callOpaque). When the eager function throws (parameters it
// rejects), the graph call fails and its statements run eagerly, which
// raise the same error.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "Core/Autocast.h"
#include "Core/Stats.h"
#include "kiln/Ops.h"

#include <array>
#include <cstdint>
#include <optional>

namespace {
using namespace kiln;

struct ConvolutionCall {
  void *x, *w, *bias;
  int64_t params[7]; // sh, sw, ph, pw, dh, dw, groups
  bool hasBias;
  DType dtype;
};

template <DType D>
void convolutionEntry(void *result, void *x, void *w, void *bias, int64_t sh,
                      int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                      int64_t dw, int64_t groups, int64_t hasBias) {
  detail::UncountedOps uncounted;
  // The graph typed the convolution (under autocast, its twin cast the
  // operands): kiln::conv2d must not cast them again.
  detail::NoAutocast asTyped;
  ConvolutionCall call{
      x, w, bias, {sh, sw, ph, pw, dh, dw, groups}, hasBias != 0, D};
  abi::callOpaque(
      "conv2d", result, 4, D,
      [](void *context) -> Tensor {
        const auto &c = *static_cast<const ConvolutionCall *>(context);
        const int64_t *p = c.params;
        return kiln::conv2d(
            abi::borrow(c.x, 4, c.dtype), abi::borrow(c.w, 4, c.dtype),
            c.hasBias ? abi::borrow(c.bias, 1, c.dtype) : Tensor(),
            Shape{p[0], p[1]}, Shape{p[2], p[3]}, Shape{p[4], p[5]}, p[6]);
      },
      &call);
}
/// A gradient call's tensors (4-d) and i64 parameters.
struct GradientCall {
  void *tensors[3];
  int64_t params[11];
  DType dtype;
  Tensor tensor(int i) const { return abi::borrow(tensors[i], 4, dtype); }
  Shape pair(int i) const { return Shape{params[i], params[i + 1]}; }
};

/// fn(call) run as a graph's kernel `name`, its 4-d result in `result`.
void gradientEntry(const char *name, void *result, const GradientCall &call,
                   Tensor (*fn)(void *context)) {
  detail::UncountedOps uncounted;
  abi::callOpaque(name, result, 4, call.dtype, fn,
                  const_cast<GradientCall *>(&call));
}

const GradientCall &callOf(void *context) {
  return *static_cast<const GradientCall *>(context);
}

/// (g, x, w; sh, sw, ph, pw, dh, dw, groups) -> one of conv2d's gradients.
template <int Result> Tensor convolutionGradient(void *context) {
  const GradientCall &c = callOf(context);
  std::array<bool, 2> mask = {Result == 0, Result == 1};
  auto grads =
      kiln::conv2d_backward(c.tensor(0), c.tensor(1), c.tensor(2), c.pair(0),
                            c.pair(2), c.pair(4), c.params[6], mask);
  return Result == 0 ? std::get<0>(grads) : std::get<1>(grads);
}

/// (g, x; kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode, count_include_pad,
/// divisor or 0) -> the pooling's gradient.
Tensor maxPoolGradient(void *context) {
  const GradientCall &c = callOf(context);
  return kiln::max_pool2d_backward(c.tensor(0), c.tensor(1), c.pair(0),
                                   c.pair(2), c.pair(4), c.pair(6),
                                   c.params[8] != 0);
}
Tensor avgPoolGradient(void *context) {
  const GradientCall &c = callOf(context);
  return kiln::avg_pool2d_backward(
      c.tensor(0), c.tensor(1), c.pair(0), c.pair(2), c.pair(4),
      c.params[8] != 0, c.params[9] != 0,
      c.params[10] != 0 ? std::optional<int64_t>(c.params[10]) : std::nullopt);
}
Tensor adaptivePoolGradient(void *context) {
  const GradientCall &c = callOf(context);
  return kiln::adaptive_avg_pool2d_backward(c.tensor(0), c.tensor(1));
}
} // namespace

#define KILN_CONVOLUTION_ENTRY(NAME, D)                                        \
  extern "C" void _mlir_ciface_##NAME(                                         \
      void *result, void *x, void *w, void *bias, int64_t sh, int64_t sw,      \
      int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups,          \
      int64_t hasBias) {                                                       \
    convolutionEntry<D>(result, x, w, bias, sh, sw, ph, pw, dh, dw, groups,    \
                        hasBias);                                              \
  }
KILN_CONVOLUTION_ENTRY(kiln_conv2d_call_f32, kiln::kFloat32)
KILN_CONVOLUTION_ENTRY(kiln_conv2d_call_f64, kiln::kFloat64)
#undef KILN_CONVOLUTION_ENTRY

#define KILN_CONVOLUTION_GRADIENT_ENTRY(NAME, D, RESULT)                       \
  extern "C" void _mlir_ciface_##NAME(                                         \
      void *result, void *g, void *x, void *w, int64_t sh, int64_t sw,         \
      int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups) {        \
    gradientEntry("conv2d_backward", result,                                   \
                  {{g, x, w}, {sh, sw, ph, pw, dh, dw, groups}, D},            \
                  convolutionGradient<RESULT>);                                \
  }
KILN_CONVOLUTION_GRADIENT_ENTRY(kiln_conv2d_input_grad_call_f32, kiln::kFloat32,
                                0)
KILN_CONVOLUTION_GRADIENT_ENTRY(kiln_conv2d_input_grad_call_f64, kiln::kFloat64,
                                0)
KILN_CONVOLUTION_GRADIENT_ENTRY(kiln_conv2d_weight_grad_call_f32,
                                kiln::kFloat32, 1)
KILN_CONVOLUTION_GRADIENT_ENTRY(kiln_conv2d_weight_grad_call_f64,
                                kiln::kFloat64, 1)
#undef KILN_CONVOLUTION_GRADIENT_ENTRY

#define KILN_POOLING_GRADIENT_ENTRY(NAME, D, FN, OP)                           \
  extern "C" void _mlir_ciface_##NAME(                                         \
      void *result, void *g, void *x, int64_t kh, int64_t kw, int64_t sh,      \
      int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,              \
      int64_t ceilMode, int64_t countIncludePad, int64_t divisor) {            \
    gradientEntry(                                                             \
        OP, result,                                                            \
        {{g, x, nullptr},                                                      \
         {kh, kw, sh, sw, ph, pw, dh, dw, ceilMode, countIncludePad, divisor}, \
         D},                                                                   \
        FN);                                                                   \
  }
KILN_POOLING_GRADIENT_ENTRY(kiln_max_pool2d_backward_call_f32, kiln::kFloat32,
                            maxPoolGradient, "max_pool2d_backward")
KILN_POOLING_GRADIENT_ENTRY(kiln_max_pool2d_backward_call_f64, kiln::kFloat64,
                            maxPoolGradient, "max_pool2d_backward")
KILN_POOLING_GRADIENT_ENTRY(kiln_avg_pool2d_backward_call_f32, kiln::kFloat32,
                            avgPoolGradient, "avg_pool2d_backward")
KILN_POOLING_GRADIENT_ENTRY(kiln_avg_pool2d_backward_call_f64, kiln::kFloat64,
                            avgPoolGradient, "avg_pool2d_backward")
#undef KILN_POOLING_GRADIENT_ENTRY

#define KILN_ADAPTIVE_POOLING_GRADIENT_ENTRY(NAME, D)                          \
  extern "C" void _mlir_ciface_##NAME(void *result, void *g, void *x) {        \
    gradientEntry("adaptive_avg_pool2d_backward", result,                      \
                  {{g, x, nullptr}, {}, D}, adaptivePoolGradient);             \
  }
KILN_ADAPTIVE_POOLING_GRADIENT_ENTRY(kiln_adaptive_avg_pool2d_backward_call_f32,
                                     kiln::kFloat32)
KILN_ADAPTIVE_POOLING_GRADIENT_ENTRY(kiln_adaptive_avg_pool2d_backward_call_f64,
                                     kiln::kFloat64)
#undef KILN_ADAPTIVE_POOLING_GRADIENT_ENTRY
