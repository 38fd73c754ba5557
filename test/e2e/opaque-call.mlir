// Tests kiln.opaque_call: an allow_in_graph function runs inside the
// compiled graph through its C interface (here the harness's), between
// compiled ops, and gives what eager code gives.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 2 passed, 0 failed

func.func private @e2e_clip_and_shift(tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

// E2E: @graph f32[5,7] f32[7]
// E2E: @graph f32[1,3] f32[3]
func.func @graph(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %c = kiln.constant dense<2.0> : tensor<f32>
  %0 = kiln.mul %x, %c : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %1 = kiln.opaque_call @e2e_clip_and_shift(%0, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %2 = kiln.exp %1 : tensor<?x?xf32>
  %3 = kiln.add %2, %1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}
