// Tests that top-level shape checks of public functions become one i32
// status result (0 when all hold), and that private functions keep theirs.
// RUN: kiln-opt %s -kiln-lower-shape-asserts -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @two_checks
// CHECK-SAME: -> (tensor<?xf32>, i32)
// CHECK-NOT: cf.assert
// CHECK: %[[BOTH:.*]] = arith.andi %arg1, %arg2 : i1
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[STATUS:.*]] = arith.select %[[BOTH]], %[[ZERO]], %[[ONE]] : i32
// CHECK: return %arg0, %[[STATUS]] : tensor<?xf32>, i32
func.func @two_checks(%x: tensor<?xf32>, %a: i1, %b: i1) -> tensor<?xf32> {
  cf.assert %a, "first"
  cf.assert %b, "second"
  return %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @no_checks
// CHECK: %[[OK:.*]] = arith.constant 0 : i32
// CHECK: return %arg0, %[[OK]]
func.func @no_checks(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> tensor<?xf32>
// CHECK: cf.assert
func.func private @helper(%x: tensor<?xf32>, %a: i1) -> tensor<?xf32> {
  cf.assert %a, "kept"
  return %x : tensor<?xf32>
}

// -----

// A check that folded to false fails every call: the body after it (here a
// slice of one element out of a static dim of none, which bufferization
// would fold into invalid IR) is dropped, the results are empty
// placeholders and the status is 1.
// CHECK-LABEL: func.func @always_fails
// CHECK-SAME: -> (tensor<?xi64>, index, i32)
// CHECK-NOT: cf.assert
// CHECK-NOT: extract_slice
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<0xi64>
// CHECK-DAG: %[[CAST:.*]] = tensor.cast %[[EMPTY]] : tensor<0xi64> to tensor<?xi64>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[FAIL:.*]] = arith.constant 1 : i32
// CHECK: return %[[CAST]], %[[ZERO]], %[[FAIL]] : tensor<?xi64>, index, i32
func.func @always_fails(%x: tensor<0xi64>, %ok: i1) -> (tensor<?xi64>, index) {
  %false = arith.constant false
  %c0 = arith.constant 0 : index
  cf.assert %ok, "first"
  cf.assert %false, "select: index out of range"
  %s = tensor.extract_slice %x[%c0] [1] [1] : tensor<0xi64> to tensor<1xi64>
  %d = tensor.cast %s : tensor<1xi64> to tensor<?xi64>
  return %d, %c0 : tensor<?xi64>, index
}
