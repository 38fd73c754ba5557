//===- Print.cpp - torch-style printing -----------------------------------===//
//
// Mirrors torch._tensor_str: one formatter per tensor picks integer mode
// ("7."), fixed ("1.2500") or scientific ("1.0000e+08") notation from the
// finite nonzero values shown, pads every element to one width, wraps rows
// at 80 columns, and beyond 1000 elements shows 3 items at each edge of
// every dim around "...". The dtype is named unless it is float32, int64 or
// bool, as torch does for its defaults.
//
//===----------------------------------------------------------------------===//
#include "Ops/Elementwise.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace kiln {
using namespace detail;

namespace {

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

std::string formatDouble(const char *fmt, double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

/// The elements printing shows, in order: indices kept by summarisation.
std::vector<int64_t> shownIndices(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i)
      idx.push_back(i);
    for (int64_t i = size - kEdgeItems; i < size; ++i)
      idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i)
      idx.push_back(i);
  }
  return idx;
}

class Formatter {
public:
  Formatter(const Tensor &values, DType dtype, bool summarize) : dtype_(dtype) {
    collect(values, 0, 0, summarize);
    if (isFloating(dtype))
      chooseFloatMode();
    // Like torch, floats take their width from the finite nonzero values
    // only; nan, inf and 0 are padded to it or overflow it.
    for (double v : shown_)
      if (!isFloating(dtype) || (std::isfinite(v) && v != 0))
        width_ =
            std::max<int64_t>(width_, static_cast<int64_t>(plain(v).size()) +
                                          (floatInt() ? 1 : 0));
  }

  int64_t width() const { return width_; }

  std::string format(double v) const {
    std::string s = plain(v);
    if (floatInt() && std::isfinite(v))
      s += ".";
    return std::string(std::max<int64_t>(0, width_ - (int64_t)s.size()), ' ') +
           s;
  }

private:
  bool floatInt() const { return isFloating(dtype_) && intMode_ && !sciMode_; }

  std::string plain(double v) const {
    if (dtype_ == DType::Bool)
      return v != 0 ? "True" : "False";
    if (!isFloating(dtype_))
      return std::to_string(static_cast<int64_t>(v));
    if (sciMode_)
      return formatDouble("%.4e", v);
    if (intMode_)
      return formatDouble("%.0f", v);
    return formatDouble("%.4f", v);
  }

  void collect(const Tensor &t, int64_t dim, int64_t offset, bool summarize) {
    if (dim == t.dim()) {
      shown_.push_back(t.data<double>()[offset]);
      return;
    }
    for (int64_t i : shownIndices(t.shape()[dim], summarize))
      collect(t, dim + 1, offset + i * t.strides()[dim], summarize);
  }

  void chooseFloatMode() {
    double lo = INFINITY, hi = 0;
    bool any = false;
    for (double v : shown_) {
      if (!std::isfinite(v) || v == 0)
        continue;
      any = true;
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v))
        intMode_ = false;
    }
    if (!any)
      return;
    if (intMode_)
      sciMode_ = hi / lo > 1000.0 || hi > 1e8;
    else
      sciMode_ = hi / lo > 1000.0 || hi > 1e8 || lo < 1e-4;
  }

  DType dtype_;
  std::vector<double> shown_;
  bool intMode_ = true;
  bool sciMode_ = false;
  int64_t width_ = 1;
};

void formatTensor(std::string &out, const Tensor &t, const Formatter &f,
                  int64_t dim, int64_t offset, int64_t indent, bool summarize) {
  int64_t rank = t.dim();
  const double *data = t.data<double>();
  if (rank == 0) {
    out += f.format(data[offset]);
    return;
  }
  int64_t size = t.shape()[dim];
  std::vector<int64_t> idx = shownIndices(size, summarize);
  bool elided = static_cast<int64_t>(idx.size()) < size;
  out += "[";
  if (dim == rank - 1) {
    std::vector<std::string> items;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (elided && k == static_cast<size_t>(kEdgeItems))
        items.push_back(" ...");
      items.push_back(f.format(data[offset + idx[k] * t.strides()[dim]]));
    }
    int64_t perLine =
        std::max<int64_t>(1, (kLineWidth - indent) / (f.width() + 2));
    for (size_t k = 0; k < items.size(); ++k) {
      if (k > 0)
        out += k % perLine == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
      out += items[k];
    }
  } else {
    std::string sep =
        "," + std::string(rank - dim - 1, '\n') + std::string(indent + 1, ' ');
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0)
        out += sep;
      if (elided && k == static_cast<size_t>(kEdgeItems))
        out += "..." + sep;
      formatTensor(out, t, f, dim + 1, offset + idx[k] * t.strides()[dim],
                   indent + 1, summarize);
    }
  }
  out += "]";
}

} // namespace

std::string toString(const Tensor &t) {
  if (!t.defined())
    return "tensor(undefined)";
  std::vector<std::string> suffixes;
  std::string body;
  if (t.numel() == 0) {
    body = "[]";
    if (t.dim() != 1) {
      std::string size = "size=(";
      for (int64_t i = 0; i < t.dim(); ++i)
        size += (i ? ", " : "") + std::to_string(t.shape()[i]);
      suffixes.push_back(size + (t.dim() == 1 ? ",)" : ")"));
    }
  } else {
    bool summarize = t.numel() > kThreshold;
    Tensor host = t.to(Device::cpu());
    Tensor values = host.to(DType::F64).contiguous();
    if (!isFloating(t.dtype()))
      values = host.to(DType::I64).to(DType::F64).contiguous();
    Formatter f(values, t.dtype(), summarize);
    formatTensor(body, values, f, 0, 0, /*indent=*/7, summarize);
  }
  if (t.device().type != DeviceType::CPU)
    suffixes.push_back("device='" + t.device().str() + "'");
  if (t.dtype() != DType::F32 && t.dtype() != DType::I64 &&
      t.dtype() != DType::Bool)
    suffixes.push_back(std::string("dtype=kiln.") + dtypeName(t.dtype()));
  std::string s = "tensor(" + body;
  for (const std::string &suffix : suffixes)
    s += ", " + suffix;
  return s + ")";
}

std::ostream &operator<<(std::ostream &os, const Tensor &t) {
  return os << toString(t);
}

} // namespace kiln
