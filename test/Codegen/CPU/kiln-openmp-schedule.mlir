// Tests that OpenMP loops hand out work as threads free up: a loop over row
// tiles (step above 1) one chunk of 4 tiles at a time, a loop over
// elements in guided chunks.
// RUN: kiln-opt %s -convert-scf-to-openmp -kiln-openmp-schedule | FileCheck %s

// CHECK-LABEL: func.func @tiles
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK: omp.wsloop schedule(dynamic = %[[FOUR]] : i32)
func.func @tiles(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c16) {
    memref.store %one, %out[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @elements
// CHECK: omp.wsloop schedule(guided)
func.func @elements(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %one, %out[%i] : memref<?xf32>
  }
  return
}
