// A run-time broadcast copy (a generic marked kiln.broadcast_copy, which
// reads its source at min(index, size - 1)) becomes one memref.copy from a
// view of the source whose strides are 0 where its sizes differ from the
// copy's: no loop nest of its own. Unmarked generics stay as they are.
// RUN: kiln-opt %s --kiln-broadcast-copies | FileCheck %s

// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[SRC:.*]]: memref<?x?xf32>, %[[DST:.*]]: memref<?x7xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[D0:.*]] = memref.dim %[[DST]], %c0
// CHECK: %[[SAME0:.*]] = arith.cmpi eq, %[[SIZES]]#0, %[[D0]]
// CHECK: %[[S0:.*]] = arith.select %[[SAME0]], %[[STRIDES]]#0, %c0
// CHECK: %[[SAME1:.*]] = arith.cmpi eq, %[[SIZES]]#1, %c7
// CHECK: %[[S1:.*]] = arith.select %[[SAME1]], %[[STRIDES]]#1, %c0
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[D0]], 7], strides: [%[[S0]], %[[S1]]]
// CHECK: memref.copy %[[VIEW]], %[[DST]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @copy(%src: memref<?x?xf32>, %dst: memref<?x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %src, %c0 : memref<?x?xf32>
  %d1 = memref.dim %src, %c1 : memref<?x?xf32>
  %last0 = arith.subi %d0, %c1 : index
  %last1 = arith.subi %d1, %c1 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%dst : memref<?x7xf32>) attrs = {kiln.broadcast_copy} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i1 = arith.minui %i, %last0 : index
    %j1 = arith.minui %j, %last1 : index
    %x = memref.load %src[%i1, %j1] : memref<?x?xf32>
    linalg.yield %x : f32
  }
  return
}

// CHECK-LABEL: func.func @unmarked
// CHECK: linalg.generic
// CHECK-NOT: memref.copy
func.func @unmarked(%src: memref<?xf32>, %dst: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]} outs(%dst : memref<?xf32>) {
  ^bb0(%out: f32):
    %x = memref.load %src[%c0] : memref<?xf32>
    linalg.yield %x : f32
  }
  return
}
