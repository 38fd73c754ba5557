//===- Autocast.h - What an op does under kiln::autocast --------*- C++ -*-===//
//
// An op autocast applies to opens an AutocastOp before it reads its tensor
// arguments and takes each through it: when autocast is on and no other
// such op encloses this one, it casts the argument as the op's policy asks
// (ATen's lower_precision_fp and fp32 lists); inside, ops see autocast off,
// as ATen's autocast kernels redispatch below the autocast key. Ops built
// from others that are not on a list (einsum's products aside) need
// nothing: their inner products cast.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CORE_AUTOCAST_H
#define KILN_RUNTIME_CORE_AUTOCAST_H

#include "kiln/Tensor.h"

namespace kiln::detail {

enum class CastPolicy {
  LowerPrecision, // float32 arguments to the autocast dtype
  Float32,        // float16 and bfloat16 arguments to float32
};

class AutocastOp {
public:
  explicit AutocastOp(CastPolicy policy);
  ~AutocastOp();
  AutocastOp(const AutocastOp &) = delete;
  AutocastOp &operator=(const AutocastOp &) = delete;

  /// t as the op computes with it (t itself when autocast does not apply).
  Tensor operator()(const Tensor &t) const;

private:
  bool active_;
  CastPolicy policy_;
  DType to_;
};

/// Autocast off on this thread for the scope, whatever the user's scope
/// says: the runtime's kernels that compiled code calls (a convolution the
/// graph already typed, its operands cast as the twin decided) run as
/// called, as torch's compiled graphs run their fallback kernels under
/// _DisableAutocast.
class NoAutocast {
public:
  NoAutocast();
  ~NoAutocast();
  NoAutocast(const NoAutocast &) = delete;
  NoAutocast &operator=(const NoAutocast &) = delete;

private:
  bool saved_;
};

} // namespace kiln::detail

#endif
