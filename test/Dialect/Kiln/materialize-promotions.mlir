// Tests that kiln-materialize-promotions leaves every elementwise op with
// operands of the element type it computes in, and computes nothing else.
// RUN: kiln-opt %s -kiln-materialize-promotions | FileCheck %s

// CHECK-LABEL: func.func @arithmetic
func.func @arithmetic(%i: tensor<?xi32>, %l: tensor<?xi64>, %n: f64)
    -> (tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) {
  // CHECK: %[[W:.*]] = kiln.from_scalar
  %w = kiln.from_scalar %n : f64 -> tensor<f64>
  // CHECK: %[[I:.*]] = kiln.cast %{{.*}} : tensor<?xi32> to tensor<?xi64>
  // CHECK: kiln.add %[[I]], %{{.*}} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %0 = kiln.add %i, %l : (tensor<?xi32>, tensor<?xi64>) -> tensor<?xi64>
  // The wrapped f64 is cast to the f32 the product computes in.
  // CHECK: %[[IF:.*]] = kiln.cast %{{.*}} : tensor<?xi32> to tensor<?xf32>
  // CHECK: %[[WF:.*]] = kiln.cast %[[W]] : tensor<f64> to tensor<f32>
  // CHECK: kiln.mul %[[IF]], %[[WF]] : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = kiln.mul %i, %w : (tensor<?xi32>, tensor<f64>) -> tensor<?xf32>
  // CHECK: kiln.cast %{{.*}} : tensor<?xi64> to tensor<?xf32>
  // CHECK: kiln.div {{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %2 = kiln.div %l, %l : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @comparisons_and_selects
func.func @comparisons_and_selects(%i: tensor<?xi32>, %x: tensor<?xf16>,
                                   %c: tensor<?xi1>, %n: f64)
    -> (tensor<?xi1>, tensor<?xf16>) {
  %w = kiln.from_scalar %n : f64 -> tensor<f64>
  // cmp compares in the promoted type (f32 here), not its i1 result's.
  // CHECK: %[[A:.*]] = kiln.cast %{{.*}} : tensor<?xi32> to tensor<?xf32>
  // CHECK: %[[B:.*]] = kiln.cast %{{.*}} : tensor<f64> to tensor<f32>
  // CHECK: kiln.cmp lt, %[[A]], %[[B]]
  %0 = kiln.cmp lt, %i, %w : (tensor<?xi32>, tensor<f64>) -> tensor<?xi1>
  // where's condition stays bool; its branches take the result's type.
  // CHECK: %[[Y:.*]] = kiln.cast %{{.*}} : tensor<f64> to tensor<f16>
  // CHECK: kiln.where %{{.*}}, %{{.*}}, %[[Y]] : (tensor<?xi1>, tensor<?xf16>, tensor<f16>) -> tensor<?xf16>
  %1 = kiln.where %c, %x, %w : (tensor<?xi1>, tensor<?xf16>, tensor<f64>) -> tensor<?xf16>
  return %0, %1 : tensor<?xi1>, tensor<?xf16>
}

// CHECK-LABEL: func.func @unary_and_reductions
func.func @unary_and_reductions(%i: tensor<?x?xi32>, %b: tensor<?xi1>)
    -> (tensor<?x?xf32>, tensor<?xi64>, tensor<i64>) {
  // CHECK: %[[F:.*]] = kiln.cast %{{.*}} : tensor<?x?xi32> to tensor<?x?xf32>
  // CHECK: kiln.exp %[[F]] : tensor<?x?xf32>
  %0 = kiln.exp %i : tensor<?x?xi32>
  // CHECK: %[[L:.*]] = kiln.cast %{{.*}} : tensor<?x?xi32> to tensor<?x?xi64>
  // CHECK: kiln.sum %[[L]] dims [1] : tensor<?x?xi64> -> tensor<?xi64>
  %1 = kiln.sum %i dims [1] : tensor<?x?xi32> -> tensor<?xi64>
  // CHECK: kiln.cast %{{.*}} : tensor<?xi1> to tensor<?xi64>
  %2 = kiln.prod %b dims [] : tensor<?xi1> -> tensor<i64>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?xi64>, tensor<i64>
}

// Arithmetic on bools (or, and, maximum) computes on i32, nonzero true.
// CHECK-LABEL: func.func @bools
func.func @bools(%a: tensor<?xi1>, %b: tensor<?xi1>) -> tensor<?xi1> {
  // CHECK: %[[A:.*]] = kiln.cast %{{.*}} : tensor<?xi1> to tensor<?xi32>
  // CHECK: %[[B:.*]] = kiln.cast %{{.*}} : tensor<?xi1> to tensor<?xi32>
  // CHECK: %[[S:.*]] = kiln.add %[[A]], %[[B]] : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  // CHECK: %[[R:.*]] = kiln.cast %[[S]] : tensor<?xi32> to tensor<?xi1>
  // CHECK: return %[[R]]
  %0 = kiln.add %a, %b : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
  return %0 : tensor<?xi1>
}

// Ops already in one type are left alone.
// CHECK-LABEL: func.func @uniform
// CHECK-NOT: kiln.cast
func.func @uniform(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = kiln.add %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = kiln.exp %0 : tensor<?xf32>
  return %1 : tensor<?xf32>
}

// Products cast every tensor operand (not the sizes) to their result's type.
// CHECK-LABEL: func.func @products
func.func @products(%x: tensor<?x?xf32>, %w: tensor<4x?xf16>, %b: tensor<4xf64>)
    -> tensor<?x4xf64> {
  // CHECK-DAG: %[[X:.*]] = kiln.cast %{{.*}} : tensor<?x?xf32> to tensor<?x?xf64>
  // CHECK-DAG: %[[W:.*]] = kiln.cast %{{.*}} : tensor<4x?xf16> to tensor<4x?xf64>
  // CHECK: kiln.linear %[[X]], %[[W]], %{{.*}} : (tensor<?x?xf64>, tensor<4x?xf64>, tensor<4xf64>) -> tensor<?x4xf64>
  %0 = kiln.linear %x, %w, %b : (tensor<?x?xf32>, tensor<4x?xf16>, tensor<4xf64>) -> tensor<?x4xf64>
  return %0 : tensor<?x4xf64>
}
