//===- Autocast.cpp - kiln::autocast's state ------------------------------===//
#include "Core/Autocast.h"
#include "kiln/Autocast.h"
#include "kiln/Error.h"

namespace kiln {
namespace {
// Per thread, as torch's autocast state; `excluded` while an AutocastOp
// that casts is open, or a NoAutocast.
thread_local bool enabled = false;
thread_local DType lowerDtype = kBFloat16;
thread_local bool excluded = false;
} // namespace

bool is_autocast_enabled() { return enabled; }
DType get_autocast_dtype() { return lowerDtype; }

autocast::autocast(DType dtype, bool on)
    : previousEnabled_(enabled), previousDtype_(lowerDtype) {
  if (dtype != kBFloat16 && dtype != kFloat16)
    throw Error(std::string("autocast: the dtype must be bfloat16 or "
                            "float16, got ") +
                dtypeName(dtype));
  enabled = on;
  lowerDtype = dtype;
}

autocast::~autocast() {
  enabled = previousEnabled_;
  lowerDtype = previousDtype_;
}

namespace detail {

AutocastOp::AutocastOp(CastPolicy policy)
    : active_(enabled && !excluded), policy_(policy),
      to_(policy == CastPolicy::LowerPrecision ? lowerDtype : kFloat32) {
  if (active_)
    excluded = true;
}

AutocastOp::~AutocastOp() {
  if (active_)
    excluded = false;
}

NoAutocast::NoAutocast() : saved_(excluded) { excluded = true; }

NoAutocast::~NoAutocast() { excluded = saved_; }

Tensor AutocastOp::operator()(const Tensor &t) const {
  if (!active_ || !t.defined() || t.device().type != DeviceType::CPU)
    return t;
  DType dt = t.dtype();
  bool cast = policy_ == CastPolicy::LowerPrecision
                  ? dt == kFloat32
                  : dt == kFloat16 || dt == kBFloat16;
  return cast ? t.to(to_) : t;
}

} // namespace detail
} // namespace kiln
