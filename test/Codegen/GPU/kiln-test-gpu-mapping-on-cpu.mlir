// Tests the CPU emulation of the GPU mapping (the test pass of
// test/lib/Codegen/GPU, used by kiln-e2e --backend=cuda-emulated): a row
// kernel's block is one iteration
// of the parallel loop over rows, and each phase's threads are a serial
// loop, one phase after the other (no barriers needed); a reduction's
// threads combine their strided partial values in order where the GPU uses
// gpu.all_reduce, and the last writes.
// RUN: kiln-opt %s -kiln-test-gpu-mapping-on-cpu="block-size=128 vector-width=1" -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @row_max
// CHECK: scf.parallel (%[[ROW:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[BLOCK:.*]] = scf.for %[[LANE:.*]] = %{{.*}} to %c128 step %{{.*}} iter_args(%[[SOFAR:.*]] = %[[NAN]]) -> (f32) {
// CHECK: %[[OFF:.*]] = arith.muli %[[LANE]], %c1
// CHECK: %[[START:.*]] = arith.addi %c0, %[[OFF]]
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[START]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NAN]]) -> (f32)
// CHECK: arith.maxnumf %[[ACC]]
// CHECK: %[[BOTH:.*]] = arith.maxnumf %[[SOFAR]], %[[PART]]
// CHECK: scf.yield %[[BOTH]]
// CHECK: %[[RES:.*]] = arith.maxnumf %[[INIT]], %[[BLOCK]]
// CHECK-NEXT: memref.store %[[RES]], %arg1
// CHECK-NOT: gpu.all_reduce
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x
func.func @row_max(%x: memref<?x?xf32>, %m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %m[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %n = arith.maxnumf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %r, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}}
// CHECK: math.exp
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}} iter_args
// CHECK: arith.addf
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}}
// CHECK: arith.divf
// CHECK: return
func.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %m = gpu.alloc (%rows) : memref<?xf32>
  %mrows = memref.dim %m, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%mrows) step (%c1) {
    memref.store %ninf, %m[%i] : memref<?xf32>
  }
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %m[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %n = arith.maxnumf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %r, %m[%i] : memref<?xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %mx = memref.load %m[%i] : memref<?xf32>
    %d = arith.subf %v, %mx : f32
    %e = math.exp %d : f32
    memref.store %e, %y[%i, %j] : memref<?x?xf32>
  }
  scf.parallel (%i) = (%c0) to (%mrows) step (%c1) {
    memref.store %zero, %m[%i] : memref<?xf32>
  }
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %m[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %y[%i, %j] : memref<?x?xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %r, %m[%i] : memref<?xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %e = memref.load %y[%i, %j] : memref<?x?xf32>
    %s = memref.load %m[%i] : memref<?xf32>
    %q = arith.divf %e, %s : f32
    memref.store %q, %y[%i, %j] : memref<?x?xf32>
  }
  gpu.dealloc %m : memref<?xf32>
  return
}
