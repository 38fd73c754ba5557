// Tests that a reduction generic on buffers becomes a parallel loop over
// its kept dims around an scf.for that carries the accumulator: one load
// and one store of the output element.
// RUN: kiln-opt %s -kiln-lower-reductions -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @row_sum
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %arg1[%{{.*}}]
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK: %[[X:.*]] = memref.load %arg0[%{{.*}}, %{{.*}}]
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc> : f32
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %arg1[%{{.*}}]
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A full reduction has no parallel loop; nested fors carry the accumulator.
// CHECK-LABEL: func.func @total_max
// CHECK-NOT: scf.parallel
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maximumf
func.func @total_max(%x: memref<?x?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<?x?xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction over a leading dim is left to the default lowering.
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic
func.func @column_sum(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}
