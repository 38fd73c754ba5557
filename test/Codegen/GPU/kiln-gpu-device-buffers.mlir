// Tests that a GPU graph's host function keeps its buffers on the device:
// allocations and deallocations go through the gpu dialect, and copies
// become linalg.copy (a kernel later), so that the host never touches
// tensor data.
// RUN: kiln-opt %s -kiln-gpu-device-buffers -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[X:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[N:.*]]: index)
// CHECK: %[[A:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%[[X]] : memref<?xf32, strided<[?], offset: ?>>) outs(%[[A]] : memref<?xf32>)
// CHECK-NOT: memref.copy
// CHECK: %[[B:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK: linalg.copy ins(%[[A]] : memref<?xf32>) outs(%[[B]] : memref<?xf32>)
// CHECK: gpu.dealloc %[[A]] : memref<?xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[B]]
func.func @buffers(%x: memref<?xf32, strided<[?], offset: ?>>, %n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  memref.copy %x, %a : memref<?xf32, strided<[?], offset: ?>> to memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %b : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return %b : memref<?xf32>
}

// -----

// An allow_in_graph function runs on the host: it gets a host copy of each
// device operand (the span of its buffer up to its last element, one
// gpu.memcpy, viewed with the operand's offset and strides), and its result,
// a contiguous host buffer, is copied into a device buffer that replaces
// it, then handed back to the runtime.
// CHECK-LABEL: func.func private @kiln_release_returned_buffer(index)
// CHECK-LABEL: func.func @opaque
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZE:.*]], %[[STRIDE:.*]] = memref.extract_strided_metadata %arg0
// CHECK: %[[SPAN:.*]] = arith.select
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[SPAN]]], strides: [1]
// CHECK: %[[HOST:.*]] = memref.alloc(%[[SPAN]]) {kiln.host} : memref<?xf32>
// CHECK: gpu.memcpy %[[HOST]], %[[FLAT]]
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[HOST]] to offset: [%[[OFF]]], sizes: [%[[SIZE]]], strides: [%[[STRIDE]]]
// CHECK: %[[R:.*]] = call @host_fn(%[[VIEW]])
// CHECK: memref.dealloc %[[HOST]] {kiln.host}
// CHECK: %[[CONTIGUOUS:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [%{{.*}}, 8], strides: [8, 1] : {{.*}} to memref<?x8xf32>
// CHECK: %[[DEVICE:.*]] = gpu.alloc (%{{.*}}) : memref<?x8xf32>
// CHECK: gpu.memcpy %[[DEVICE]], %[[CONTIGUOUS]]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK: call @kiln_release_returned_buffer(%[[PTR]])
// CHECK: %[[OUT:.*]] = memref.cast %[[DEVICE]]
// CHECK: return %[[OUT]]
func.func private @host_fn(memref<?xf32, strided<[?], offset: ?>>) -> memref<?x8xf32, strided<[?, ?], offset: ?>>
func.func @opaque(%x: memref<?xf32, strided<[?], offset: ?>>) -> memref<?x8xf32, strided<[?, ?], offset: ?>> {
  %r = func.call @host_fn(%x) : (memref<?xf32, strided<[?], offset: ?>>) -> memref<?x8xf32, strided<[?, ?], offset: ?>>
  return %r : memref<?x8xf32, strided<[?, ?], offset: ?>>
}

// -----

// A buffer that only host code uses (a shape) stays in host memory.
// CHECK-LABEL: func.func @shape_buffer
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[SHAPE]]
// CHECK: memref.reshape %{{.*}}(%[[SHAPE]])
// CHECK: memref.dealloc %[[SHAPE]] : memref<2xindex>
func.func @shape_buffer(%x: memref<?xf32>, %a: index, %b: index) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %a, %shape[%c0] : memref<2xindex>
  memref.store %b, %shape[%c1] : memref<2xindex>
  %r = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<?x?xf32>
  memref.dealloc %shape : memref<2xindex>
  return %r : memref<?x?xf32>
}

// -----

// Host code reading a single value that a kernel computed (the check of
// embedding ids) copies it from the device first.
// CHECK-LABEL: func.func @read_flag
// CHECK: %[[FLAG:.*]] = gpu.alloc () : memref<i1>
// CHECK: linalg.fill ins(%{{.*}} : i1) outs(%[[FLAG]] : memref<i1>)
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<i1>
// CHECK: gpu.memcpy %[[HOST]], %[[FLAG]] : memref<i1>, memref<i1>
// CHECK: %[[V:.*]] = memref.load %[[HOST]][] : memref<i1>
// CHECK: return %[[V]]
func.func @read_flag(%b: i1) -> i1 {
  %flag = memref.alloc() : memref<i1>
  linalg.fill ins(%b : i1) outs(%flag : memref<i1>)
  %v = memref.load %flag[] : memref<i1>
  return %v : i1
}

