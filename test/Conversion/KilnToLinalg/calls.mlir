// Tests that kiln.opaque_call becomes a func.call of its declaration, which
// gets a C interface for the host to implement, its tensors marked read
// only (the callee must not write them) so that bufferization passes the
// graph's buffers without copies.
// RUN: kiln-opt %s -convert-kiln-to-linalg | FileCheck %s

// CHECK: func.func private @clip(tensor<?xf32> {bufferization.access = "read"}) -> tensor<?xf32> attributes {llvm.emit_c_interface}
func.func private @clip(tensor<?xf32>) -> tensor<?xf32>

// CHECK-LABEL: func.func @graph
// CHECK: %[[Y:.*]] = call @clip(%arg0) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NOT: kiln.opaque_call
// CHECK: return %[[Y]]
func.func @graph(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = kiln.opaque_call @clip(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
