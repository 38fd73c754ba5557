// Tests that a GPU graph's host function keeps its buffers on the device:
// allocations and deallocations go through the gpu dialect, and copies
// become linalg.copy (a kernel later), so that the host never touches
// tensor data.
// RUN: kiln-opt %s -kiln-gpu-device-buffers | FileCheck %s

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
