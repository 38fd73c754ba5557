// Tests how loop nests are mapped onto GPU blocks and threads: any nest is
// collapsed into one dim (last dim fastest) and split into blocks of
// block-size threads with a bounds check; a row reduction runs one block
// per row with a strided per-thread loop, gpu.all_reduce, the initial value
// folded in once, and thread 0 storing, with the nests over the same rows
// around it as phases of the same kernel; a contraction runs one thread per
// output element. (Elementwise nests with vector accesses:
// kiln-gpu-map-parallel-loops-vector-width.mlir; the CPU emulation:
// kiln-test-gpu-mapping-on-cpu.mlir.)
// RUN: kiln-opt %s -kiln-gpu-map-parallel-loops="block-size=128 vector-width=1" -cse -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @elementwise
// CHECK: %[[NR:.*]] = arith.ceildivui %{{.*}}, %c1 : index
// CHECK: %[[ROWS:.*]] = arith.muli %c1, %[[NR]] : index
// CHECK: %[[NC:.*]] = arith.ceildivui %{{.*}}, %c1 : index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[ROWS]], %[[NC]] : index
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[NB:.*]] = arith.ceildivui %[[TOTAL]], %[[C128]]
// CHECK: scf.parallel (%[[B:.*]]) = (%c0) to (%[[NB]]) step (%c1)
// CHECK: scf.parallel (%[[T:.*]]) = (%c0) to (%[[C128]]) step (%c1)
// CHECK: %[[BASE:.*]] = arith.muli %[[B]], %[[C128]]
// CHECK: %[[LIN:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[TOTAL]]
// CHECK: scf.if %[[IN]]
// CHECK: arith.remui %[[LIN]], %[[NC]]
// CHECK: arith.divui %[[LIN]], %[[NC]]
// CHECK: memref.load %arg0
// CHECK: math.exp
// CHECK: memref.store
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x
func.func @elementwise(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @row_max
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: scf.parallel (%[[ROW:.*]]) =
// CHECK: scf.parallel (%[[LANE:.*]]) = (%c0) to (%[[C128]])
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[OFF:.*]] = arith.muli %[[LANE]], %c1
// CHECK: %[[START:.*]] = arith.addi %c0, %[[OFF]]
// CHECK: %[[STRIDE:.*]] = arith.muli %c1, %[[C128]]
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[START]] to %{{.*}} step %[[STRIDE]] iter_args(%[[ACC:.*]] = %[[NAN]]) -> (f32)
// CHECK: arith.maxnumf %[[ACC]]
// CHECK: %[[ALL:.*]] = gpu.all_reduce maxnumf %[[PART]] uniform
// CHECK: %[[RES:.*]] = arith.maxnumf %[[INIT]], %[[ALL]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: memref.store %[[RES]], %arg1
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_x
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

// CHECK-LABEL: func.func @matmul
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %k = memref.dim %a, %c1 : memref<?x?xf32>
  %m = memref.dim %b, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %init = memref.load %c[%i, %j] : memref<?x?xf32>
    %r = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %a[%i, %l] : memref<?x?xf32>
      %y = memref.load %b[%l, %j] : memref<?x?xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %r, %c[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// A reduction whose combiner gpu.all_reduce cannot express (a select)
// runs one thread per row.
// CHECK-LABEL: func.func @select_reduction
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.if
// CHECK: scf.for
// CHECK: arith.select
func.func @select_reduction(%x: memref<?x?xf32>, %m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %m[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %gt = arith.cmpf ogt, %v, %acc : f32
      %n = arith.select %gt, %v, %acc : f32
      scf.yield %n : f32
    }
    memref.store %r, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// A reduction of several dims (a perfect nest) is coalesced into one loop
// that the whole block shares.
// CHECK-LABEL: func.func @sum_all
// CHECK: scf.parallel
// CHECK: scf.parallel (%[[LANE:.*]]) =
// CHECK: %[[N:.*]] = affine.apply
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args
// CHECK: affine.delinearize_index %[[I]]
// CHECK: gpu.all_reduce add
func.func @sum_all(%x: memref<?x?xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%u) = (%c0) to (%c1) step (%c1) {
    %init = memref.load %out[%u] : memref<1xf32>
    %r = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %init) -> (f32) {
      %s = scf.for %j = %c0 to %cols step %c1 iter_args(%b = %a) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %n = arith.addf %b, %v : f32
        scf.yield %n : f32
      }
      scf.yield %s : f32
    }
    memref.store %r, %out[%u] : memref<1xf32>
  }
  return
}

// -----

// Device memory touched by host code after the mapping is an error.
func.func @host_read(%x: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{kiln: host code would access device memory (not mapped onto the GPU)}}
  %v = memref.load %x[%c0] : memref<?xf32>
  return %v : f32
}

// -----

// Softmax's nests over the same rows (the fill of the maximum, the row
// maximum, the exponentials, the fill of the sum, the row sum, the
// division) become one kernel: a block per row, each nest a phase, a
// barrier between phases; fills run on thread 0, elementwise phases stride
// the row's columns over the threads.
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-1: scf.parallel (%{{.*}}) = (%c0) to (%c128)
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[M:.*]][%[[R:.*]]] : memref<?xf32>
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce maxnumf
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce add
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK-NOT: scf.parallel
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

// -----

// A nest that reads what the reduction wrote at another row (here row 0)
// is not row-local: it stays its own kernel after the reduction's.
// CHECK-LABEL: func.func @not_row_local
// CHECK: gpu.all_reduce
// CHECK-NOT: gpu.barrier
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK: scf.parallel
// CHECK: memref.load %arg1[%c0]
func.func @not_row_local(%x: memref<?x?xf32>, %m: memref<?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %init = memref.load %m[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %r, %m[%i] : memref<?xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %s = memref.load %m[%c0] : memref<?xf32>
    %q = arith.divf %v, %s : f32
    memref.store %q, %y[%i, %j] : memref<?x?xf32>
  }
  return
}
