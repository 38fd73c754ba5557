// Graphs whose only work is allow_in_graph calls (the harness's
// e2e_clip_and_shift), so that their GPU form runs without kernels on the
// stand-in driver: inputs staged to the "device", each operand copied to a
// host view with its offset and strides, the call, its result copied back
// into device memory and released, results brought back to the CPU.
func.func private @e2e_clip_and_shift(tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

// E2E: @whole f32[5,7]*3 f32[7]
// E2E: @whole f32[1,1] f32[1]
func.func @whole(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.opaque_call @e2e_clip_and_shift(%x, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A slice of rows starts at an offset into the input's buffer; a slice
// with a step has strides of two rows.
// E2E: @sliced f32[9,4]*3 f32[4] idx=2 idx=7
// E2E: @sliced f32[6,3] f32[3] idx=0 idx=6
func.func @sliced(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %b: index, %e: index) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c2 = arith.constant 2 : index
  %y = kiln.slice %x dim 0 [%b : %e] : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = kiln.opaque_call @e2e_clip_and_shift(%y, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %z = kiln.slice %x dim 0 [%b : %e step 2] : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = kiln.opaque_call @e2e_clip_and_shift(%z, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// One call's result, back in device memory, is the next one's operand.
// E2E: @twice f32[4,6]*3 f32[6]
func.func @twice(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.opaque_call @e2e_clip_and_shift(%x, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.opaque_call @e2e_clip_and_shift(%0, %s) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
