// Tests that kiln.scaled_dot_product_attention becomes a call of the
// runtime's fused kernel: operands padded to rank 4 (leading unit dims)
// with dynamic sizes, flags (bit 0 is_causal, bit 1 mask, bit 2 scale),
// the result collapsed back to the op's rank; bool masks call the
// bool_mask variant, f16 computes in f32 between kiln.casts, bf16 calls
// the bf16 variant as it is (the kernel reads it, as eager's does), and
// without a mask the query stands in for it.
// RUN: kiln-opt %s -kiln-attention-to-runtime | FileCheck %s

// CHECK-DAG: func.func private @kiln_attention_f32(tensor<?x?x?x?xf32> {bufferization.access = "read"}, tensor<?x?x?x?xf32> {bufferization.access = "read"}, tensor<?x?x?x?xf32> {bufferization.access = "read"}, tensor<?x?x?x?xf32> {bufferization.access = "read"}, i64, f64) -> tensor<?x?x?x?xf32> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_attention_bool_mask_f32({{.*}}tensor<?x?x?x?xi1> {bufferization.access = "read"}, i64, f64) -> tensor<?x?x?x?xf32>

// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x8xf32>, %[[K:.*]]: tensor<?x4x?x8xf32>, %[[V:.*]]: tensor<?x4x?x8xf32>)
// CHECK-DAG: %[[QC:.*]] = tensor.cast %[[Q]] : tensor<?x4x?x8xf32> to tensor<?x?x?x?xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 1 : i64
// CHECK: %[[O:.*]] = call @kiln_attention_f32(%[[QC]], %{{.*}}, %{{.*}}, %[[QC]], %[[FLAGS]], %{{.*}})
// CHECK: tensor.cast %[[O]] : tensor<?x?x?x?xf32> to tensor<?x4x?x8xf32>
// CHECK-NOT: kiln.scaled_dot_product_attention
func.func @causal(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// CHECK-LABEL: func.func @masked_rank3
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1], [2], [3]] {{.*}} : tensor<?x?x8xf32> into tensor<1x?x?x8xf32>
// CHECK: tensor.expand_shape %arg3 {{\[}}[0, 1, 2], [3]] {{.*}} : tensor<?x?xi1> into tensor<1x1x?x?xi1>
// CHECK: %[[FLAGS:.*]] = arith.constant 6 : i64
// CHECK: %[[O:.*]] = call @kiln_attention_bool_mask_f32({{.*}}, %[[FLAGS]], %arg4)
// CHECK: %[[O1:.*]] = tensor.cast %[[O]] : tensor<?x?x?x?xf32> to tensor<1x?x?x?xf32>
// CHECK: tensor.collapse_shape %[[O1]] {{\[}}[0, 1], [2], [3]] : tensor<1x?x?x?xf32> into tensor<?x?x?xf32>
func.func @masked_rank3(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x8xf32>, %m: tensor<?x?xi1>, %s: f64) -> tensor<?x?x8xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m scale %s {is_causal = false} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?xi1>, f64) -> tensor<?x?x8xf32>
  return %o : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @half
// CHECK: kiln.cast %arg0 : tensor<?x?xf16> to tensor<?x?xf32>
// CHECK: call @kiln_attention_f32
// CHECK: kiln.cast %{{.*}} : tensor<?x?xf32> to tensor<?x?xf16>
func.func @half(%q: tensor<?x?xf16>, %k: tensor<?x?xf16>, %v: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<?x?xf16>, tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %o : tensor<?x?xf16>
}

// CHECK-LABEL: func.func @bfloat16
// CHECK-NOT: kiln.cast
// CHECK: %[[O:.*]] = call @kiln_attention_bool_mask_bf16({{.*}}) : (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xi1>, i64, f64) -> tensor<?x?x?x?xbf16>
// CHECK-NOT: kiln.cast
// CHECK: return
func.func @bfloat16(%q: tensor<2x?x?x64xbf16>, %k: tensor<2x?x?x64xbf16>, %v: tensor<2x?x?x64xbf16>, %m: tensor<?x?xi1>) -> tensor<2x?x?x64xbf16> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m {is_causal = false} : (tensor<2x?x?x64xbf16>, tensor<2x?x?x64xbf16>, tensor<2x?x?x64xbf16>, tensor<?x?xi1>) -> tensor<2x?x?x64xbf16>
  return %o : tensor<2x?x?x64xbf16>
}
