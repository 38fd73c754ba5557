// Tests that kiln-differentiate adds each function's backward: the forward
// recomputed, each op's gradient in reverse, gradients summed over the dims
// an operand was broadcast along (decided at run time where its sizes are
// dynamic), none for integer operands, zeros for an input nothing reaches,
// the gradients of ops reached from some results only kept where one of
// those arrived; and that a gradient reaching an op without one, or an op with effects
// the recomputed forward would repeat, is an error that names it.
// (test/e2e/gradients.mlir checks the values against eager autograd.)
// RUN: kiln-opt %s -kiln-differentiate -cse -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @exp_backward
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[DY:.*]]: tensor<?xf32>, %{{.*}}: i64) -> tensor<?xf32>
// CHECK: %[[Y:.*]] = kiln.exp %[[X]]
// CHECK: %[[DX:.*]] = kiln.mul %[[DY]], %[[Y]]
// CHECK: return %[[DX]]
func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = kiln.exp %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// An operand of dynamic sizes is viewed as [r0, k0, r1, k1] (r: the
// gradient's size where the operand's is 1, else 1; k: the operand's) and
// summed over the r dims, so that it is summed over what it was broadcast
// along as that turns out at run time (a [1, N] row: r0 is the gradient's
// size); the integer operand takes no gradient; a float input the results
// do not read gets zeros.
// CHECK-LABEL: func.func @broadcast_backward
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<1x?xf32>, %[[C:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>, %[[U:.*]]: tensor<?xf32>, %[[DY:.*]]: tensor<?x?xf32>, %[[DZ:.*]]: tensor<4xf32>, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: -> (tensor<?x?xf32> {kiln.gradient_sources = array<i64: 0>}, tensor<1x?xf32> {kiln.gradient_sources = array<i64: 0>}, tensor<4xf32> {kiln.gradient_sources = array<i64: 1>}, tensor<?xf32> {kiln.gradient_sources = array<i64>})
// CHECK: %[[DC:.*]] = kiln.mul %[[DZ]], %[[I]] : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
// CHECK: %[[A0:.*]] = kiln.dim %[[A]], 0
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[A0]], %[[C1:.*]] : index
// CHECK: %[[G0:.*]] = kiln.dim %[[DY]], 0
// CHECK: %[[R0:.*]] = arith.select %[[ONE]], %[[G0]], %[[C1]] : index
// CHECK: %[[A1:.*]] = kiln.dim %[[A]], 1
// CHECK: %[[PAIRS:.*]] = kiln.reshape %[[DY]] [%[[R0]], %[[A0]], %{{.*}}, %[[A1]]] : tensor<?x?xf32> -> tensor<?x?x?x?xf32>
// CHECK: %[[DA:.*]] = kiln.sum %[[PAIRS]] dims [0, 2] : tensor<?x?x?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[ROW:.*]] = kiln.reshape %[[DY]] [%[[G0]], %{{.*}}, %{{.*}}] : tensor<?x?xf32> -> tensor<?x1x?x?xf32>
// CHECK: %[[DB:.*]] = kiln.sum %[[ROW]] dims [0, 2] : tensor<?x1x?x?xf32> -> tensor<1x?xf32>
// CHECK: %[[DU:.*]] = kiln.full [%{{.*}}] {value = 0.000000e+00 : f32} : tensor<?xf32>
// CHECK: return %[[DA]], %[[DB]], %[[DC]], %[[DU]]
func.func @broadcast(%a: tensor<?x?xf32>, %b: tensor<1x?xf32>, %c: tensor<4xf32>, %i: tensor<4xi64>, %u: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<4xf32>) {
  %0 = kiln.add %a, %b : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.mul %c, %i : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<4xf32>
}

// -----

// A value used twice gets the sum of both uses' gradients; an integer
// result (argmax) takes none, so its input's gradient is what the float
// path gives.
// CHECK-LABEL: func.func @uses_backward
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[DY:.*]]: tensor<4xf32>, %{{.*}}: i64) -> tensor<4xf32>
// CHECK: %[[T:.*]] = kiln.mul %[[DY]], %[[X]]
// CHECK: %[[S:.*]] = kiln.add %[[T]], %[[T]]
// CHECK: return %[[S]]
func.func @uses(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>) {
  %0 = kiln.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.argmax %x dims [] : tensor<4xf32> -> tensor<i64>
  return %0, %1 : tensor<4xf32>, tensor<i64>
}

// -----

