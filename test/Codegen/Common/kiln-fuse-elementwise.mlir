// Tests that elementwise producers fuse into elementwise consumers and into
// reductions, but never into a contraction.
// RUN: kiln-opt %s -kiln-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// exp then sum: one reduction generic computing exp inside.
// CHECK-LABEL: func.func @into_reduction
// CHECK: linalg.generic
// CHECK-SAME: ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @into_reduction(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%x : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An elementwise op feeding a matmul-like contraction stays separate.
// CHECK-LABEL: func.func @not_into_contraction
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ["parallel", "parallel", "reduction"]
// CHECK-NOT: math.exp
func.func @not_into_contraction(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%x : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
