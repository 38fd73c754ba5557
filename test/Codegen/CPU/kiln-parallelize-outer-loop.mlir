// Tests that only the outermost dim of a loop nest stays parallel.
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
