// A reduction dim between parallel dims (sum over dim 1 of [B, R, C]) gives
// a parallel nest under a serial loop inside the grid. It must become loops
// inside the kernel: left an scf.parallel, it stayed out of the launch and
// ran on the host, reading device memory (a crash on a GPU).
// RUN: kiln-opt %s -kiln-gpu-map-parallel-loops="block-size=128 vector-width=1" -convert-parallel-loops-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @middle_reduction
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: memref.load
// CHECK: memref.load
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @middle_reduction(%x: memref<?x?x?xf32>, %y: memref<?x1x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %x, %c0 : memref<?x?x?xf32>
  %r = memref.dim %x, %c1 : memref<?x?x?xf32>
  %c = memref.dim %x, %c2 : memref<?x?x?xf32>
  scf.parallel (%i) = (%c0) to (%b) step (%c1) {
    scf.for %k = %c0 to %r step %c1 {
      scf.parallel (%j) = (%c0) to (%c) step (%c1) {
        %v = memref.load %x[%i, %k, %j] : memref<?x?x?xf32>
        %acc = memref.load %y[%i, %c0, %j] : memref<?x1x?xf32>
        %s = arith.addf %acc, %v : f32
        memref.store %s, %y[%i, %c0, %j] : memref<?x1x?xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
