// Tests that OpenMP loops hand out work as threads free up: each thread
// takes the next chunk of iterations from a counter in the function's frame
// (zeroed before the parallel region) with one atomic add, about 16 chunks
// per thread, until none are left; a barrier follows where the region goes
// on. Loops of another form keep libomp's schedules.
// RUN: kiln-opt %s -convert-scf-to-openmp -kiln-openmp-schedule | FileCheck %s

// CHECK: func.func private @omp_get_num_threads() -> i32
// CHECK-LABEL: func.func @tiles
// CHECK: %[[COUNTER:.*]] = memref.alloca() : memref<i64>
// CHECK: memref.store %{{.*}}, %[[COUNTER]][] : memref<i64>
// CHECK-NEXT: omp.parallel {
// CHECK: %[[THREADS:.*]] = func.call @omp_get_num_threads()
// CHECK: %[[CHUNK:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: ^[[GRAB:bb[0-9]+]]:
// CHECK: %[[START:.*]] = memref.atomic_rmw addi %[[CHUNK]], %[[COUNTER]][]
// CHECK: cf.cond_br %{{.*}}, ^{{bb[0-9]+}}(%[[START]] : i64), ^[[DONE:bb[0-9]+]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK: ^[[DONE]]:
// CHECK-NEXT: omp.terminator
// CHECK-NOT: omp.wsloop
func.func @tiles(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c16) {
    memref.store %one, %out[%i] : memref<?xf32>
  }
  return
}

// Two loops in one region: a counter each, and the first loop's barrier
// between them (the region's end joins the threads after the second).
// CHECK-LABEL: func.func @two_loops
// CHECK-DAG: %[[FIRST:.*]] = memref.alloca() : memref<i64>
// CHECK-DAG: %[[SECOND:.*]] = memref.alloca() : memref<i64>
// CHECK: omp.parallel {
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[]
// CHECK: omp.barrier
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[]
// CHECK-NOT: omp.barrier
// CHECK: omp.terminator
func.func @two_loops(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %one, %out[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        %v = memref.load %out[%i] : memref<?xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %out[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// A reduction is a wsloop clause: libomp's guided schedule stays.
// CHECK-LABEL: func.func @reduction
// CHECK: omp.wsloop schedule(guided) reduction(
func.func @reduction(%n: index, %in: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %v = memref.load %in[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
