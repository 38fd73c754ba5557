//===- NN.cpp - embedding, conv1d, conv2d, conv_transpose2d, cross_entropy ===//
#include "Core/Autocast.h"
#include "Core/Autograd.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/Gemm.h"

#include <cstring>

namespace kiln {
using namespace detail;

namespace {

/// Checks that every id is a valid row of a table with rows rows.
void checkIds(const Tensor &ids, int64_t rows, const char *op,
              const char *what) {
  if (!isIntegral(ids.dtype(), false))
    throw Error(std::string(op) + ": " + what +
                " must be an integer tensor, got " + dtypeName(ids.dtype()));
  if (ids.numel() == 0)
    return;
  int64_t lo = amin(ids).item<int64_t>(), hi = amax(ids).item<int64_t>();
  if (lo < 0 || hi >= rows)
    throw Error(
        std::string(op) + ": " + what + " " + std::to_string(lo < 0 ? lo : hi) +
        " is out of range for " + std::to_string(rows) + " rows" +
        (rows > 0 ? " (valid ids are 0.." + std::to_string(rows - 1) + ")"
                  : std::string(" (there is none to pick)")));
}

} // namespace

Shape detail::pairParam(const Shape &value, const char *op, const char *name,
                        int64_t minimum) {
  if (value.size() != 1 && value.size() != 2)
    throw Error(std::string(op) + ": " + name +
                " takes one value or two ({h, w}), got " + shapeStr(value));
  Shape pair = value.size() == 1 ? Shape{value[0], value[0]} : value;
  for (int64_t v : pair)
    if (v < minimum)
      throw Error(std::string(op) + ": " + name + " must be at least " +
                  std::to_string(minimum) + ", got " + shapeStr(value));
  return pair;
}

void detail::checkGradOutput(const Tensor &g, const Shape &expected, DType dt,
                             const char *op, const char *of) {
  checkCpu(g, op);
  if (g.shape() != expected || g.dtype() != dt)
    throw Error(std::string(op) + ": grad_output must be the " + of + "'s " +
                shapeStr(expected) + " " + dtypeName(dt) + ", got " +
                shapeStr(g.shape()) + " " + dtypeName(g.dtype()));
}

static Tensor embeddingForward(const Tensor &ids, const Tensor &table);

Tensor embedding(const Tensor &ids, const Tensor &table) {
  detail::CountedOp counted;
  autograd::Recorder grad("EmbeddingBackward0", ids, table);
  Tensor out = embeddingForward(ids, table);
  if (grad)
    grad.record(out, [shape = table.shape(), si = grad.save(ids)](
                         const autograd::Grads &g, const autograd::Needs &) {
      // Each row's gradients added into the row its id picked.
      int64_t width = shape[1];
      Tensor rows = g[0].reshape({-1, width});
      Tensor index = si.get()
                         .to(DType::I64)
                         .reshape({-1, 1})
                         .expand({rows.size(0), width});
      return autograd::Grads{
          Tensor(), scatter_add(zeros(shape, g[0].dtype()), 0, index, rows)};
    });
  return out;
}

static Tensor embeddingForward(const Tensor &ids, const Tensor &table) {
  checkCpu(ids, "embedding");
  checkCpu(table, "embedding");
  if (table.dim() != 2)
    throw Error("embedding: the table must be 2-d [rows, dim], got shape " +
                shapeStr(table.shape()));
  int64_t rows = table.size(0), width = table.size(1);
  checkIds(ids, rows, "embedding", "index");
  Tensor idx = ids.to(DType::I64).contiguous();
  Tensor t = table.contiguous();
  Shape shape = ids.shape();
  shape.push_back(width);
  Tensor out(shape, table.dtype());
  const int64_t *pi = idx.data<int64_t>();
  const char *src = static_cast<const char *>(t.raw_data());
  char *dst = static_cast<char *>(out.raw_data());
  size_t rowBytes = static_cast<size_t>(width) * elementSize(table.dtype());
  int64_t n = idx.numel();
  parallelFor(n, n * width, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      std::memcpy(dst + i * rowBytes, src + pi[i] * rowBytes, rowBytes);
  });
  return out;
}

