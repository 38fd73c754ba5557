// Tests that a row of a row tile prefetches the next row of the big arrays
// its first column loop reads and its last one writes, one cache line (16
// floats) at a time, the last row prefetching itself; tile buffers and rows
// with a single column loop are left alone.
// RUN: kiln-opt %s -kiln-prefetch-next-row | FileCheck %s

// CHECK-LABEL: func.func @row_chain
// CHECK: scf.parallel
// CHECK: scf.for %[[R:.*]] = %c0 to %[[ROWS:.*]] step %c1 {
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[R1:.*]] = arith.addi %[[R]], %[[ONE]]
// CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %[[ONE]]
// CHECK: %[[NEXT:.*]] = arith.minui %[[R1]], %[[LAST]]
// CHECK: %[[LINE:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[C:.*]] = %c0 to %[[COLS:.*]] step %[[LINE]] {
// CHECK-NEXT: memref.prefetch %arg0[%[[NEXT]], %[[C]]], read, locality<3>, data
// CHECK: scf.for %[[C2:.*]] = %c0 to %[[COLS]] step %{{.*}} {
// CHECK-NEXT: memref.prefetch %arg1[%[[NEXT]], %[[C2]]], write, locality<3>, data
// CHECK-NOT: memref.prefetch %tile
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: return
func.func @row_chain(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
    %tile = memref.alloc(%cols) : memref<8x?xf32>
    scf.for %r = %c0 to %rows step %c1 {
      %s = scf.for %c = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%r, %c] : memref<?x?xf32, strided<[?, ?], offset: ?>>
        %e = math.exp %v : f32
        memref.store %e, %tile[%c0, %c] : memref<8x?xf32>
        %a = arith.addf %acc, %e : f32
        scf.yield %a : f32
      }
      scf.for %c = %c0 to %cols step %c1 {
        %e = memref.load %tile[%c0, %c] : memref<8x?xf32>
        %q = arith.divf %e, %s : f32
        memref.store %q, %y[%r, %c] : memref<?x?xf32>
      }
    }
    memref.dealloc %tile : memref<8x?xf32>
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @one_column_loop
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @one_column_loop(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
    scf.for %r = %c0 to %rows step %c1 {
      scf.for %c = %c0 to %cols step %c1 {
        %v = memref.load %x[%r, %c] : memref<?x?xf32>
        memref.store %v, %y[%r, %c] : memref<?x?xf32>
      }
    }
    scf.reduce
  }
  return
}
