//===- kiln/Autocast.h - Mixed precision scopes -----------------*- C++ -*-===//
//
// torch.autocast("cpu", dtype=...) for C++: within a kiln::autocast scope
// (per thread), the ops that run faster in lower precision (matmul, linear,
// bmm, addmm, baddbmm, einsum, conv1d, conv2d, conv_transpose2d,
// scaled_dot_product_attention) cast their float32 tensor arguments to
// the scope's dtype and return it; the ops that need float32's range
// (cross_entropy) cast 16-bit arguments to float32; every other op runs in
// the dtypes it is given (docs/runtime.md). float64 arguments are left as
// they are, as torch leaves them. Casts are differentiable: gradients
// reach float32 parameters in float32.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOCAST_H
#define KILN_AUTOCAST_H

#include "kiln/DType.h"

namespace kiln {

/// Whether autocast is on on this thread (torch.is_autocast_enabled("cpu")).
bool is_autocast_enabled();
/// The dtype autocast lowers products to (torch.get_autocast_dtype("cpu")):
/// kBFloat16 unless a scope chose kFloat16.
DType get_autocast_dtype();

/// Autocast on (or off, with enabled false) for a scope, restoring the
/// previous state at its end; dtype is kBFloat16 or kFloat16 (anything
/// else throws kiln::Error).
class autocast {
public:
  explicit autocast(DType dtype = kBFloat16, bool enabled = true);
  ~autocast();
  autocast(const autocast &) = delete;
  autocast &operator=(const autocast &) = delete;

private:
  bool previousEnabled_;
  DType previousDtype_;
};

} // namespace kiln

#endif
