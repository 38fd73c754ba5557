// Tests that each outermost parallel loop nest runs threaded only when its
// estimated work (trip counts times the body's operations, down the nest)
// reaches min-work and the loop has two iterations or more (one cannot use
// a second thread), with a serial copy otherwise; a row tile's inner bound
// (affine.min) counts as its constant size.
// RUN: kiln-opt %s -kiln-parallel-where-it-pays | FileCheck %s
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=min-work=0 | FileCheck %s --check-prefix=ZERO

#tile = affine_map<(d0)[s0] -> (16, s0 - d0)>

// The row tiles of [rows, cols]: ceil(rows / 16) tiles of 16 rows of cols
// elements, 3 operations each (load, add, store); the affine.min and the
// subview-free body add one per tile.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK: %[[TILES:.*]] = arith.ceildivsi
// CHECK: %[[WORK:.*]] = arith.muli %[[TILES]],
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[WORK]], %c1048576
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sge, %[[TILES]], %c2
// CHECK: %[[PAYS:.*]] = arith.andi %[[ENOUGH]], %[[SEVERAL]]
// CHECK: scf.if %[[PAYS]] {
// CHECK-NEXT: scf.parallel
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
// ZERO-LABEL: func.func @rows
// ZERO: arith.cmpi sge, %{{.*}}, %c0
func.func @rows(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %rows: index, %cols: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%rows) step (%c16) {
    %n = affine.min #tile(%i)[%rows]
    scf.for %r = %c0 to %n step %c1 {
      scf.for %c = %c0 to %cols step %c1 {
        %row = arith.addi %i, %r : index
        %v = memref.load %x[%row, %c] : memref<?x?xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %y[%row, %c] : memref<?x?xf32>
      }
    }
    scf.reduce
  }
  return
}

// Nested parallel loops are one nest: only the outermost is gated.
// CHECK-LABEL: func.func @nested
// CHECK: scf.if
// CHECK-NEXT: scf.parallel
// CHECK: scf.parallel
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @nested(%x: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%m) step (%c1) {
      memref.store %zero, %x[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
