// Tests kiln-skip-unneeded-gradients: a backward's ops run only when a
// gradient that reads them is needed (its kiln.gradient_need argument is
// nonzero). What every gradient reads stays unconditional; what gradients
// 0 and 1 read runs under "0 or 1 needed", before the ops of each one
// alone, which read it; a skipped gradient is an empty tensor (0 in each
// dynamic dim). A shape check that reads a skipped value's size reads the
// size it was computed from (the status stays unconditional, the product
// does not). A function without need arguments is left as it is.
// RUN: kiln-opt %s -kiln-skip-unneeded-gradients -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @backward
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x?xf32>, %[[B:[a-z0-9]+]]: tensor<?x?xf32>, %[[DY:[a-z0-9]+]]: tensor<?x?xf32>, %[[N0:[a-z0-9]+]]: i64 {kiln.gradient_need = 0 : i64}, %[[N1:[a-z0-9]+]]: i64 {kiln.gradient_need = 1 : i64}, %[[N2:[a-z0-9]+]]: i64 {kiln.gradient_need = 2 : i64}
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[DY]] :
// CHECK: %[[OK:.*]] = arith.cmpi eq
// CHECK: %[[STATUS:.*]] = arith.extui %[[OK]]
// CHECK-DAG: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C0:[0-9]+]] = arith.cmpi ne, %[[N0]], %[[ZERO]]
// CHECK-DAG: %[[C1:[0-9]+]] = arith.cmpi ne, %[[N1]], %[[ZERO]]
// CHECK-DAG: %[[C2:[0-9]+]] = arith.cmpi ne, %[[N2]], %[[ZERO]]
// CHECK: %[[C01:.*]] = arith.ori %[[C0]], %[[C1]]
// CHECK: %[[T:.*]] = scf.if %[[C01]] -> (tensor<?x?xf32>) {
// CHECK:   %[[T1:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[A]] :
// CHECK:   scf.yield %[[T1]]
// CHECK: } else {
// CHECK:   %[[Z:.*]] = arith.constant 0 : index
// CHECK:   %[[E:.*]] = tensor.empty(%[[Z]], %[[Z]]) : tensor<?x?xf32>
// CHECK:   scf.yield %[[E]]
// CHECK: }
// CHECK: %[[G0:.*]] = scf.if %[[C0]] -> (tensor<?x?xf32>) {
// CHECK:   linalg.matmul ins(%[[T]], %[[B]] :
// CHECK: %[[G1:.*]] = scf.if %[[C1]] -> (tensor<?x?xf32>) {
// CHECK:   tensor.extract %[[T]]
// CHECK:   linalg.generic {{.*}} ins(%[[T]] :
// CHECK: %[[G2:.*]] = scf.if %[[C2]] -> (tensor<?x?xf32>) {
// CHECK:   linalg.generic {{.*}} ins(%[[S]] :
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
  // Read by the gradients 0 and 1.
  %t = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%s, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.mulf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  %db = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e2 = tensor.empty(%d0, %db) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %g0 = linalg.matmul ins(%t, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = tensor.extract %t[%c0, %c0] : tensor<?x?xf32>
  %g1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.addf %x, %m : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  %g2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.subf %x, %two : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  // A shape check reads t's size, not its elements.
  %dt = tensor.dim %t, %c0 : tensor<?x?xf32>
  %ok = arith.cmpi eq, %dt, %d0 : index
  %status = arith.extui %ok : i1 to i32
  return %g0, %g1, %g2, %status : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, i32
}

// -----

// CHECK-LABEL: func.func @not_a_backward
// CHECK-NOT: scf.if
#map = affine_map<(d0) -> (d0)>
func.func @not_a_backward(%a: tensor<?xf32>, %n: i64) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