Tensor conv1d(const Tensor &x, const Tensor &w, const Tensor &b, int64_t stride,
              int64_t padding, int64_t dilation, int64_t groups) {
  detail::CountedOp counted;
  if (x.dim() != 2 && x.dim() != 3)
    throw Error("conv1d: the input must be 3-d [N, C, L] or 2-d [C, L], got "
                "shape " +
                shapeStr(x.shape()));
  if (w.dim() != 3)
    throw Error("conv1d: the weight must be 3-d [out, in/groups, k], got "
                "shape " +
                shapeStr(w.shape()));
  if (stride < 1 || padding < 0 || dilation < 1)
    throw Error("conv1d: stride and dilation must be at least 1 and padding "
                "at least 0, got " +
                std::to_string(stride) + ", " + std::to_string(dilation) +
                " and " + std::to_string(padding));
  return conv2d(x.unsqueeze(-2), w.unsqueeze(-2), b, Shape{1, stride},
                Shape{0, padding}, Shape{1, dilation}, groups)
      .squeeze(-2);
}

Tensor conv2d(const Tensor &x, const Tensor &w, const Tensor &b, int64_t stride,
              int64_t padding, int64_t dilation, int64_t groups) {
  detail::CountedOp counted;
  return conv2d(x, w, b, Shape{stride}, Shape{padding}, Shape{dilation},
                groups);
}

namespace {
/// A convolution's sizes: input [C, H, W], kernel taps [kH, kW], output
/// [Ho, Wo], and the stride, padding and dilation pairs.
struct ConvGeometry {
  int64_t C, H, W, kH, kW, Ho, Wo;
  Shape stride, pad, dil;
};

/// im2col: row (c, i, j) of cols [C * kH * kW, Ho * Wo] holds the input
/// pixel that kernel tap (i, j) of channel c sees at each output position
/// (0 in padding).
template <typename T>
void im2col(const T *img, T *cols, const ConvGeometry &q) {
  int64_t K = q.C * q.kH * q.kW, P = q.Ho * q.Wo;
  parallelFor(K, K * P, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t c = r / (q.kH * q.kW), i = (r / q.kW) % q.kH, j = r % q.kW;
      T *dst = cols + r * P;
      for (int64_t oy = 0; oy < q.Ho; ++oy) {
        int64_t iy = oy * q.stride[0] - q.pad[0] + i * q.dil[0];
        for (int64_t ox = 0; ox < q.Wo; ++ox) {
          int64_t ix = ox * q.stride[1] - q.pad[1] + j * q.dil[1];
          dst[oy * q.Wo + ox] = (iy >= 0 && iy < q.H && ix >= 0 && ix < q.W)
                                    ? img[(c * q.H + iy) * q.W + ix]
                                    : T(0);
        }
      }
    }
  });
}

