//===- Attention.h - The fused attention kernel, for compiled code -*- C++
//-*-===//
#ifndef KILN_RUNTIME_ATTENTION_H
#define KILN_RUNTIME_ATTENTION_H

#include "kiln/Tensor.h"

#include <optional>

namespace kiln::detail {

/// scaled_dot_product_attention (same checks, same kernel); with
/// nanWhenUnattended, a query that attends to no key gives NaN, as the
/// softmax of attention written out does, instead of zeros
/// (kiln-recognize-attention).
Tensor scaledDotProductAttention(const Tensor &query, const Tensor &key,
                                 const Tensor &value, const Tensor &attn_mask,
                                 double dropout_p, bool is_causal,
                                 std::optional<double> scale,
                                 bool nanWhenUnattended);

} // namespace kiln::detail

#endif
