// Tests that an element nest keeps every dim but its innermost parallel
// (the innermost a plain loop), that a nest whose body loops (a row tile,
// a reduction) keeps all its dims, and that nested parallel loops run in
// order.
// RUN: kiln-opt %s -kiln-parallelize-outer-loop | FileCheck %s

// CHECK-LABEL: func.func @nest
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%arg1) step
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %arg2 step
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
func.func @nest(%m: memref<?x?xf32>, %n0: index, %n1: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n0, %n1) step (%c1, %c1) {
    %v = memref.load %m[%i, %j] : memref<?x?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %m[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// [B, T, C]: batch and rows parallel, so that a batch of 1 still splits.
// CHECK-LABEL: func.func @batch
// CHECK: scf.parallel (%[[B:.*]], %[[T:.*]]) = (%{{.*}}, %{{.*}}) to (%arg1, %arg2) step
// CHECK-NEXT: scf.for %[[C:.*]] = %{{.*}} to %arg3 step
// CHECK-NEXT: memref.load %arg0[%[[B]], %[[T]], %[[C]]]
func.func @batch(%m: memref<?x?x?xf32>, %n0: index, %n1: index, %n2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%b, %t, %c) = (%c0, %c0, %c0) to (%n0, %n1, %n2) step (%c1, %c1, %c1) {
    %v = memref.load %m[%b, %t, %c] : memref<?x?x?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %m[%b, %t, %c] : memref<?x?x?xf32>
    scf.reduce
  }
  return
}

// Row tiles (b, row block) whose body loops: both dims stay parallel; the
// nested parallel loop runs in order.
// CHECK-LABEL: func.func @tiles
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%arg1, %arg2) step
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.parallel
func.func @tiles(%m: memref<?x?x?xf32>, %n0: index, %n1: index, %n2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%b, %t) = (%c0, %c0) to (%n0, %n1) step (%c1, %c16) {
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %n2) step (%c1, %c1) {
      %row = arith.addi %t, %r : index
      %v = memref.load %m[%b, %row, %c] : memref<?x?x?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%b, %row, %c] : memref<?x?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
