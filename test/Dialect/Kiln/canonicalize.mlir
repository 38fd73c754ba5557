// Tests the kiln dialect's folds and canonicalization patterns: exact ones
// only.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @mul_by_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.mul %x, %one : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// The constant operand moves to the right (the op is commutative) and folds.
// CHECK-LABEL: func.func @one_times
// CHECK-NEXT: return %arg0
func.func @one_times(%x: tensor<3xi64>) -> tensor<3xi64> {
  %one = kiln.constant dense<1> : tensor<3xi64>
  %0 = kiln.mul %one, %x : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Broadcasting by the constant changes the shape: no fold.
// CHECK-LABEL: func.func @mul_by_one_broadcasts
// CHECK: kiln.mul
func.func @mul_by_one_broadcasts(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %one = kiln.constant dense<1.0> : tensor<2x1xf32>
  %0 = kiln.mul %x, %one : (tensor<4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// x + (-0.0) is x; x + 0.0 is not (it turns -0.0 into 0.0).
// CHECK-LABEL: func.func @add_zero
// CHECK: %[[Y:.*]] = kiln.add %arg0, %{{.*}} : (tensor<3xf32>, tensor<f32>)
// CHECK-NEXT: return %[[Y]], %arg0, %arg1
func.func @add_zero(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>) {
  %pz = kiln.constant dense<0.0> : tensor<f32>
  %nz = kiln.constant dense<-0.0> : tensor<f32>
  %iz = kiln.constant dense<0> : tensor<i32>
  %0 = kiln.add %x, %pz : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = kiln.add %x, %nz : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %2 = kiln.add %i, %iz : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT: return %arg0
func.func @transpose_of_transpose(%x: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %0 = kiln.transpose %x dims 0, 2 : tensor<2x?x4xf32> -> tensor<4x?x2xf32>
  %1 = kiln.transpose %0 dims 2, 0 : tensor<4x?x2xf32> -> tensor<2x?x4xf32>
  return %1 : tensor<2x?x4xf32>
}

// -----

// Different dims: both stay.
// CHECK-LABEL: func.func @transposes_of_different_dims
// CHECK-COUNT-2: kiln.transpose
func.func @transposes_of_different_dims(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = kiln.transpose %x dims 0, 1 : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = kiln.transpose %0 dims 1, 2 : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// A product's transpose is the product of the transposes, the other way
// round: (a @ b)^T = b^T @ a^T, batched and with a transposed operand whose
// transpose folds away.
// CHECK-LABEL: func.func @transpose_of_product
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[BT:.*]] = kiln.transpose %[[B]] dims 0, 1
// CHECK-DAG: %[[AT:.*]] = kiln.transpose %[[A]] dims 1, 2
// CHECK: %[[P:.*]] = kiln.matmul %[[BT]], %[[AT]] : (tensor<?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK: %[[YT:.*]] = kiln.transpose %[[Y]] dims 0, 1
// CHECK: %[[Q:.*]] = kiln.matmul %[[YT]], %[[X]] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: return %[[P]], %[[Q]]
func.func @transpose_of_product(%a: tensor<?x?x?xf32>, %b: tensor<?x?xf32>, %x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.matmul %a, %b : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.transpose %0 dims 2, 1 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %xt = kiln.transpose %x dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = kiln.matmul %xt, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.transpose %2 dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %1, %3 : tensor<?x?x?xf32>, tensor<?x?xf32>
}

// -----

// A product used elsewhere too stays, and so does its transpose; a vector
// operand's product is no matrix product to swap.
// CHECK-LABEL: func.func @transpose_of_shared_product
// CHECK: %[[P:.*]] = kiln.matmul %arg0, %arg1
// CHECK: kiln.transpose %[[P]] dims 0, 1
// CHECK: %[[V:.*]] = kiln.matmul %arg2, %arg3
// CHECK: kiln.transpose %[[V]] dims 0, 1
func.func @transpose_of_shared_product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %v: tensor<?xf32>, %c: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.transpose %0 dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = kiln.matmul %v, %c : (tensor<?xf32>, tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.transpose %2 dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0, %1, %3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @permutes_compose
// CHECK-NEXT: %[[P:.*]] = kiln.permute %arg0 [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[P]]
func.func @permutes_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = kiln.permute %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = kiln.permute %0 [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @identity_permute
// CHECK-NEXT: return %arg0
func.func @identity_permute(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.permute %x [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %arg0 [%arg1] : tensor<?x6xf32> -> tensor<?x2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<?x6xf32>, %n: index) -> tensor<?x2x3xf32> {
  %0 = kiln.reshape %x [%n] : tensor<?x6xf32> -> tensor<?xf32>
  %1 = kiln.reshape %0 [%n] : tensor<?xf32> -> tensor<?x2x3xf32>
  return %1 : tensor<?x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_to_same_type
// CHECK-NEXT: return %arg0
func.func @reshape_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_of_unsqueeze
// CHECK-NEXT: return %arg0
func.func @squeeze_of_unsqueeze(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = kiln.unsqueeze %x dim 1 : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %1 = kiln.squeeze %0 dim 1 : tensor<?x1x3xf32> -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @cast_to_same_type
// CHECK-NEXT: return %arg0
func.func @cast_to_same_type(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.cast %x : tensor<3xf32> to tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Static dims fold to constants; dynamic ones stay queries.
// CHECK-LABEL: func.func @static_dim
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[D:.*]] = kiln.dim %arg0, 0 : tensor<?x4xf32>
// CHECK: return %[[D]], %[[C4]]
func.func @static_dim(%x: tensor<?x4xf32>) -> (index, index) {
  %0 = kiln.dim %x, 0 : tensor<?x4xf32>
  %1 = kiln.dim %x, 1 : tensor<?x4xf32>
  return %0, %1 : index, index
}

// -----

// A conversion of a transposed tensor converts it in its own layout and
// transposes the result, which a product then reads in place (autocast's
// bfloat16 copy of a tied lm head's weight): the product's operand is a
// transpose again.
// CHECK-LABEL: func.func @cast_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xbf16>, %[[W:.*]]: tensor<?x4xf32>)
// CHECK: %[[C:.*]] = kiln.cast %[[W]] : tensor<?x4xf32> to tensor<?x4xbf16>
// CHECK: %[[T:.*]] = kiln.transpose %[[C]] dims 0, 1 : tensor<?x4xbf16> -> tensor<4x?xbf16>
// CHECK: %[[P:.*]] = kiln.matmul %[[X]], %[[T]]
// CHECK: return %[[P]], %[[T]]
func.func @cast_of_transpose(%x: tensor<?x?xbf16>, %w: tensor<?x4xf32>) -> (tensor<?x?xbf16>, tensor<4x?xbf16>) {
  %0 = kiln.transpose %w dims 0, 1 : tensor<?x4xf32> -> tensor<4x?xf32>
  %1 = kiln.cast %0 : tensor<4x?xf32> to tensor<4x?xbf16>
  %2 = kiln.matmul %x, %1 : (tensor<?x?xbf16>, tensor<4x?xbf16>) -> tensor<?x?xbf16>
  return %2, %1 : tensor<?x?xbf16>, tensor<4x?xbf16>
}
