// Tests that in a function with more loop nests than outline-above, each
// nest becomes one private function of its outer loop's bounds that LLVM
// may not inline (passthrough noinline), its loops scf.for: the else
// branch calls it over the whole range, the threaded loop on each of its
// iterations (rows, row tiles) or, over elements, on each of at most 64
// chunks of them, so that the body stays a loop to vectorize. One body
// per nest, where a serial and a threaded copy had each been LLVM's to
// optimize. A function with no more nests keeps its copies inline.
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=outline-above=1 | FileCheck %s
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=outline-above=0 | FileCheck %s --check-prefix=ROWS
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=outline-above=2 | FileCheck %s --check-prefix=INLINE

// CHECK-LABEL: func.func private @two_nest0(
// CHECK-SAME: %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index,
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %[[C1]]
// CHECK: arith.addf %{{.*}}, %[[ONE]]
// CHECK-LABEL: func.func private @two_nest1(
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-LABEL: func.func @two(
// CHECK: scf.if
// CHECK: %[[CHUNKS:.*]] = arith.minsi %{{.*}}, %c64
// CHECK: %[[PER:.*]] = arith.ceildivsi
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[CHUNKS]])
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[C]]
// CHECK-NEXT: %[[BEGIN:.*]] = arith.addi %{{.*}}, %[[OFF]]
// CHECK-NEXT: %[[END0:.*]] = arith.addi %[[BEGIN]]
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[END0]], %arg2
// CHECK-NEXT: func.call @two_nest0(%[[BEGIN]], %[[END]], %arg0, %arg1)
// CHECK: } else {
// CHECK-NEXT: func.call @two_nest0(%{{.*}}, %arg2, %arg0, %arg1)
// CHECK: scf.if
// CHECK: scf.parallel
// CHECK: func.call @two_nest1(
// CHECK: } else {
// CHECK-NEXT: func.call @two_nest1(
// CHECK: return
// ROWS-LABEL: func.func private @rows_nest0(
// ROWS-SAME: %[[RLO:[a-z0-9]+]]: index, %[[RHI:[a-z0-9]+]]: index,
// ROWS: scf.for %{{.*}} = %[[RLO]] to %[[RHI]]
// ROWS: scf.for
// ROWS: arith.addf
// ROWS-LABEL: func.func @rows(
// ROWS: scf.if
// ROWS-NEXT: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[N:.*]]) step (%[[S:[a-z0-9_]+]])
// ROWS-NEXT: %[[NEXT:.*]] = arith.addi %[[I]], %[[S]]
// ROWS-NEXT: %[[STOP:.*]] = arith.minsi %[[NEXT]], %[[N]]
// ROWS-NEXT: func.call @rows_nest0(%[[I]], %[[STOP]],
// ROWS: } else {
// ROWS-NEXT: func.call @rows_nest0(
// INLINE-LABEL: func.func @two
// INLINE-NOT: func.call
// INLINE-NOT: func.func private
func.func @two(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %y[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %y[%i] : memref<?xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %x[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// Row tiles: each threaded iteration (a block of 4 rows, its row loop
// inside) is one call.
func.func @rows(%x: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c4) {
    %e = affine.min affine_map<(d0)[s0] -> (4, s0 - d0)>(%i)[%n]
    scf.for %r = %c0 to %e step %c1 {
      %row = arith.addi %i, %r : index
      scf.for %j = %c0 to %m step %c1 {
        %v = memref.load %x[%row, %j] : memref<?x?xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %x[%row, %j] : memref<?x?xf32>
      }
    }
    scf.reduce
  }
  return
}
