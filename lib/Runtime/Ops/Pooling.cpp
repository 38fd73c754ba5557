//===- Pooling.cpp - max_pool2d, avg_pool2d, adaptive_avg_pool2d ----------===//
//
// ATen's CPU kernels' semantics: windows of kernel taps (dilation apart for
// max) starting at o * stride - padding, taps outside the input skipped;
// ceil_mode's extra window only where it starts inside the input or its
// left padding; a NaN in a window is its max. One loop per (image, channel)
// plane, the planes in parallel.
//
//===----------------------------------------------------------------------===//
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "kiln/Ops.h"

#include <cmath>
#include <limits>

namespace kiln {
using namespace detail;

namespace {

/// x is [N, C, H, W] or [C, H, W], floating, with only N empty.
void checkPooled(const Tensor &x, const char *op) {
  checkCpu(x, op);
  if (x.dim() != 3 && x.dim() != 4)
    throw Error(std::string(op) +
                ": the input must be 4-d [N, C, H, W] or 3-d [C, H, W], got "
                "shape " +
                shapeStr(x.shape()));
  for (int64_t d = x.dim() - 3; d < x.dim(); ++d)
    if (x.size(d) == 0)
      throw Error(std::string(op) + ": only the batch dim may be empty, got " +
                  "shape " + shapeStr(x.shape()));
  if (!isFloating(x.dtype()))
    throw unsupportedDType(op, x.dtype());
}

/// A window's parameters along both dims, and the output's size.
struct Windows {
  Shape kernel, stride, pad, dilation, out;
};

/// ATen's pooling_output_shape, and its checks.
Windows windowsOf(const Tensor &x, const char *op, const Shape &kernel,
                  const Shape &stride, const Shape &padding,
                  const Shape &dilation, bool ceilMode) {
  checkPooled(x, op);
  Windows w;
  w.kernel = pairParam(kernel, op, "kernel_size", 1);
  w.stride = stride.empty() ? w.kernel : pairParam(stride, op, "stride", 1);
  w.pad = pairParam(padding, op, "padding", 0);
  w.dilation = pairParam(dilation, op, "dilation", 1);
  for (int i = 0; i < 2; ++i) {
    if (w.pad[i] * 2 > w.kernel[i])
      throw Error(std::string(op) + ": padding " + shapeStr(w.pad) +
                  " must be at most half the kernel size " +
                  shapeStr(w.kernel));
    int64_t in = x.size(x.dim() - 2 + i), s = w.stride[i];
    int64_t span = w.dilation[i] * (w.kernel[i] - 1) + 1;
    int64_t room = in + 2 * w.pad[i] - span + (ceilMode ? s - 1 : 0);
    // Floor division (room may be negative: the output is then empty).
    int64_t o = (room >= 0 ? room / s : -((-room + s - 1) / s)) + 1;
    if (ceilMode && o > 0 && (o - 1) * s >= in + w.pad[i])
      --o;
    if (o < 1)
      throw Error(std::string(op) + ": the input " +
                  shapeStr({x.size(-2), x.size(-1)}) + " padded by " +
                  shapeStr(w.pad) + " is smaller than the kernel " +
                  shapeStr(w.kernel) +
                  (span != w.kernel[i] ? " (dilated)" : ""));
    w.out.push_back(o);
  }
  return w;
}

/// Runs body(src, dst) over each [H, W] plane of x (as computed) and of the
/// [.., Ho, Wo] result, in parallel.
template <typename Body>
Tensor overPlanes(const Tensor &x, const char *op, int64_t Ho, int64_t Wo,
                  const Body &body) {
  DType ct = computeType(x.dtype());
  Tensor in = x.to(ct).contiguous();
  Shape shape = x.shape();
  shape[shape.size() - 2] = Ho;
  shape[shape.size() - 1] = Wo;
  Tensor out(shape, ct);
  int64_t H = x.size(-2), W = x.size(-1);
  int64_t planes = in.numel() / (H * W); // H, W > 0: checked
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<T>::value) {
      const T *src = in.data<T>();
      T *dst = out.data<T>();
      parallelFor(planes, planes * (H * W + Ho * Wo),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t p = begin; p < end; ++p)
                      body(src + p * H * W, dst + p * Ho * Wo);
                  });
    }
  });
  return out.to(x.dtype());
}

