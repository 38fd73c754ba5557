// Tests that in a function with more loop nests than outline-above, each
// nest's serial copy becomes a private function of its own that LLVM may
// not inline (passthrough noinline), called from the else branch with what
// the nest uses; a function with no more nests keeps them inline. One
// function of hundreds of nests took LLVM's register allocator time
// quadratic in its size.
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=outline-above=1 | FileCheck %s
// RUN: kiln-opt %s -kiln-parallel-where-it-pays=outline-above=2 | FileCheck %s --check-prefix=INLINE

// CHECK-LABEL: func.func private @two_serial0(
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C1]]
// CHECK: arith.addf %{{.*}}, %[[ONE]]
// CHECK-LABEL: func.func private @two_serial1(
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-LABEL: func.func @two
// CHECK: scf.if
// CHECK-NEXT: scf.parallel
// CHECK: } else {
// CHECK-NEXT: func.call @two_serial0(
// CHECK: scf.if
// CHECK-NEXT: scf.parallel
// CHECK: } else {
// CHECK-NEXT: func.call @two_serial1(
// CHECK: return
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