/// conv2d's gradients (ATen's convolution_backward): the input's is the
/// transposed convolution of g with the same weight (output_padding making
/// up what the stride's floor dropped); the weight's, per group, g [Og, P]
/// times the input's columns [P, Kg] summed over the batch; the bias's, g
/// summed over all but the channels.
autograd::Grads conv2dBackward(const Tensor &g, const Tensor &x,
                               const Tensor &w, const ConvGeometry &q,
                               int64_t groups, const autograd::Needs &needs) {
  Tensor gin, gw, gb;
  if (needs[0]) {
    Shape extra;
    for (int i = 0; i < 2; ++i) {
      int64_t in = i == 0 ? q.H : q.W, out = i == 0 ? q.Ho : q.Wo;
      int64_t k = i == 0 ? q.kH : q.kW;
      extra.push_back(in - ((out - 1) * q.stride[i] - 2 * q.pad[i] +
                            q.dil[i] * (k - 1) + 1));
    }
    gin =
        conv_transpose2d(g, w, Tensor(), q.stride, q.pad, extra, groups, q.dil);
  }
  if (needs[1]) {
    DType ct = computeType(x.dtype());
    Tensor xin = (x.dim() == 3 ? x.unsqueeze(0) : x).to(ct).contiguous();
    Tensor go = (g.dim() == 3 ? g.unsqueeze(0) : g).to(ct).contiguous();
    int64_t N = xin.size(0), O = w.size(0), Og = O / groups;
    int64_t Kg = w.size(1) * q.kH * q.kW, P = q.Ho * q.Wo;
    Tensor acc = zeros({O, Kg}, ct);
    dispatchCompute(ct, "conv2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point<T>::value) {
        std::vector<T> cols(static_cast<size_t>(q.C * q.kH * q.kW * P));
        for (int64_t n = 0; n < N; ++n) {
          im2col(xin.data<T>() + n * q.C * q.H * q.W, cols.data(), q);
          for (int64_t gi = 0; gi < groups; ++gi)
            gemm<T>(Og, Kg, P, go.data<T>() + (n * O + gi * Og) * P, P, 1,
                    cols.data() + gi * Kg * P, 1, P,
                    acc.data<T>() + gi * Og * Kg, /*accumulate=*/true);
        }
      }
    });
    gw = acc.view(w.shape()).to(w.dtype());
  }
  if (needs.size() > 2 && needs[2]) {
    Shape dims{g.dim() - 2, g.dim() - 1};
    if (g.dim() == 4)
      dims.insert(dims.begin(), 0);
    gb = sum(g, dims);
  }
  return {gin, gw, gb};
}
/// conv2d's checks of x, w and its parameters (those of the bias aside),
/// and its geometry.
ConvGeometry convGeometry(const Tensor &x, const Tensor &w,
                          const Shape &strideParam, const Shape &paddingParam,
                          const Shape &dilationParam, int64_t groups) {
  checkCpu(x, "conv2d");
  checkCpu(w, "conv2d");
  if (x.dim() != 3 && x.dim() != 4)
    throw Error("conv2d: the input must be 4-d [N, C, H, W] or 3-d [C, H, W], "
                "got shape " +
                shapeStr(x.shape()));
  if (w.dim() != 4)
    throw Error("conv2d: the weight must be 4-d [out, in/groups, kH, kW], got "
                "shape " +
                shapeStr(w.shape()));
  if (x.dtype() != w.dtype() || !isFloating(x.dtype()))
    throw Error(std::string("conv2d: input and weight must have the same "
                            "floating dtype, got ") +
                dtypeName(x.dtype()) + " and " + dtypeName(w.dtype()));
  Shape stride = pairParam(strideParam, "conv2d", "stride", 1);
  Shape pad = pairParam(paddingParam, "conv2d", "padding", 0);
  Shape dil = pairParam(dilationParam, "conv2d", "dilation", 1);
  int64_t C = x.size(-3), H = x.size(-2), W = x.size(-1);
  int64_t O = w.size(0), Cg = w.size(1), kH = w.size(2), kW = w.size(3);
  if (groups < 1)
    throw Error("conv2d: groups must be at least 1, got " +
                std::to_string(groups));
  if (C % groups != 0 || O % groups != 0)
    throw Error("conv2d: " + std::to_string(groups) +
                " groups do not divide the input's " + std::to_string(C) +
                " channels and the weight's " + std::to_string(O) + " outputs");
  if (Cg * groups != C)
    throw Error(
        "conv2d: the input has " + std::to_string(C) + " channels (shape " +
        shapeStr(x.shape()) + ") but the weight expects " +
        std::to_string(Cg * groups) + " (shape " + shapeStr(w.shape()) + ", " +
        std::to_string(groups) + (groups == 1 ? " group)" : " groups)"));
  // The kernel's extent on the input: taps dil apart.
  int64_t spanH = dil[0] * (kH - 1) + 1, spanW = dil[1] * (kW - 1) + 1;
  if (H + 2 * pad[0] < spanH || W + 2 * pad[1] < spanW)
    throw Error("conv2d: the kernel " + shapeStr({spanH, spanW}) +
                (dil[0] * dil[1] != 1 ? " (dilated)" : "") +
                " is larger than the padded input " +
                shapeStr({H + 2 * pad[0], W + 2 * pad[1]}));
  int64_t Ho = (H + 2 * pad[0] - spanH) / stride[0] + 1;
  int64_t Wo = (W + 2 * pad[1] - spanW) / stride[1] + 1;
  return {C, H, W, kH, kW, Ho, Wo, stride, pad, dil};
}
} // namespace