/// The gradient of a pooling op: body(src, g, gin) adds each [Ho, Wo]
/// plane of g into the [H, W] plane gin of x's gradient (zeros first).
template <typename Body>
Tensor overPlanesBackward(const Tensor &x, const Tensor &g, const char *op,
                          const Body &body) {
  DType ct = computeType(x.dtype());
  Tensor in = x.to(ct).contiguous(), go = g.to(ct).contiguous();
  Tensor gin = zeros(in.shape(), ct);
  int64_t H = x.size(-2), W = x.size(-1), Ho = g.size(-2), Wo = g.size(-1);
  int64_t planes = in.numel() / (H * W);
  dispatchCompute(ct, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<T>::value) {
      const T *src = in.data<T>(), *pg = go.data<T>();
      T *dst = gin.data<T>();
      parallelFor(planes, planes * (H * W + Ho * Wo),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t p = begin; p < end; ++p)
                      body(src + p * H * W, pg + p * Ho * Wo, dst + p * H * W);
                  });
    }
  });
  return gin.to(x.dtype());
}

/// The input position (iy * W + ix) of the maximum of max pooling's window
/// at (oy, ox): the first maximum, or the first NaN.
template <typename T>
KILN_KERNEL_INLINE int64_t maxAt(const T *src, const Windows &w, int64_t H,
                                 int64_t W, int64_t oy, int64_t ox) {
  T best = -std::numeric_limits<T>::infinity();
  int64_t at = -1;
  for (int64_t i = 0; i < w.kernel[0]; ++i) {
    int64_t iy = oy * w.stride[0] - w.pad[0] + i * w.dilation[0];
    if (iy < 0 || iy >= H)
      continue;
    for (int64_t j = 0; j < w.kernel[1]; ++j) {
      int64_t ix = ox * w.stride[1] - w.pad[1] + j * w.dilation[1];
      if (ix < 0 || ix >= W)
        continue;
      T v = src[iy * W + ix];
      if (v > best || std::isnan(v) || at < 0) {
        best = v;
        at = iy * W + ix;
      }
      if (std::isnan(best))
        return at;
    }
  }
  return at;
}

/// An averaging window clipped to the input, and what its sum is divided
/// by.
struct Box {
  int64_t y0, y1, x0, x1, divisor;
};

/// avg_pool2d's window at (oy, ox). ATen's: the window clipped to the
/// padded input gives the divisor with padding, clipped to the input the
/// one without.
Box avgBox(const Windows &w, int64_t H, int64_t W, int64_t oy, int64_t ox,
           bool countIncludePad, std::optional<int64_t> divisorOverride) {
  int64_t y0 = oy * w.stride[0] - w.pad[0];
  int64_t x0 = ox * w.stride[1] - w.pad[1];
  int64_t y1 = std::min(y0 + w.kernel[0], H + w.pad[0]);
  int64_t x1 = std::min(x0 + w.kernel[1], W + w.pad[1]);
  int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = std::max<int64_t>(y0, 0);
  x0 = std::max<int64_t>(x0, 0);
  y1 = std::min(y1, H);
  x1 = std::min(x1, W);
  int64_t divisor = divisorOverride   ? *divisorOverride
                    : countIncludePad ? padded
                                      : (y1 - y0) * (x1 - x0);
  return {y0, y1, x0, x1, divisor};
}

/// adaptive_avg_pool2d's window: output o averages input rows
/// [floor(o * in / out), ceil((o + 1) * in / out)), and so for columns.
Box adaptiveBox(const Shape &out, int64_t H, int64_t W, int64_t oy,
                int64_t ox) {
  auto start = [](int64_t o, int64_t in, int64_t n) { return o * in / n; };
  auto end = [](int64_t o, int64_t in, int64_t n) {
    return ((o + 1) * in + n - 1) / n;
  };
  int64_t y0 = start(oy, H, out[0]), y1 = end(oy, H, out[0]);
  int64_t x0 = start(ox, W, out[1]), x1 = end(ox, W, out[1]);
  return {y0, y1, x0, x1, (y1 - y0) * (x1 - x0)};
}

/// Sums each box's elements, divided by its divisor.
template <typename T, typename BoxAt>
KILN_KERNEL_INLINE void averageBoxes(const T *src, T *dst, int64_t W,
                                     int64_t Ho, int64_t Wo,
                                     const BoxAt &boxAt) {
  for (int64_t oy = 0; oy < Ho; ++oy)
    for (int64_t ox = 0; ox < Wo; ++ox) {
      Box b = boxAt(oy, ox);
      T sum = 0;
      for (int64_t iy = b.y0; iy < b.y1; ++iy)
        for (int64_t ix = b.x0; ix < b.x1; ++ix)
          sum += src[iy * W + ix];
      dst[oy * Wo + ox] = sum / static_cast<T>(b.divisor);
    }
}

