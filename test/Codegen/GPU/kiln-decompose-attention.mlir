// Tests that kiln.scaled_dot_product_attention is written as the kiln ops
// of its definition for the GPU pipeline: q k^T times the scale (given, or
// 1/sqrt(E) from q's last dim), the mask (added, or -inf where a bool mask
// is false, or the causal triangle from two aranges), softmax, zeros where
// a row attends to nothing, and the product with v.
// RUN: kiln-opt %s -kiln-decompose-attention | FileCheck %s

// CHECK-LABEL: func.func @causal
// CHECK: %[[E:.*]] = kiln.dim %arg0, 3
// CHECK: math.sqrt
// CHECK: %[[KT:.*]] = kiln.transpose %arg1 dims 2, 3
// CHECK: %[[S:.*]] = kiln.matmul %arg0, %[[KT]]
// CHECK: %[[SS:.*]] = kiln.mul %[[S]]
// CHECK: kiln.arange
// CHECK: kiln.arange
// CHECK: %[[KEEP:.*]] = kiln.cmp le
// CHECK: %[[SM:.*]] = kiln.where %[[KEEP]], %[[SS]]
// CHECK: %[[TOP:.*]] = kiln.amax %[[SM]] dims [3] keepdim
// CHECK: %[[P:.*]] = kiln.softmax %[[SM]] dim 3
// CHECK: %[[NONE:.*]] = kiln.cmp eq, %[[TOP]]
// CHECK: %[[P0:.*]] = kiln.where %[[NONE]], %{{.*}}, %[[P]]
// CHECK: kiln.matmul %[[P0]], %arg2
// CHECK-NOT: kiln.scaled_dot_product_attention
func.func @causal(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// CHECK-LABEL: func.func @masks
// CHECK: %[[S:.*]] = arith.truncf %0 : f64 to f32
// CHECK: kiln.from_scalar %[[S]]
// CHECK: kiln.where %arg3,
// CHECK: kiln.add %{{.*}}, %arg5
func.func @masks(%q: tensor<?x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x3xf32>, %m: tensor<?x?xi1>, %s: f32, %bias: tensor<?x?xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %sd = arith.extf %s : f32 to f64
  %a = kiln.scaled_dot_product_attention %q, %k, %v mask %m scale %sd {is_causal = false} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x?xi1>, f64) -> tensor<?x3xf32>
  %b = kiln.scaled_dot_product_attention %q, %k, %v mask %bias {is_causal = false} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x?xf32>) -> tensor<?x3xf32>
  return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