Tensor conv2d(const Tensor &x0, const Tensor &w0, const Tensor &b0,
              const Shape &strideParam, const Shape &paddingParam,
              const Shape &dilationParam, int64_t groups) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor x = autocast(x0), w = autocast(w0), b = autocast(b0);
  autograd::Recorder grad("ConvolutionBackward0", x, w, b);
  ConvGeometry geometry =
      convGeometry(x, w, strideParam, paddingParam, dilationParam, groups);
  Tensor in = x.dim() == 3 ? x.unsqueeze(0) : x;
  int64_t N = in.size(0), C = geometry.C, H = geometry.H, W = geometry.W;
  int64_t O = w.size(0), Cg = w.size(1), kH = geometry.kH, kW = geometry.kW;
  int64_t Ho = geometry.Ho, Wo = geometry.Wo;
  if (b.defined() && (b.dim() != 1 || b.size(0) != O))
    throw Error("conv2d: the bias must have shape [" + std::to_string(O) +
                "], got " + shapeStr(b.shape()));

  DType ct = computeType(x.dtype());
  Tensor xin = in.to(ct).contiguous();
  // Group g's outputs are rows [g*Og, (g+1)*Og) of the weight, against
  // rows [g*Kg, (g+1)*Kg) of the columns (its channels' taps).
  int64_t Og = O / groups, Kg = Cg * kH * kW;
  Tensor wmat = w.to(ct).contiguous().view({O, Kg});
  Tensor out({N, O, Ho, Wo}, ct);
  int64_t K = C * kH * kW, P = Ho * Wo;
  dispatchCompute(ct, "conv2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<T>::value) {
      std::vector<T> cols(static_cast<size_t>(K * P));
      for (int64_t n = 0; n < N; ++n) {
        im2col(xin.data<T>() + n * C * H * W, cols.data(), geometry);
        for (int64_t g = 0; g < groups; ++g)
          gemm<T>(Og, P, Kg, wmat.data<T>() + g * Og * Kg, Kg, 1,
                  cols.data() + g * Kg * P, P, 1,
                  out.data<T>() + (n * O + g * Og) * P);
      }
    }
  });
  if (b.defined())
    out = out + b.to(ct).view({1, O, 1, 1});
  if (x.dim() == 3)
    out = out.squeeze(0);
  out = out.to(x.dtype());
  if (grad)
    grad.record(out, [sx = grad.save(x), sw = grad.save(w), geometry, groups](
                         const autograd::Grads &g, const autograd::Needs &n) {
      // The input's gradient needs the weight's values, the weight's the
      // input's.
      return conv2dBackward(g[0], n[1] ? sx.get() : sx.metadata(),
                            n[0] ? sw.get() : sw.metadata(), geometry, groups,
                            n);
    });
  return out;
}

std::tuple<Tensor, Tensor>
conv2d_backward(const Tensor &grad_output, const Tensor &x, const Tensor &w,
                const Shape &stride, const Shape &padding,
                const Shape &dilation, int64_t groups,
                std::array<bool, 2> output_mask) {
  detail::CountedOp counted;
  ConvGeometry q = convGeometry(x, w, stride, padding, dilation, groups);
  Shape expected = x.shape();
  expected[expected.size() - 3] = w.size(0);
  expected[expected.size() - 2] = q.Ho;
  expected[expected.size() - 1] = q.Wo;
  checkGradOutput(grad_output, expected, x.dtype(), "conv2d_backward",
                  "convolution");
  autograd::Grads g = conv2dBackward(grad_output, x, w, q, groups,
                                     {output_mask[0], output_mask[1], false});
  return {g[0], g[1]};
}

Tensor conv_transpose2d(const Tensor &x, const Tensor &w, const Tensor &b,
                        int64_t stride, int64_t padding, int64_t output_padding,
                        int64_t groups, int64_t dilation) {
  detail::CountedOp counted;
  return conv_transpose2d(x, w, b, Shape{stride}, Shape{padding},
                          Shape{output_padding}, groups, Shape{dilation});
}

