// Tests the vectorized mapping of elementwise nests: where a buffer is read
// or written contiguously along the last dim, each thread handles four
// consecutive iterations with one aligned vector access per such buffer
// and the rest of the body once per lane; a run-time check of sizes,
// strides, offsets and addresses chooses between that grid and the scalar
// one.
// RUN: kiln-opt %s -kiln-gpu-map-parallel-loops=block-size=128 -cse -split-input-file | FileCheck %s

// A strided input (any Tensor view), a row-broadcast operand and a fresh
// output.
// CHECK-LABEL: func.func @contiguous
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: arith.remui %[[NC:.*]], %[[C4]]
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: arith.remui %[[PTR]], %[[C16]]
// CHECK: arith.remui %[[OFF]], %[[C4]]
// CHECK: arith.cmpi eq, %[[STRIDES]]#1, %c1
// CHECK: arith.remui %[[STRIDES]]#0, %[[C4]]
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: arith.remui %strides_{{.*}}#0, %[[C4]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %arg0 to offset: [%[[OFF]]], sizes: [%[[SIZES]]#0, %[[SIZES]]#1], strides: [%[[STRIDES]]#0, 1]
// CHECK-SAME: to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[GROUPS:.*]] = arith.divui %[[NC]], %[[C4]]
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: %[[G:.*]] = arith.remui %{{.*}}, %[[GROUPS]]
// CHECK: arith.divui %{{.*}}, %[[GROUPS]]
// CHECK: arith.muli %[[G]], %[[C4]]
// CHECK: %[[J:.*]] = arith.addi %c0, %{{.*}}
// CHECK: %[[I:.*]] = arith.addi %c0, %{{.*}}
// CHECK: %[[V:.*]] = vector.load %[[VIEW]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
// CHECK: %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK: %[[V1:.*]] = vector.extract %[[V]][1]
// CHECK: %[[V2:.*]] = vector.extract %[[V]][2]
// CHECK: %[[V3:.*]] = vector.extract %[[V]][3]
// CHECK: %[[B:.*]] = memref.load %arg1[%[[I]]]
// CHECK-NOT: memref.load
// CHECK: %[[S0:.*]] = arith.addf %[[V0]], %[[B]]
// CHECK: %[[S1:.*]] = arith.addf %[[V1]], %[[B]]
// CHECK: %[[S2:.*]] = arith.addf %[[V2]], %[[B]]
// CHECK: %[[S3:.*]] = arith.addf %[[V3]], %[[B]]
// CHECK-COUNT-4: math.exp
// CHECK: %[[OUT:.*]] = vector.from_elements
// CHECK: vector.store %[[OUT]], %arg2[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// The scalar grid, one iteration per thread.
// CHECK: } else {
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: vector.
// CHECK: return
func.func @contiguous(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    %w = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %v, %w : f32
    %e = math.exp %s : f32
    memref.store %e, %y[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// A transposed read stays one load per lane; the contiguous store is one
// vector store.
// CHECK-LABEL: func.func @transposed
// CHECK: scf.if
// CHECK: memref.load %arg0[%[[J0:.*]], %[[I:.*]]]
// CHECK: memref.load %arg0[%{{.*}}, %[[I]]]
// CHECK: memref.load %arg0[%{{.*}}, %[[I]]]
// CHECK: memref.load %arg0[%{{.*}}, %[[I]]]
// CHECK: vector.from_elements
// CHECK: vector.store {{.*}}, %arg1[%[[I]], %[[J0]]] {alignment = 16 : i64}
func.func @transposed(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%j, %i] : memref<?x?xf32>
    memref.store %v, %y[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// float64: four elements are 32 bytes, the alignment checked and promised.
// CHECK-LABEL: func.func @float64
// CHECK: arith.constant 32 : index
// CHECK: vector.load {{.*}} {alignment = 32 : i64} : memref<?xf64>, vector<4xf64>
// CHECK: vector.store {{.*}} {alignment = 32 : i64} : memref<?xf64>, vector<4xf64>
func.func @float64(%x: memref<?xf64>, %y: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %y, %c0 : memref<?xf64>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf64>
    %a = math.absf %v : f64
    memref.store %a, %y[%i] : memref<?xf64>
  }
  return
}

// -----

// Bools (i1 vectors would be bit-packed) keep the scalar grid alone.
// CHECK-LABEL: func.func @bools
// CHECK-NOT: vector.
// CHECK-NOT: extract_aligned_pointer
// CHECK: memref.store
// CHECK: return
func.func @bools(%x: memref<?xi1>, %y: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %n = memref.dim %y, %c0 : memref<?xi1>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xi1>
    %w = arith.xori %v, %true : i1
    memref.store %w, %y[%i] : memref<?xi1>
  }
  return
}

// A reduction of each output element along a contiguous row (a sum over k
// of x[i, k]) folds four elements per step, one vector load each, in
// order, where the run-time check allows; the scalar fold otherwise.
// CHECK-LABEL: func.func @inner_loop
// CHECK: %[[FOLD:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c512 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[V:.*]] = vector.load %arg0[%{{.*}}, %[[J]]] {alignment = 16 : i64}
// CHECK: %[[E0:.*]] = vector.extract %[[V]][0]
// CHECK: %[[E1:.*]] = vector.extract %[[V]][1]
// CHECK: %[[E2:.*]] = vector.extract %[[V]][2]
// CHECK: %[[E3:.*]] = vector.extract %[[V]][3]
// CHECK: %[[S0:.*]] = arith.addf %[[ACC]], %[[E0]]
// CHECK: %[[S1:.*]] = arith.addf %[[S0]], %[[E1]]
// CHECK: %[[S2:.*]] = arith.addf %[[S1]], %[[E2]]
// CHECK: %[[S3:.*]] = arith.addf %[[S2]], %[[E3]]
// CHECK: scf.yield %[[S3]]
// CHECK: } else {
// CHECK: memref.load %arg0
// CHECK: gpu.all_reduce add %[[FOLD]]
func.func @inner_loop(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %z = arith.constant 0.0 : f32
    %s = scf.for %k = %c0 to %cols step %c1 iter_args(%acc = %z) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<?x?xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %s, %y[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// In a row kernel, an elementwise phase over the row's columns takes four
// columns at a time with vector accesses where the run-time check allows,
// each thread starting at lane * 4 and striding by 4 * 128 columns; the
// scalar phase runs otherwise.
// CHECK-LABEL: func.func @row_kernel
// CHECK: gpu.all_reduce maxnumf
// CHECK: gpu.barrier
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: arith.remui %strides_{{.*}}#0, %c4
// CHECK: %[[OK:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: %[[START:.*]] = arith.muli %[[LANE:.*]], %c4
// CHECK: %[[FROM:.*]] = arith.addi %{{.*}}, %[[START]]
// CHECK: scf.for %[[J:.*]] = %[[FROM]] to %{{.*}} step %c512
// CHECK: vector.load %arg0[%{{.*}}, %[[J]]] {alignment = 16 : i64}
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %[[J]]] {alignment = 16 : i64}
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store
func.func @row_kernel(%x: memref<?x?xf32>, %m: memref<?xf32>, %y: memref<?x?xf32>) {
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
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %mx = memref.load %m[%i] : memref<?xf32>
    %d = arith.subf %v, %mx : f32
    memref.store %d, %y[%i, %j] : memref<?x?xf32>
  }
  return
}
