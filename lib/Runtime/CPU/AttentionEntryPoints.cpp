//===- AttentionEntryPoints.cpp - Fused attention for compiled code -------===//
//
// The functions kiln-attention-to-runtime makes compiled code call for
// kiln.scaled_dot_product_attention: the eager kernel (Ops/Attention.cpp)
// on the graph's buffers, borrowed as rank-4 tensors, its result returned
// in a buffer the graph owns (abi::callOpaque). When the eager function
// throws (sizes it rejects), the graph call fails and its statements run
// eagerly, which raise the same error.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "Core/Stats.h"
#include "Ops/Attention.h"
#include "kiln/Ops.h"

#include <cstdint>

namespace {
using namespace kiln;

/// flags: bit 0 is_causal, bit 1 a mask is given, bit 2 scale is given
/// (otherwise 1 / sqrt(E)), bit 3 a query that attends to no key gives NaN
/// (attention that was written out: kiln-recognize-attention), bit 4 the
/// mask is the causal triangle: when it is [L, S] exactly, the kernel runs
/// causal (skipping the keys past each query) instead of reading it;
/// otherwise the call fails and the graph's statements run eagerly, where
/// the written-out `where` broadcasts it or raises.
struct AttentionCall {
  void *q, *k, *v, *mask;
  int64_t flags;
  double scale;
  DType dtype, maskDType;
};

template <DType D, DType Mask>
void attentionEntry(void *result, void *q, void *k, void *v, void *mask,
                    int64_t flags, double scale) {
  detail::UncountedOps uncounted;
  AttentionCall call{q, k, v, mask, flags, scale, D, Mask};
  abi::callOpaque(
      "scaled_dot_product_attention", result, 4, D,
      [](void *context) -> Tensor {
        const auto &c = *static_cast<const AttentionCall *>(context);
        Tensor m = c.flags & 2 ? abi::borrow(c.mask, 4, c.maskDType) : Tensor();
        std::optional<double> s;
        if (c.flags & 4)
          s = c.scale;
        Tensor q = abi::borrow(c.q, 4, c.dtype), k = abi::borrow(c.k, 4, c.dtype);
        bool causal = (c.flags & 1) != 0;
        if (c.flags & 16) {
          if (m.size(2) != q.size(2) || m.size(3) != k.size(2))
            throw Error("scaled_dot_product_attention: the causal mask does "
                        "not fit the scores exactly");
          m = Tensor();
          causal = true;
        }
        return detail::scaledDotProductAttention(
            q, k, abi::borrow(c.v, 4, c.dtype), m, 0.0, causal, s,
            (c.flags & 8) != 0);
      },
      &call);
}
} // namespace

#define KILN_ATTENTION_ENTRY(NAME, D, MASK)                                    \
  extern "C" void _mlir_ciface_##NAME(void *result, void *q, void *k, void *v, \
                                      void *mask, int64_t flags,               \
                                      double scale) {                          \
    attentionEntry<D, MASK>(result, q, k, v, mask, flags, scale);              \
  }
KILN_ATTENTION_ENTRY(kiln_attention_f32, kiln::kFloat32, kiln::kFloat32)
KILN_ATTENTION_ENTRY(kiln_attention_f64, kiln::kFloat64, kiln::kFloat64)
KILN_ATTENTION_ENTRY(kiln_attention_bool_mask_f32, kiln::kFloat32, kiln::kBool)
KILN_ATTENTION_ENTRY(kiln_attention_bool_mask_f64, kiln::kFloat64, kiln::kBool)
KILN_ATTENTION_ENTRY(kiln_attention_bf16, kiln::kBFloat16, kiln::kBFloat16)
KILN_ATTENTION_ENTRY(kiln_attention_bool_mask_bf16, kiln::kBFloat16,
                     kiln::kBool)
#undef KILN_ATTENTION_ENTRY