/// averageBoxes' gradient: each box's elements get g / divisor.
template <typename T, typename BoxAt>
KILN_KERNEL_INLINE void averageBoxesBackward(const T *g, T *gin, int64_t W,
                                             int64_t Ho, int64_t Wo,
                                             const BoxAt &boxAt) {
  for (int64_t oy = 0; oy < Ho; ++oy)
    for (int64_t ox = 0; ox < Wo; ++ox) {
      Box b = boxAt(oy, ox);
      T share = g[oy * Wo + ox] / static_cast<T>(b.divisor);
      for (int64_t iy = b.y0; iy < b.y1; ++iy)
        for (int64_t ix = b.x0; ix < b.x1; ++ix)
          gin[iy * W + ix] += share;
    }
}

/// A pooling gradient's grad_output: x's shape with [Ho, Wo] last, x's
/// dtype.
void checkPoolingGrad(const Tensor &g, const Tensor &x, int64_t Ho, int64_t Wo,
                      const char *op) {
  Shape expected = x.shape();
  expected[expected.size() - 2] = Ho;
  expected[expected.size() - 1] = Wo;
  checkGradOutput(g, expected, x.dtype(), op, "pooling");
}

using autograd::Grads;
using autograd::Needs;

} // namespace

Tensor max_pool2d(const Tensor &x, const Shape &kernel_size,
                  const Shape &stride, const Shape &padding,
                  const Shape &dilation, bool ceil_mode) {
  detail::CountedOp counted;
  autograd::Recorder grad("MaxPool2DBackward0", x);
  Windows w = windowsOf(x, "max_pool2d", kernel_size, stride, padding, dilation,
                        ceil_mode);
  int64_t H = x.size(-2), W = x.size(-1), Ho = w.out[0], Wo = w.out[1];
  Tensor out = overPlanes(x, "max_pool2d", Ho, Wo,
                          [&](const auto *src, auto *dst) KILN_KERNEL_LAMBDA {
                            for (int64_t oy = 0; oy < Ho; ++oy)
                              for (int64_t ox = 0; ox < Wo; ++ox)
                                dst[oy * Wo + ox] =
                                    src[maxAt(src, w, H, W, oy, ox)];
                          });
  if (grad)
    grad.record(out, [=, sx = grad.save(x)](const Grads &g, const Needs &) {
      return Grads{max_pool2d_backward(g[0], sx.get(), kernel_size, stride,
                                       padding, dilation, ceil_mode)};
    });
  return out;
}

Tensor max_pool2d_backward(const Tensor &grad_output, const Tensor &x,
                           const Shape &kernel_size, const Shape &stride,
                           const Shape &padding, const Shape &dilation,
                           bool ceil_mode) {
  detail::CountedOp counted;
  Windows w = windowsOf(x, "max_pool2d", kernel_size, stride, padding, dilation,
                        ceil_mode);
  int64_t H = x.size(-2), W = x.size(-1), Ho = w.out[0], Wo = w.out[1];
  checkPoolingGrad(grad_output, x, Ho, Wo, "max_pool2d_backward");
  // The gradient goes to each window's maximum.
  return overPlanesBackward(
      x, grad_output, "max_pool2d",
      [&](const auto *src, const auto *g, auto *gin) KILN_KERNEL_LAMBDA {
        for (int64_t oy = 0; oy < Ho; ++oy)
          for (int64_t ox = 0; ox < Wo; ++ox)
            gin[maxAt(src, w, H, W, oy, ox)] += g[oy * Wo + ox];
      });
}

Tensor max_pool2d(const Tensor &x, int64_t kernel_size,
                  std::optional<int64_t> stride, int64_t padding,
                  int64_t dilation, bool ceil_mode) {
  detail::CountedOp counted;
  return max_pool2d(x, Shape{kernel_size}, stride ? Shape{*stride} : Shape{},
                    Shape{padding}, Shape{dilation}, ceil_mode);
}

Tensor avg_pool2d(const Tensor &x, const Shape &kernel_size,
                  const Shape &stride, const Shape &padding, bool ceil_mode,
                  bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  detail::CountedOp counted;
  autograd::Recorder grad("AvgPool2DBackward0", x);
  Windows w = windowsOf(x, "avg_pool2d", kernel_size, stride, padding, Shape{1},
                        ceil_mode);
  if (divisor_override && *divisor_override == 0)
    throw Error("avg_pool2d: divisor_override must be non-zero");
  int64_t H = x.size(-2), W = x.size(-1), Ho = w.out[0], Wo = w.out[1];
  auto boxAt = [w, H, W, count_include_pad, divisor_override](int64_t oy,
                                                              int64_t ox) {
    return avgBox(w, H, W, oy, ox, count_include_pad, divisor_override);
  };
  Tensor out = overPlanes(x, "avg_pool2d", Ho, Wo,
                          [&](const auto *src, auto *dst) KILN_KERNEL_LAMBDA {
                            averageBoxes(src, dst, W, Ho, Wo, boxAt);
                          });
  if (grad)
    grad.record(out, [=, sx = grad.save(x)](const Grads &g, const Needs &) {
      return Grads{avg_pool2d_backward(g[0], sx.get(), kernel_size, stride,
                                       padding, ceil_mode, count_include_pad,
                                       divisor_override)};
    });
  return out;
}