// -----

// CHECK-LABEL: func.func @write_value
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<f32>
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %arg0, %[[HOST]][] : memref<f32>
// CHECK: gpu.memcpy %[[BUF]], %[[HOST]] : memref<f32>, memref<f32>
func.func @write_value(%v: f32) -> memref<f32> {
  %buf = memref.alloc() : memref<f32>
  memref.store %v, %buf[] : memref<f32>
  return %buf : memref<f32>
}

// -----

// Reading a tensor's elements on the host is not staged: an error.
func.func @read_many(%x: memref<?xf32>, %i: index) -> f32 {
  // expected-error @+1 {{kiln: host code reads or writes device memory of type 'memref<?xf32>' (only single values are copied for the host)}}
  %v = memref.load %x[%i] : memref<?xf32>
  return %v : f32
}

// -----

// Linalg ops with no parallel loop (a sum of every element, a fill of a
// single value) are put in a one-iteration parallel loop: kernels, not
// host loops over device memory.
// CHECK-LABEL: func.func @total
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<f32>
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<f32>)
// CHECK-NEXT: scf.reduce
// CHECK: scf.parallel
// CHECK-NEXT: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
#sum_in = affine_map<(d0, d1) -> (d0, d1)>
#sum_out = affine_map<(d0, d1) -> ()>
func.func @total(%x: memref<?x?xf32>) -> memref<f32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [#sum_in, #sum_out], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return %out : memref<f32>
}

// -----

// A constant lives in host memory: kernels read a device copy, made where
// the constant is taken and freed before the return.
memref.global "private" constant @table : memref<3xi64> = dense<[4, 5, 6]>
// CHECK-LABEL: func.func @constant_copied
// CHECK: %[[G:.*]] = memref.get_global @table
// CHECK: %[[D:.*]] = gpu.alloc () : memref<3xi64>
// CHECK: gpu.memcpy %[[D]], %[[G]]
// CHECK: linalg.copy ins(%[[D]] : memref<3xi64>)
// CHECK: gpu.dealloc %[[D]]
// CHECK-NEXT: return
func.func @constant_copied(%out: memref<3xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @table : memref<3xi64>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.copy ins(%g : memref<3xi64>) outs(%out : memref<3xi64>)
    scf.reduce
  }
  return
}

// -----

// Element loops over device memory left in host code (a scan over a 1-d
// tensor, whose one-row scf.forall was inlined) run as a one-thread kernel;
// accesses inside scf.parallel are kernel code and stay as they are.
// CHECK-LABEL: func.func @serial_loop
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store {{.*}}, %arg1
func.func @serial_loop(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    memref.store %s, %y[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  return
}

// -----

// A run of such code (attention's one query row, its scf.forall inlined:
// loads of the row, a loop whose results the code after it uses, stores
// into a new tensor's buffer) runs whole as one one-thread kernel, from
// its first access to its last; the buffer it fills becomes device memory.
// CHECK-LABEL: func.func @serial_run
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<2xf32>
// CHECK: scf.parallel
// CHECK: memref.load %arg0
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK-NEXT: scf.reduce
// CHECK: return %[[OUT]]
func.func @serial_run(%x: memref<2xf32>, %k: memref<?xf32>, %n: index) -> memref<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = memref.alloc() : memref<2xf32>
  %a = memref.load %x[%c0] : memref<2xf32>
  %b = memref.load %x[%c1] : memref<2xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (f32, f32) {
    %v = memref.load %k[%i] : memref<?xf32>
    %p2 = arith.addf %p, %v : f32
    %q2 = arith.mulf %q, %v : f32
    scf.yield %p2, %q2 : f32, f32
  }
  %s = arith.addf %r#0, %r#1 : f32
  memref.store %s, %out[%c0] : memref<2xf32>
  memref.store %r#1, %out[%c1] : memref<2xf32>
  return %out : memref<2xf32>
}

// -----

// Through a view too: the view is taken of the device copy.
memref.global "private" constant @rows : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
// CHECK-LABEL: func.func @constant_view
// CHECK: %[[G:.*]] = memref.get_global @rows
// CHECK: %[[D:.*]] = gpu.alloc () : memref<2x3xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]]
// CHECK: memref.subview %[[D]][1, 0] [1, 3] [1, 1]
// CHECK: gpu.dealloc %[[D]]
func.func @constant_view(%out: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @rows : memref<2x3xf32>
  %v = memref.subview %g[1, 0] [1, 3] [1, 1] : memref<2x3xf32> to memref<3xf32, strided<[1], offset: 3>>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.copy ins(%v : memref<3xf32, strided<[1], offset: 3>>) outs(%out : memref<3xf32>)
    scf.reduce
  }
  return
}