Tensor conv_transpose2d(const Tensor &x0, const Tensor &w0, const Tensor &b0,
                        const Shape &strideParam, const Shape &paddingParam,
                        const Shape &outputPaddingParam, int64_t groups,
                        const Shape &dilationParam) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor x = autocast(x0), w = autocast(w0), b = autocast(b0);
  const char *op = "conv_transpose2d";
  checkCpu(x, op);
  checkCpu(w, op);
  if (x.dim() != 3 && x.dim() != 4)
    throw Error("conv_transpose2d: the input must be 4-d [N, C, H, W] or 3-d "
                "[C, H, W], got shape " +
                shapeStr(x.shape()));
  if (w.dim() != 4)
    throw Error("conv_transpose2d: the weight must be 4-d [in, out/groups, "
                "kH, kW], got shape " +
                shapeStr(w.shape()));
  Shape stride = pairParam(strideParam, op, "stride", 1);
  Shape pad = pairParam(paddingParam, op, "padding", 0);
  Shape extra = pairParam(outputPaddingParam, op, "output_padding", 0);
  Shape dil = pairParam(dilationParam, op, "dilation", 1);
  Tensor in = x.dim() == 3 ? x.unsqueeze(0) : x;
  int64_t C = in.size(1);
  if (groups < 1 || C % groups != 0)
    throw Error("conv_transpose2d: groups must be at least 1 and divide the "
                "input's " +
                std::to_string(C) + " channels, got " + std::to_string(groups));
  if (w.size(0) != C)
    throw Error("conv_transpose2d: the input has " + std::to_string(C) +
                " channels (shape " + shapeStr(x.shape()) +
                ") but the weight expects " + std::to_string(w.size(0)) +
                " (shape " + shapeStr(w.shape()) + ")");
  for (int i = 0; i < 2; ++i)
    if (extra[i] >= stride[i] && extra[i] >= dil[i])
      throw Error("conv_transpose2d: output_padding " + shapeStr(extra) +
                  " must be smaller than either stride " + shapeStr(stride) +
                  " or dilation " + shapeStr(dil));
  // stride - 1 zeros between the input's pixels, along H then W.
  Tensor y = in;
  for (int i = 0; i < 2; ++i) {
    int64_t d = 2 + i, n = y.size(d), s = stride[i];
    if (s == 1 || n == 0)
      continue;
    Shape gaps = y.shape();
    gaps.insert(gaps.begin() + d + 1, s - 1);
    Tensor spread = cat({y.unsqueeze(d + 1), zeros(gaps, y.dtype())}, d + 1);
    Shape merged = y.shape();
    merged[d] = n * s;
    y = spread.reshape(merged).narrow(d, 0, (n - 1) * s + 1);
  }
  // Each side padded by dilation * (k - 1) - padding, the far side by
  // output_padding more (negative pads crop).
  Shape pads;
  for (int i = 1; i >= 0; --i) {
    int64_t q = dil[i] * (w.size(2 + i) - 1) - pad[i];
    pads.insert(pads.end(), {q, q + extra[i]});
  }
  y = kiln::pad(y, pads);
  // The weight as the convolution's: flipped, in and out swapped within
  // each group.
  int64_t Og = w.size(1), kH = w.size(2), kW = w.size(3);
  Tensor wc = flip(w, {2, 3})
                  .reshape({groups, C / groups, Og, kH, kW})
                  .transpose(1, 2)
                  .reshape({groups * Og, C / groups, kH, kW});
  Tensor out = conv2d(y, wc, b, Shape{1}, Shape{0}, dil, groups);
  return x.dim() == 3 ? out.squeeze(0) : out;
}

Tensor cross_entropy(const Tensor &logits0, const Tensor &targets) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::Float32);
  const Tensor logits = autocast(logits0);
  checkCpu(logits, "cross_entropy");
  checkCpu(targets, "cross_entropy");
  if (logits.dim() != 1 && logits.dim() != 2)
    throw Error("cross_entropy: logits must be [N, C] or [C], got shape " +
                shapeStr(logits.shape()));
  if (targets.dim() != logits.dim() - 1 ||
      (logits.dim() == 2 && targets.size(0) != logits.size(0)))
    throw Error("cross_entropy: targets of shape " + shapeStr(targets.shape()) +
                " do not match logits of shape " + shapeStr(logits.shape()) +
                " (expected " +
                (logits.dim() == 2 ? "[" + std::to_string(logits.size(0)) + "]"
                                   : std::string("[]")) +
                ")");
  checkIds(targets, logits.size(-1), "cross_entropy", "target");
  Tensor logp = log_softmax(logits, -1);
  Tensor lp2 = logits.dim() == 1 ? logp.unsqueeze(0) : logp;
  Tensor t = targets.to(DType::I64).reshape({-1});
  int64_t n = t.numel(), classes = lp2.size(1);
  // Pick log p[i, t_i] with an embedding lookup on the flattened rows.
  Tensor picked = embedding(t + arange(n) * classes, lp2.reshape({-1, 1}));
  return -mean(picked);
}

} // namespace kiln
