// Tests kiln-skip-unneeded-gradients: a backward's products run only when
// the one gradient that reads them is needed (its kiln.gradient_need
// argument is nonzero). What several gradients read stays unconditional,
// and so do the cheap ops of a gradient (an elementwise one, which fuses
// with its neighbours); a gradient's product runs under its need, with the
// ops that only it reads; a skipped gradient is an empty tensor (0 in each
// dynamic dim). A shape check that reads a skipped value's size reads the
// size it was computed from (the status stays unconditional, the product
// does not). A function without need arguments is left as it is.
// RUN: kiln-opt %s -kiln-skip-unneeded-gradients -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @backward
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x?xf32>, %[[B:[a-z0-9]+]]: tensor<?x?xf32>, %[[DY:[a-z0-9]+]]: tensor<?x?xf32>, %[[N0:[a-z0-9]+]]: i64 {kiln.gradient_need = 0 : i64}, %[[N1:[a-z0-9]+]]: i64 {kiln.gradient_need = 1 : i64}, %[[N2:[a-z0-9]+]]: i64 {kiln.gradient_need = 2 : i64}
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[DY]] :
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[A]] :
// CHECK: %[[G2:.*]] = linalg.generic {{.*}} ins(%[[S]] :
// CHECK: %[[OK:.*]] = arith.cmpi eq
// CHECK: %[[STATUS:.*]] = arith.extui %[[OK]]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[C0:.*]] = arith.cmpi ne, %[[N0]], %[[ZERO]]
// CHECK: %[[G0:.*]] = scf.if %[[C0]] -> (tensor<?x?xf32>) {
// CHECK:   linalg.fill
// CHECK:   %[[P0:.*]] = linalg.matmul ins(%[[T]], %[[B]] :
// CHECK:   scf.yield %[[P0]]
// CHECK: } else {
// CHECK:   %[[Z:.*]] = arith.constant 0 : index
// CHECK:   %[[E:.*]] = tensor.empty(%[[Z]], %[[Z]]) : tensor<?x?xf32>
// CHECK:   scf.yield %[[E]]
// CHECK: }
// CHECK: %[[C1:.*]] = arith.cmpi ne, %[[N1]], %[[ZERO]]
// CHECK: %[[G1:.*]] = scf.if %[[C1]] -> (tensor<?x?xf32>) {
// CHECK:   tensor.extract %[[T]]
// CHECK:   linalg.matmul ins(%[[B]], %[[T]] :
// CHECK-NOT: scf.if
// CHECK: return %[[G0]], %[[G1]], %[[G2]], %[[STATUS]]
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @backward(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %dy: tensor<?x?xf32>,
                    %n0: i64 {kiln.gradient_need = 0 : i64},
                    %n1: i64 {kiln.gradient_need = 1 : i64},
                    %n2: i64 {kiln.gradient_need = 2 : i64})
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %d0 = tensor.dim %dy, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %dy, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  // Read by every gradient: unconditional.
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%dy : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  // Read by the gradients 0 and 1: unconditional.
  %t = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%s, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.mulf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  // Gradient 0: a product.
  %db = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e0 = tensor.empty(%d0, %db) : tensor<?x?xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %g0 = linalg.matmul ins(%t, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  // Gradient 1: a product of a value that a scalar of t scales.
  %m = tensor.extract %t[%c0, %c0] : tensor<?x?xf32>
  %e1 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %f1 = linalg.fill ins(%m : f32) outs(%e1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %g1 = linalg.matmul ins(%b, %t : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  // Gradient 2: elementwise, cheap: unconditional.
  %g2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.subf %x, %two : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  // A shape check reads the product's size, not its elements.
  %dt = tensor.dim %g0, %c0 : tensor<?x?xf32>
  %ok = arith.cmpi eq, %dt, %d0 : index
  %status = arith.extui %ok : i1 to i32
  return %g0, %g1, %g2, %status : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, i32
}

// -----

// CHECK-LABEL: func.func @not_a_backward
// CHECK-NOT: scf.if
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_backward(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %n: i64) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
