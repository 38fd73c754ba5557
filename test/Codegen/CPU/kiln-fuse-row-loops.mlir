// Tests that the loops over a row tile's rows fuse into one loop when each
// touches the buffers they write only at its own row: allocations between
// them move up, a copy of row buffers becomes a row loop, and the fused
// loop runs the first loop's body, then the second's, for each row.
// Loops that read another row of what the other writes stay apart.
// RUN: kiln-opt %s -kiln-fuse-row-loops -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @row_max_then_exp
// CHECK: scf.parallel
// CHECK: %[[MAX:.*]] = memref.alloc(%[[ROWS:.*]]) : memref<?xf32>
// CHECK: %[[COPY:.*]] = memref.alloc(%[[ROWS]]) : memref<?xf32>
// CHECK: %[[E:.*]] = memref.alloc(%[[ROWS]], %{{.*}}) : memref<?x?xf32>
// CHECK: scf.for %[[R:.*]] = %c0 to %[[ROWS]] step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %[[MAX]][%[[R]]]
// CHECK: scf.for %{{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: memref.store %{{.*}}, %[[MAX]][%[[R]]]
// CHECK: %[[M:.*]] = memref.load %[[MAX]][%[[R]]]
// CHECK: memref.store %[[M]], %[[COPY]][%[[R]]]
// CHECK: scf.for
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[E]][%[[R]], %{{.*}}]
// CHECK-NOT: scf.for %{{.*}} = %c0 to %[[ROWS]]
// CHECK: memref.dealloc
func.func @row_max_then_exp(%x: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant 0xFF800000 : f32
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%t) = (%c0) to (%n) step (%c16) {
    %rows = affine.min affine_map<(d0)[s0] -> (16, s0 - d0)>(%t)[%n]
    %max = memref.alloc(%rows) : memref<?xf32>
    scf.for %r = %c0 to %rows step %c1 {
      memref.store %ninf, %max[%r] : memref<?xf32>
    }
    scf.for %r = %c0 to %rows step %c1 {
      %row = arith.addi %t, %r : index
      %init = memref.load %max[%r] : memref<?xf32>
      %m = scf.for %c = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
        %v = memref.load %x[%row, %c] : memref<?x?xf32>
        %next = arith.maxnumf %acc, %v : f32
        scf.yield %next : f32
      }
      memref.store %m, %max[%r] : memref<?xf32>
    }
    %copy = memref.alloc(%rows) : memref<?xf32>
    memref.copy %max, %copy : memref<?xf32> to memref<?xf32>
    %e = memref.alloc(%rows, %cols) : memref<?x?xf32>
    scf.for %r = %c0 to %rows step %c1 {
      %row = arith.addi %t, %r : index
      scf.for %c = %c0 to %cols step %c1 {
        %v = memref.load %x[%row, %c] : memref<?x?xf32>
        %m = memref.load %copy[%r] : memref<?xf32>
        %d = arith.subf %v, %m : f32
        %ex = math.exp %d : f32
        memref.store %ex, %e[%r, %c] : memref<?x?xf32>
      }
    }
    memref.dealloc %max : memref<?xf32>
    memref.dealloc %copy : memref<?xf32>
    memref.dealloc %e : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// The second loop reads the next row of what the first writes: fusing
// would read it before it is written. (Its own output, a view of the
// tile's rows, alone would not stop fusion.)
// CHECK-LABEL: func.func @next_row
// CHECK: scf.parallel
// CHECK: scf.for %[[R1:.*]] = %c0 to %[[ROWS:.*]] step %c1 {
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK: scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1 {
func.func @next_row(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%t) = (%c0) to (%n) step (%c16) {
    %rows = affine.min affine_map<(d0)[s0] -> (16, s0 - d0)>(%t)[%n]
    %buf = memref.alloc(%rows) : memref<?xf32>
    %tile = memref.subview %out[%t] [%rows] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.for %r = %c0 to %rows step %c1 {
      memref.store %one, %buf[%r] : memref<?xf32>
    }
    scf.for %r = %c0 to %rows step %c1 {
      %next = arith.addi %r, %c1 : index
      %last = arith.subi %rows, %c1 : index
      %i = arith.minui %next, %last : index
      %v = memref.load %buf[%i] : memref<?xf32>
      memref.store %v, %tile[%r] : memref<?xf32, strided<[1], offset: ?>>
    }
    memref.dealloc %buf : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// Inside a row, a loop writing each column and a sum reading each column
// fuse into one loop (the first body, then the second, per column); stores
// of other buffers between them stay before it. The max's loop does not
// fuse with the exponentials': they read the row's maximum, stored after it.
// CHECK-LABEL: func.func @exp_then_sum
// CHECK: scf.for %[[R:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (f32) {
// CHECK: arith.maxnumf
// CHECK: }
// CHECK: memref.store %{{.*}}, %[[MAX:.*]][%[[R]]]
// CHECK: memref.store %{{.*}}, %[[SUM:.*]][%[[R]]]
// CHECK: %[[TOTAL:.*]] = scf.for %[[C:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: math.exp
// CHECK: memref.store %[[E:.*]], %[[EXPS:.*]][%[[R]], %[[C]]]
// CHECK: %[[V:.*]] = memref.load %[[EXPS]][%[[R]], %[[C]]]
// CHECK: arith.addf %[[ACC]], %[[V]]
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[TOTAL]], %[[SUM]][%[[R]]]
func.func @exp_then_sum(%x: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%t) = (%c0) to (%n) step (%c16) {
    %rows = affine.min affine_map<(d0)[s0] -> (16, s0 - d0)>(%t)[%n]
    %max = memref.alloc(%rows) : memref<?xf32>
    %sum = memref.alloc(%rows) : memref<?xf32>
    %e = memref.alloc(%rows, %cols) : memref<?x?xf32>
    scf.for %r = %c0 to %rows step %c1 {
      %row = arith.addi %t, %r : index
      %m = scf.for %c = %c0 to %cols step %c1 iter_args(%acc = %ninf) -> (f32) {
        %v = memref.load %x[%row, %c] : memref<?x?xf32>
        %next = arith.maxnumf %acc, %v : f32
        scf.yield %next : f32
      }
      memref.store %m, %max[%r] : memref<?xf32>
      scf.for %c = %c0 to %cols step %c1 {
        %v = memref.load %x[%row, %c] : memref<?x?xf32>
        %mx = memref.load %max[%r] : memref<?xf32>
        %d = arith.subf %v, %mx : f32
        %ex = math.exp %d : f32
        memref.store %ex, %e[%r, %c] : memref<?x?xf32>
      }
      memref.store %zero, %sum[%r] : memref<?xf32>
      %init = memref.load %sum[%r] : memref<?xf32>
      %s = scf.for %c = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
        %v = memref.load %e[%r, %c] : memref<?x?xf32>
        %next = arith.addf %acc, %v : f32
        scf.yield %next : f32
      }
      memref.store %s, %sum[%r] : memref<?xf32>
    }
    memref.dealloc %max : memref<?xf32>
    memref.dealloc %sum : memref<?xf32>
    memref.dealloc %e : memref<?x?xf32>
    scf.reduce
  }
  return
}
