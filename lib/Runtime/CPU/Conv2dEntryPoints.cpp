//===- Conv2dEntryPoints.cpp - The convolution for compiled code ----------===//
//
// The functions kiln-conv2d-to-runtime makes compiled code call for
// kiln.conv2d: the eager kiln::conv2d (Ops/NN.cpp: one image's columns at a
// time, a product per group) on the graph's buffers, borrowed as tensors,
// its result returned in a buffer the graph owns (abi::callOpaque). When
// the eager function throws (parameters it rejects), the graph call fails
// and its statements run eagerly, which raise the same error.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "Core/Stats.h"
#include "kiln/Ops.h"

#include <cstdint>

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