// (A gradient of a gradient: the image ops' backward ops have none.)
func.func @no_rule(%g: tensor<?x?x1x1xf32>, %x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @+1 {{'kiln.adaptive_avg_pool2d_backward' op has no gradient}}
  %0 = kiln.adaptive_avg_pool2d_backward %g, %x : (tensor<?x?x1x1xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// An allow_in_graph call would run again in the recomputed forward: the
// function is not differentiated.
func.func private @helper(tensor<?xf32>) -> tensor<?xf32>
func.func @opaque(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'kiln.opaque_call' op has effects that a recomputed forward would repeat}}
  %0 = kiln.opaque_call @helper(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A convolution's gradients: one kiln.conv2d_backward (the input's and the
// weight's, same parameters) and the bias's, the output gradient summed
// over all but the channels.
// CHECK-LABEL: func.func @conv_backward
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x?x?xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[DY:.*]]: tensor<?x8x?x?xf32>, %{{.*}}: i64)
// CHECK: %[[GX:.*]], %[[GW:.*]] = kiln.conv2d_backward %[[DY]], %[[X]], %[[W]] {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}
// CHECK: %[[GB:.*]] = kiln.sum %[[DY]] dims [0, 2, 3]
// CHECK: return %[[GX]], %[[GW]], %[[GB]]
func.func @conv(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<?x8x?x?xf32> {
  %y = kiln.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x?x?xf32>
  return %y : tensor<?x8x?x?xf32>
}

// -----

// Eager autograd runs an op's formula only when a gradient reached one of
// its results. A result that reached no loss comes in as zeros, its flag
// (after the gradients) 0: the gradients that read the forward (the mul's,
// dz * w and dz * x, which would be NaN where w or x is inf) of an op
// reached from some of the results only are kept where one of those
// arrived, zeros elsewhere; linear ones (the neg's) need no guard. Each
// gradient lists the result gradients it is made of.
// CHECK-LABEL: func.func @partial_backward
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[W:.*]]: tensor<?xf32>, %[[DY:.*]]: tensor<?xf32>, %[[DZ:.*]]: tensor<?xf32>, %[[AY:.*]]: i64, %[[AZ:.*]]: i64)
// CHECK-SAME: -> (tensor<?xf32>, tensor<?xf32> {kiln.gradient_sources = array<i64: 1>})
// CHECK: %[[MX:.*]] = kiln.mul %[[DZ]], %[[W]]
// CHECK: %[[DXZ:.*]] = kiln.sum %{{.*}} dims [0]
// CHECK: %[[MW:.*]] = kiln.mul %[[DZ]], %[[X]]
// CHECK: %[[DW:.*]] = kiln.sum %{{.*}} dims [0]
// CHECK: %[[Z:.*]] = kiln.full {value = 0.000000e+00 : f32} : tensor<f32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[ARRIVED:.*]] = arith.cmpi ne, %[[AZ]], %[[ZERO]] : i64
// CHECK: %[[COND:.*]] = kiln.from_scalar %[[ARRIVED]] : i1 -> tensor<i1>
// CHECK-DAG: %[[GXZ:.*]] = kiln.where %[[COND]], %[[DXZ]], %[[Z]]
// CHECK-DAG: %[[GW:.*]] = kiln.where %[[COND]], %[[DW]], %[[Z]]
// CHECK: %[[DXY:.*]] = kiln.neg %[[DY]]
// CHECK: %[[DX:.*]] = kiln.add %[[GXZ]], %[[DXY]]
// CHECK: return %[[DX]], %[[GW]]
func.func @partial(%x: tensor<?xf32>, %w: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = kiln.neg %x : tensor<?xf32>
  %z = kiln.mul %x, %w : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %y, %z : tensor<?xf32>, tensor<?xf32>
}

// -----

// Pooling's gradients: kiln.pool2d_backward with the pooling's kind and
// parameters, kiln.adaptive_avg_pool2d_backward; the two reaching x added.
// CHECK-LABEL: func.func @pools_backward
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x?x?xf32>, %[[DM:.*]]: tensor<?x?x?x?xf32>, %[[DP:.*]]: tensor<?x?x1x1xf32>, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-DAG: %[[GP:.*]] = kiln.adaptive_avg_pool2d_backward %[[DP]], %[[X]]
// CHECK-DAG: %[[GM:.*]] = kiln.pool2d_backward max %[[DM]], %[[X]] {ceil_mode = 1 : i64, dilation = array<i64: 1, 1>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}
// CHECK: kiln.add
// CHECK-NOT: kiln.pool2d_backward
func.func @pools(%x: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x1x1xf32>) {
  %m = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 1 : i64} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %p = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x1x1xf32>
  return %m, %p : tensor<?x?x?x?xf32>, tensor<?x?x1x1xf32>
}
