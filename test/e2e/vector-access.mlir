// Graphs whose last dims are multiples of four, so that the GPU mapping's
// vectorized grid (four consecutive elements per thread, one aligned
// vector load or store per contiguous buffer) runs, beside shapes and
// views that must take the scalar grid: odd sizes, a column slice (its
// offset not a multiple of four), a transposed view, broadcast rows and
// columns, float64, int64 and bool. Run on the CPU pipeline too, where no
// grid is involved: the results are the same graphs' eager ones.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// RUN: kiln-e2e %s --backend=cuda-emulated --work %t-emulated --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 16 passed, 0 failed

// E2E: @row_bias f32[64,128] f32[128]
// E2E: @row_bias f32[6,12] f32[12]
// E2E: @row_bias f32[5,7] f32[7]
// E2E: @row_bias f32[4,8] f32[1]
func.func @row_bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.add %x, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.gelu %0 : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// E2E: @column_scale f32[16,32] f32[16,1]
// E2E: @column_scale f32[3,4] f32[3,1]
func.func @column_scale(%x: tensor<?x?xf32>, %s: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = kiln.mul %x, %s : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @transposed f32[8,12] f32[12,8]
// E2E: @transposed f32[5,3] f32[3,5]
func.func @transposed(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = kiln.transpose %y dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = kiln.sub %x, %t : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @sliced f32[8,20]
// E2E: @sliced f32[4,9]
func.func @sliced(%x: tensor<?x?xf32>) -> tensor<?x8xf32> {
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %s = kiln.slice %x dim 1 [%c1 : %c9] : tensor<?x?xf32> -> tensor<?x8xf32>
  %0 = kiln.exp %s : tensor<?x8xf32>
  %1 = kiln.add %0, %s : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// E2E: @mixed_types f64[32] i64[32]{-9,9} i1[32]
// E2E: @mixed_types f64[13] i64[13]{-9,9} i1[13]
func.func @mixed_types(%x: tensor<?xf64>, %i: tensor<?xi64>, %m: tensor<?xi1>) -> (tensor<?xf64>, tensor<?xi64>, tensor<?xi1>) {
  %c = kiln.cast %i : tensor<?xi64> to tensor<?xf64>
  %0 = kiln.mul %x, %c : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %1 = kiln.add %i, %i : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %z = kiln.constant dense<0.0> : tensor<f64>
  %p = kiln.cmp gt, %x, %z : (tensor<?xf64>, tensor<f64>) -> tensor<?xi1>
  %2 = kiln.where %m, %p, %m : (tensor<?xi1>, tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
  return %0, %1, %2 : tensor<?xf64>, tensor<?xi64>, tensor<?xi1>
}

// E2E: @softmax_rows f32[16,64]
// E2E: @softmax_rows f32[3,10]
func.func @softmax_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @row_sum_f16 f16[8,16]
// E2E: @row_sum_f16 f16[8,17]
func.func @row_sum_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = kiln.add %x, %x : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}