Tensor avg_pool2d_backward(const Tensor &grad_output, const Tensor &x,
                           const Shape &kernel_size, const Shape &stride,
                           const Shape &padding, bool ceil_mode,
                           bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  detail::CountedOp counted;
  Windows w = windowsOf(x, "avg_pool2d", kernel_size, stride, padding, Shape{1},
                        ceil_mode);
  if (divisor_override && *divisor_override == 0)
    throw Error("avg_pool2d: divisor_override must be non-zero");
  int64_t H = x.size(-2), W = x.size(-1), Ho = w.out[0], Wo = w.out[1];
  checkPoolingGrad(grad_output, x, Ho, Wo, "avg_pool2d_backward");
  auto boxAt = [&](int64_t oy, int64_t ox) {
    return avgBox(w, H, W, oy, ox, count_include_pad, divisor_override);
  };
  return overPlanesBackward(
      x, grad_output, "avg_pool2d",
      [&](const auto *, const auto *g, auto *gin) KILN_KERNEL_LAMBDA {
        averageBoxesBackward(g, gin, W, Ho, Wo, boxAt);
      });
}

Tensor avg_pool2d(const Tensor &x, int64_t kernel_size,
                  std::optional<int64_t> stride, int64_t padding,
                  bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  detail::CountedOp counted;
  return avg_pool2d(x, Shape{kernel_size}, stride ? Shape{*stride} : Shape{},
                    Shape{padding}, ceil_mode, count_include_pad,
                    divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor &x, const Shape &output_size) {
  detail::CountedOp counted;
  autograd::Recorder grad("AdaptiveAvgPool2DBackward0", x);
  const char *op = "adaptive_avg_pool2d";
  checkPooled(x, op);
  Shape out = pairParam(output_size, op, "output_size", 1);
  int64_t H = x.size(-2), W = x.size(-1), Ho = out[0], Wo = out[1];
  auto boxAt = [out, H, W](int64_t oy, int64_t ox) {
    return adaptiveBox(out, H, W, oy, ox);
  };
  Tensor y = overPlanes(x, op, Ho, Wo,
                        [&](const auto *src, auto *dst) KILN_KERNEL_LAMBDA {
                          averageBoxes(src, dst, W, Ho, Wo, boxAt);
                        });
  if (grad)
    grad.record(y, [sx = grad.save(x)](const Grads &g, const Needs &) {
      return Grads{adaptive_avg_pool2d_backward(g[0], sx.get())};
    });
  return y;
}

Tensor adaptive_avg_pool2d_backward(const Tensor &grad_output,
                                    const Tensor &x) {
  detail::CountedOp counted;
  const char *op = "adaptive_avg_pool2d_backward";
  checkPooled(x, op);
  if (grad_output.dim() != x.dim())
    throw Error(std::string(op) + ": grad_output must have the input's rank " +
                std::to_string(x.dim()) + ", got shape " +
                shapeStr(grad_output.shape()));
  Shape out{grad_output.size(-2), grad_output.size(-1)};
  int64_t H = x.size(-2), W = x.size(-1), Ho = out[0], Wo = out[1];
  if (Ho < 1 || Wo < 1)
    throw Error(std::string(op) + ": the output size must be at least 1, got " +
                shapeStr(out));
  checkPoolingGrad(grad_output, x, Ho, Wo, op);
  auto boxAt = [&](int64_t oy, int64_t ox) {
    return adaptiveBox(out, H, W, oy, ox);
  };
  return overPlanesBackward(
      x, grad_output, "adaptive_avg_pool2d",
      [&](const auto *, const auto *g, auto *gin) KILN_KERNEL_LAMBDA {
        averageBoxesBackward(g, gin, W, Ho, Wo, boxAt);
      });
}

Tensor adaptive_avg_pool2d(const Tensor &x, int64_t output_size) {
  detail::CountedOp counted;
  return adaptive_avg_pool2d(x, Shape{output_size});
}

} // namespace kiln
