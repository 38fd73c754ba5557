// Rows longer than a GPU block (256 threads), so that each thread of the
// block-per-row mapping folds several strided elements of its row, and
// rows of lengths that do not divide by the block (and lengths that
// divide by four, for the four-column vector phases): softmax, layer_norm,
// sums, means and maxima over the last dim, over leading dims and over
// everything. Run on the CPU pipeline and through the GPU mapping emulated
// on the CPU (where a wrong stride or start misses or repeats elements).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// RUN: kiln-e2e %s --backend=cuda-emulated --work %t-emulated --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 8 passed, 0 failed


// E2E: @rows f32[3,1000] f32[1000] f32[1000]
// E2E: @rows f32[2,257] f32[257] f32[257]
// E2E: @rows f32[5,513] f32[513] f32[513]
// E2E: @rows f32[2,2052] f32[2052] f32[2052]
func.func @rows(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  %1 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %2 = kiln.sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %3 = kiln.amax %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}

// E2E: @everything f32[40,33]
// E2E: @everything f32[7,300]
func.func @everything(%x: tensor<?x?xf32>) -> (tensor<f32>, tensor<f32>, tensor<?xf32>) {
  %0 = kiln.mean %x dims [] : tensor<?x?xf32> -> tensor<f32>
  %1 = kiln.amax %x dims [] : tensor<?x?xf32> -> tensor<f32>
  %2 = kiln.sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<?xf32>
}

// E2E: @int_sums i64[600,2]{-50,50}
// E2E: @int_sums i64[3,700]{-50,50}
func.func @int_sums(%x: tensor<?x?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %0 = kiln.sum %x dims [0] : tensor<?x?xi64> -> tensor<?xi64>
  %1 = kiln.sum %x dims [1] : tensor<?x?xi64> -> tensor<?xi64>
  return %0, %1 : tensor<?xi64>, tensor<?xi64>
}
