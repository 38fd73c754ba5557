// Tests each verifier error of the kiln dialect.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+2 {{shapes [2, 3] and [4] cannot be broadcast: dim -1 has sizes 3 and 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @mixed_element_types(%a: tensor<3xf32>, %b: tensor<3xf64>) {
  // The result is in the promoted type, f64.
  // expected-error@+2 {{inferred type(s) 'tensor<3xf64>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.add %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @bool_sub(%a: tensor<3xi1>) {
  // expected-error@+2 {{subtracting bool tensors is not supported; use logical operations or convert with to(kiln::kInt64)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sub %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi64>
  return
}

// -----

func.func @integer_div(%a: tensor<3xi64>) {
  // True division gives floats.
  // expected-error@+1 {{result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = kiln.div %a, %a : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @integer_silu(%a: tensor<3xi32>) {
  // silu, like torch's, is defined on floating tensors only: refused in
  // eager's words.
  // expected-error@+1 {{not supported for dtype i32; convert with to(kiln::kFloat32) first}}
  %0 = kiln.silu %a : tensor<3xi32>
  return
}

// -----

func.func @bool_floor(%a: tensor<3xi1>) {
  // The rounding and sign ops, like eager's, refuse bools.
  // expected-error@+1 {{not supported for dtype i1; convert with to(kiln::kFloat32) first}}
  %0 = kiln.floor %a : tensor<3xi1>
  return
}

// -----

func.func @logical_shapes(%a: tensor<3xf32>, %b: tensor<4xi1>) {
  // The operands broadcast together, as eager's.
  // expected-error@+2 {{shapes [3] and [4] cannot be broadcast: dim -1 has sizes 3 and 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.logical_and %a, %b : (tensor<3xf32>, tensor<4xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @any_dims(%a: tensor<3x2xf32>) {
  // expected-error@+1 {{dim 2 is out of range}}
  %0 = kiln.any %a dims [2] : tensor<3x2xf32> -> tensor<3x2xi1>
  return
}

// -----

func.func @flip_dims(%a: tensor<3x2xf32>) {
  // expected-error@+1 {{dim 2 is out of range for rank 2}}
  %0 = kiln.flip %a dims [0, 2] : tensor<3x2xf32>
  return
}

// -----

func.func @roll_dim(%a: tensor<3xf32>) {
  // expected-error@+1 {{dim 1 is out of range for rank 1}}
  %0 = kiln.roll %a shift 1 dim 1 : tensor<3xf32>
  return
}

// -----

func.func @bool_sign(%a: tensor<3xi1>) {
  // expected-error@+1 {{not supported for dtype i1; convert with to(kiln::kFloat32) first}}
  %0 = kiln.sign %a : tensor<3xi1>
  return
}

// -----

