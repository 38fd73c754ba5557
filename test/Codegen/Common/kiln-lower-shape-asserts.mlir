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