func.func @where_branches(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error@+2 {{inferred type(s) 'tensor<3xf64>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.where %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @where_condition(%c: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = kiln.where %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<3xf32>) {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = kiln.cast %a : tensor<3xf32> to tensor<4xi64>
  return
}

// -----

func.func @reduction_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{dim 2 is out of range for rank 2}}
  %0 = kiln.sum %a dims [2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduction_dims_unsorted(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{dims must be sorted and distinct, got [1, 0]}}
  %0 = kiln.sum %a dims [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @integer_mean(%a: tensor<2x3xi64>) {
  // expected-error@+1 {{not supported for dtype i64; convert with to(kiln::kFloat32) first}}
  %0 = kiln.mean %a dims [] : tensor<2x3xi64> -> tensor<i64>
  return
}

// -----

func.func @softmax_dim(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{dim 2 is out of range for rank 2}}
  %0 = kiln.softmax %a dim 2 : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_shape(%x: tensor<2x3xf32>, %w: tensor<4xf32>) {
  // expected-error@+1 {{the weight's shape [4] must match the last dims of the input's shape [2, 3]}}
  %0 = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error@+1 {{the bias's type 'tensor<2xf32>' differs from the weight's 'tensor<3xf32>'}}
  %0 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @rms_norm_shape(%x: tensor<3xf32>, %w: tensor<2x3xf32>) {
  // expected-error@+1 {{the weight's shape [2, 3] must match the last dims of the input's shape [3]}}
  %0 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+2 {{shapes [2, 3] and [4, 5] cannot be multiplied: contracting sizes 3 and 4 differ}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x2xf32>) {
  // expected-error@+2 {{shapes [2] and [3] cannot be broadcast}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x2xf32>) -> tensor<2x2x2xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error@+2 {{both operands need at least 1 dim}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @linear_in_features(%x: tensor<2x3xf32>, %w: tensor<4x5xf32>) {
  // expected-error@+2 {{the input's last dim (shape [2, 3]) does not match the weight's in_features 5}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.linear %x, %w : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<5xf32>) {
  // expected-error@+2 {{the bias must be [4], got 'tensor<5xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.linear %x, %w, %b : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @embedding_table(%ids: tensor<3xi64>, %t: tensor<5xf32>) {
  // expected-error@+2 {{the table must be 2-d [rows, dim]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.embedding %ids, %t : (tensor<3xi64>, tensor<5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+2 {{the index must have the input's rank}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x, %i dim 0 : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_larger(%x: tensor<3x4xf32>, %i: tensor<3x5xi64>) {
  // expected-error@+2 {{the index's dim 1 is larger than the input's}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x, %i dim 0 : (tensor<3x4xf32>, tensor<3x5xi64>) -> tensor<3x5xf32>
  return
}

// -----

func.func @gather_dim(%x: tensor<3x4xf32>, %i: tensor<3x4xi64>) {
  // expected-error@+2 {{dim 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x, %i dim 2 : (tensor<3x4xf32>, tensor<3x4xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @embedding_float_ids(%ids: tensor<3xf32>, %t: tensor<5x2xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.embedding %ids, %t : (tensor<3xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+2 {{the input has 3 channels but the weight expects 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{strides and dilation must be two values >= 1, padding two values >= 0 and groups >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+2 {{output_padding must be smaller than either stride or dilation in dim 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x12x8xf32>
  return
}

// -----

func.func @conv_transpose_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+2 {{3 groups do not divide the 4 channels}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, groups = 3, dilation = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x7x7xf32>
  return
}

// -----

func.func @conv_transpose_empty(%x: tensor<1x4x1x5xf32>, %w: tensor<4x2x1x3xf32>) {
  // expected-error@+2 {{the output would be empty in dim 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x1x5xf32>, tensor<4x2x1x3xf32>) -> tensor<1x2x1x7xf32>
  return
}

// -----

func.func @conv_kernel(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{the kernel is larger than the padded input in dim 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @cat_shapes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+2 {{input 1 has shape [2, 4] but input 0 has shape [2, 3]; they may differ only in dim 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cat %a, %b dim 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_dim(%a: tensor<2x3xf32>) {
  // expected-error@+2 {{dim 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cat %a dim 2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cross_entropy_targets(%l: tensor<4x10xf32>, %t: tensor<4x1xi64>) {
  // expected-error@+2 {{targets 'tensor<4x1xi64>' do not match logits 'tensor<4x10xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<f32>
  return
}

// -----

func.func @reshape_elements(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = kiln.reshape %a : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_sizes(%a: tensor<?x3xf32>) {
  // expected-error@+1 {{expects one size operand per dynamic dim of 'tensor<?x?xf32>' (2), got 0}}
  %0 = kiln.reshape %a : tensor<?x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @transpose_dims(%a: tensor<2x3xf32>) {
  // expected-error@+2 {{dims 0 and 2 must be in [0, 2)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a dims 0, 2 : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_repeat(%a: tensor<2x3xf32>) {
  // expected-error@+2 {{[0, 0] is not a permutation of [0, 2)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.permute %a [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_step(%a: tensor<8xf32>, %i: index) {
  // expected-error@+1 {{step must be at least 1, got 0}}
  %0 = kiln.slice %a dim 0 [%i : %i step 0] : tensor<8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @slice_too_long(%a: tensor<8xf32>, %i: index) {
  // expected-error@+1 {{sliced size 5 exceeds what dim 0 of size 8 can give}}
  %0 = kiln.slice %a dim 0 [%i : %i step 2] : tensor<8xf32> -> tensor<5xf32>
  return
}

// -----

func.func @slice_other_dim(%a: tensor<8x4xf32>, %i: index) {
  // expected-error@+1 {{dim 1 changes from [8, 4] to [8, 3]}}
  %0 = kiln.slice %a dim 0 [%i : %i] : tensor<8x4xf32> -> tensor<8x3xf32>
  return
}

// -----

func.func @unsqueeze_dim(%a: tensor<2xf32>) {
  // expected-error@+2 {{dim 2 must be in [0, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %a dim 2 : tensor<2xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @squeeze_not_one(%a: tensor<?x3xf32>) {
  // expected-error@+2 {{dim 1 of 'tensor<?x3xf32>' is not of size 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %a dim 1 : tensor<?x3xf32> -> tensor<?xf32>
  return
}

// -----

func.func @expand_size(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{dim 1 of size 3 cannot be expanded to 4}}
  %0 = kiln.expand %a : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @full_value_type() {
  // expected-error@+1 {{value of type 'f64' does not match the element type 'f32'}}
  %0 = kiln.full {value = 1.0 : f64} : tensor<2xf32>
  return
}

// -----

func.func @from_scalar_type(%s: f64) {
  // expected-error@+1 {{cannot hold a 'f64' in a tensor of 'f32'}}
  %0 = kiln.from_scalar %s : f64 -> tensor<f32>
  return
}

// -----

func.func @dim_index(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{index 2 is out of range for rank 2}}
  %0 = kiln.dim %a, 2 : tensor<2x3xf32>
  return
}

// -----

func.func @opaque_missing(%a: tensor<2xf32>) {
  // expected-error@+1 {{'missing' does not name a func.func declaration}}
  %0 = kiln.opaque_call @missing(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func private @f(tensor<2xf32>) -> tensor<2xf32>

func.func @opaque_types(%a: tensor<3xf32>) {
  // expected-error@+1 {{call types '(tensor<3xf32>) -> tensor<2xf32>' do not match 'f' of type '(tensor<2xf32>) -> tensor<2xf32>'}}
  %0 = kiln.opaque_call @f(%a) : (tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @attention_head_dims(%q: tensor<2x5x8xf32>, %k: tensor<2x7x9xf32>, %v: tensor<2x7x8xf32>) {
  // expected-error@+2 {{query, key and value do not fit}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<2x5x8xf32>, tensor<2x7x9xf32>, tensor<2x7x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x8xf32>) {
  // expected-error@+2 {{query, key and value need 2 to 4 dims}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<8xf32>, tensor<7x8xf32>, tensor<7x8xf32>) -> tensor<7x8xf32>
  return
}

// -----

func.func @attention_mask_with_causal(%q: tensor<5x8xf32>, %m: tensor<5x5xi1>) {
  // expected-error@+2 {{a mask with is_causal}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scaled_dot_product_attention %q, %q, %q mask %m {is_causal = true} : (tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x5xi1>) -> tensor<5x8xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<5x8xf32>, %m: tensor<5x5xi64>) {
  // expected-error@+2 {{is neither i1 nor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scaled_dot_product_attention %q, %q, %q mask %m {is_causal = false} : (tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x5xi64>) -> tensor<5x8xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+2 {{4 groups do not divide the 6 filters}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>, groups = 4} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{padding must be at most half the kernel size}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 2, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x4xf32>
  return
}

// -----

func.func @pool_too_small(%x: tensor<1x3x2x8xf32>) {
  // expected-error@+2 {{the padded input is smaller than the kernel in dim 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x2x8xf32>) -> tensor<1x3x1x6xf32>
  return
}

// -----

func.func @avg_pool_dilation(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{dilation is max pooling's}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pool2d avg %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @pool_params(%x: tensor<1x3x8x8xf32>, %k: index) {
  // expected-error@+2 {{expected 2 index operands for the dynamic window parameters, got 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pool2d max %x params [%k] {kernel = array<i64: -9223372036854775808, -9223372036854775808>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, index) -> tensor<1x3x?x?xf32>
  return
}

// -----

func.func @adaptive_size(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{output_size must be two values >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x0x2xf32>
  return
}

// -----

func.func @random_sizes(%n: index) {
  // expected-error@+1 {{expects one size operand per dynamic dim}}
  %0 = kiln.random uniform %n [%n, %n] : tensor<?x4xf32>
  return
}

// -----

func.func @cumsum_dim(%x: tensor<3x4xf32>) {
  // expected-error@+1 {{dim 2 is out of range}}
  %0 = kiln.cumsum %x dim 2 : tensor<3x4xf32>
  return
}

// -----

func.func @cumsum_i32(%x: tensor<3x4xi32>) {
  // expected-error@+1 {{must be ranked tensor of}}
  %0 = kiln.cumsum %x dim 0 : tensor<3x4xi32>
  return
}

// -----

func.func @topk_dim(%x: tensor<3x4xf32>, %k: index) {
  // expected-error@+2 {{dim 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.topk %x, %k dim 2 : (tensor<3x4xf32>, index) -> tensor<3x?xi64>
  return
}

// -----

func.func @scatter_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>) {
  // expected-error@+1 {{the input, index and src must have one rank}}
  %0 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<3x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_dtype(%x: tensor<3x4xf32>, %i: tensor<3x4xi64>, %s: tensor<3x4xf64>) {
  // expected-error@+1 {{src must have the input's element type}}
  %0 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x4xf64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_larger(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>, %s: tensor<3x6xf32>) {
  // expected-error@+1 {{the index's dim 1 is larger than the input's}}
  %0 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<3x4xf32>, tensor<2x5xi64>, tensor<3x6xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @unflatten_two_inferred(%x: tensor<?x12xf32>) {
  %m1 = arith.constant -1 : index
  // expected-error@+2 {{unflatten: only one size may be -1, got [-1, -1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unflatten %x dim 1 sizes [%m1, %m1] : tensor<?x12xf32> -> tensor<?x?x?xf32>
  return
}

// -----

func.func @unflatten_negative_size(%x: tensor<?x12xf32>) {
  %m2 = arith.constant -2 : index
  %c6 = arith.constant 6 : index
  // expected-error@+2 {{unflatten: invalid size [-2, 6]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unflatten %x dim 1 sizes [%m2, %c6] : tensor<?x12xf32> -> tensor<?x?x6xf32>
  return
}

// -----

func.func @reshape_changes_element_type(%x: tensor<6xf32>) {
  // expected-error@+1 {{failed to verify that all of {input, result} have same element type}}
  %0 = kiln.reshape %x : tensor<6xf32> -> tensor<2x3xf64>
  return
}

// -----

func.func @logsumexp_bool(%x: tensor<3x4xi1>) {
  // expected-error@+1 {{must be ranked tensor of}}
  %0 = kiln.logsumexp %x dims [0] : tensor<3x4xi1> -> tensor<4xf32>
  return
}

// -----

func.func @tril_vector(%x: tensor<5xf32>) {
  // expected-error@+2 {{tril: input tensor must have at least 2 dimensions, got rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.tril %x : tensor<5xf32> -> tensor<5xf32>
  return
}

// -----

func.func @batch_norm_rank_one(%x: tensor<4xf32>, %m: tensor<4xf32>) {
  // expected-error@+1 {{batch_norm: expected an input of 2 or more dims, got 'tensor<4xf32>'}}
  %0 = kiln.batch_norm %x, %m, %m {eps = 1.0e-05 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_other_channels(%x: tensor<2x3xf32>, %m: tensor<4xf32>) {
  // expected-error@+1 {{batch_norm: statistics and parameters must have shape [C] (the input's dim 1), got 'tensor<4xf32>' for 'tensor<2x3xf32>'}}
  %0 = kiln.batch_norm %x, %m, %m {eps = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<2x6x4xf32>) {
  %g = arith.constant 4 : index
  // expected-error@+1 {{group_norm: 6 channels do not split into 4 groups}}
  %0 = kiln.group_norm %x groups %g {eps = 1.0e-05 : f64} : (tensor<2x6x4xf32>, index) -> tensor<2x6x4xf32>
  return
}

// -----

func.func @group_norm_weight(%x: tensor<2x6x4xf32>, %w: tensor<3xf32>, %g: index) {
  // expected-error@+1 {{group_norm: weight and bias must have shape [C] (the input's dim 1), got 'tensor<3xf32>' for 'tensor<2x6x4xf32>'}}
  %0 = kiln.group_norm %x groups %g weight %w {eps = 1.0e-05 : f64} : (tensor<2x6x4xf32>, index, tensor<3xf32>) -> tensor<2x6x4xf32>
  return
}

// -----

func.func @clamp_without_bounds(%x: tensor<4xf32>) {
  // expected-error@+1 {{clamp: at least one of min and max must be given}}
  %0 = kiln.clamp %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_tensor_bound(%x: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{the bounds must be 0-d, got 'tensor<4xf32>'}}
  %0 = kiln.clamp %x min %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @masked_fill_larger_mask(%x: tensor<1x4xf32>, %m: tensor<3x4xi1>, %v: tensor<f32>) {
  // expected-error@+2 {{masked_fill: a mask of type 'tensor<3x4xi1>' does not broadcast to the tensor's type 'tensor<1x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.masked_fill %x, %m, %v : (tensor<1x4xf32>, tensor<3x4xi1>, tensor<f32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @leaky_relu_ints(%x: tensor<4xi64>, %k: f64) {
  // expected-error@+1 {{not supported for dtype i64}}
  %0 = kiln.leaky_relu %x, %k : tensor<4xi64>
  return
}

// -----

func.func @norm_integer(%x: tensor<3x4xi64>) {
  // expected-error@+1 {{not supported for dtype i64}}
  %0 = kiln.norm %x p 2.0 dims [1] : tensor<3x4xi64> -> tensor<3xf32>
  return
}

// -----

func.func @norm_dims(%x: tensor<3x4xf32>) {
  // expected-error@+1 {{out of range}}
  %0 = kiln.norm %x p 1.0 dims [2] : tensor<3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @bmm_rank(%a: tensor<3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error@+2 {{bmm: batch1 must be a 3-d tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.bmm %a, %b : (tensor<3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @bmm_batches(%a: tensor<1x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error@+2 {{bmm: batch sizes differ: 1 and 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.bmm %a, %b : (tensor<1x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @addmm_input(%c: tensor<2x3x5xf32>, %m: tensor<3x4xf32>, %n: tensor<4x5xf32>) {
  // expected-error@+2 {{addmm: input of shape [2, 3, 5] does not broadcast to the product's shape [3, 5]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.addmm %c, %m, %n {alpha = 1 : i64, beta = 1 : i64} : (tensor<2x3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @baddbmm_rank(%c: tensor<3x5xf32>, %m: tensor<3x4xf32>, %n: tensor<4x5xf32>) {
  // expected-error@+2 {{baddbmm: batch1 must be a 3-d tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.baddbmm %c, %m, %n {alpha = 1 : i64, beta = 1 : i64} : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @narrow_too_long(%x: tensor<4x3xf32>, %s: index) {
  %c5 = arith.constant 5 : index
  // expected-error@+2 {{narrow: length 5 exceeds dim 1 of size 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.narrow %x dim 1 start %s length %c5 : tensor<4x3xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @select_index(%x: tensor<4x3xf32>) {
  %c4 = arith.constant 4 : index
  // expected-error@+2 {{select: index is out of range for dim 0 of size 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.select %x dim 0 index %c4 : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @stack_shapes(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error@+2 {{stack: expects tensors of one shape, got [2, 3] and [3, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.stack %a, %b dim 0 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @eye_negative(%n: index) {
  %c = arith.constant -2 : index
  // expected-error@+2 {{eye: size -2 must be non-negative}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.eye %n, %c dtype f32 : tensor<?x?xf32>
  return
}

// -----

func.func @one_hot_int32(%ids: tensor<?xi32>, %c: index) {
  // expected-error@+2 {{one_hot: ids must be int64, got 'i32'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.one_hot %ids classes %c : tensor<?xi32> -> tensor<?x?xi64>
  return
}

// -----

func.func @linspace_integer(%a: f64, %n: index) {
  // expected-error@+2 {{linspace: not supported for dtype i64}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.linspace %a, %a, %n dtype i64 : tensor<?xf32>
  return
}

// -----

func.func @randint_bool(%n: index) {
  // expected-error@+2 {{randint: dtype must be numeric, got bool}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.randint %n, %n, [%n] seed %n dtype i1 : tensor<?xi64>
  return
}

// -----

func.func @index_select_2d(%x: tensor<?x4xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+2 {{index_select: the index must be 1-d, got shape [2, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x, %i dim 0 : (tensor<?x4xf32>, tensor<2x2xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @pad_reflect_past_the_dim(%x: tensor<?x3xf32>, %c: index) {
  // expected-error@+2 {{pad: reflect padding [3, 0] must be less than dim 1's size 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pad %x [3, 0] reflect value %c : (tensor<?x3xf32>, index) -> tensor<?x6xf32>
  return
}

// -----

func.func @pad_too_many_pairs(%x: tensor<?xf32>, %c: index) {
  // expected-error@+2 {{pad: [1, 1, 1, 1] must hold a (before, after) pair for each of at most 1 trailing dims}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pad %x [1, 1, 1, 1] constant value %c : (tensor<?xf32>, index) -> tensor<?xf32>
  return
}

// -----

func.func @einsum_contracted(%a: tensor<?x4xf32>, %b: tensor<5x?xf32>) {
  // expected-error@+2 {{einsum: a contracted subscript has size 4 in one operand and 5 in the other}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.einsum "ij,jk->ik" %a, %b : (tensor<?x4xf32>, tensor<5x?xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @einsum_ranks(%a: tensor<?x4xf32>) {
  // expected-error@+2 {{einsum: "ijk" has 3 subscripts for a tensor of 2 dims}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.einsum "ijk->i" %a : (tensor<?x4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @interpolate_nearest_corners(%x: tensor<?x3x4x4xf32>, %h: index) {
  // expected-error@+2 {{interpolate: align_corners is bilinear's, not nearest's}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate %x sizes [%h, %h] nearest {align_corners = false} : (tensor<?x3x4x4xf32>, index, index) -> tensor<?x3x?x?xf32>
  return
}

// -----

func.func @interpolate_to_nothing(%x: tensor<?x3x4x4xf32>) {
  %f = arith.constant 0.2 : f64
  // expected-error@+2 {{interpolate: size must be at least 1, got 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate_scaled %x scale %f bilinear : (tensor<?x3x4x4xf32>, f64) -> tensor<?x3x0x0xf32>
  return
}
