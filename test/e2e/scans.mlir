// Tests compiled cumsum, cumprod, topk and scatter_add (per-row loops under
// scf.forall) against the eager runtime: several dims, sizes the functions
// never name, empty dims, 0-d tensors, infinities and NaN (the `!` inputs),
// ties (small integer ranges), integer wrapping, and the run-time errors.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 26 passed, 0 failed

// E2E: @cumsum f32[3,7] f32[5,2,4]
// E2E: @cumsum f32[4,33]! f32[1,1,1]
// E2E: @cumsum f32[0,5] f32[3,0,2]
func.func @cumsum(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %0 = kiln.cumsum %x dim 1 : tensor<?x?xf32>
  %1 = kiln.cumsum %y dim 0 : tensor<?x?x?xf32>
  %2 = kiln.cumsum %y dim 2 : tensor<?x?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// E2E: @cumprod f32[6,9]{-1.6,1.6} f64[5,7]
// E2E: @cumprod f32[2,40]! f64[1,0]
func.func @cumprod(%x: tensor<?x?xf32>, %y: tensor<?x?xf64>) -> (tensor<?x?xf32>, tensor<?x?xf64>) {
  %0 = kiln.cumprod %x dim 1 : tensor<?x?xf32>
  %1 = kiln.cumprod %y dim 0 : tensor<?x?xf64>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf64>
}

// Integers wrap: 2^32 twice over overflows int64.
// E2E: @int_scans i64[4,12]{-100000,100000} i64[3]{-5,5}
// E2E: @int_scans i64[1,70]{4294967290,4294967296} i64[0]{0,1}
func.func @int_scans(%x: tensor<?x?xi64>, %y: tensor<?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?xi64>) {
  %0 = kiln.cumsum %x dim 1 : tensor<?x?xi64>
  %1 = kiln.cumprod %x dim 1 : tensor<?x?xi64>
  %2 = kiln.cumsum %y dim 0 : tensor<?xi64>
  return %0, %1, %2 : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?xi64>
}

// E2E: @scalar_scans f32[]
func.func @scalar_scans(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = kiln.cumsum %x dim 0 : tensor<f32>
  %1 = kiln.cumprod %x dim 0 : tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// E2E: @topk f32[4,9] idx=3
// E2E: @topk f32[5,11]! idx=11
// E2E: @topk f32[3,6] idx=0
// E2E: @topk f32[2,4] idx=5 expect-error
// E2E: @topk f32[2,4] idx=-1 expect-error
func.func @topk(%x: tensor<?x?xf32>, %k: index) -> (tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %0 = kiln.topk %x, %k dim 1 largest : (tensor<?x?xf32>, index) -> tensor<?x?xi64>
  %1 = kiln.topk %x, %k dim 1 : (tensor<?x?xf32>, index) -> tensor<?x?xi64>
  %c1 = arith.constant 1 : index
  %2 = kiln.topk %x, %c1 dim 0 largest : (tensor<?x?xf32>, index) -> tensor<?x?xi64>
  return %0, %1, %2 : tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}

// Ties: equal values come in index order.
// E2E: @topk_ties i64[3,10]{0,3} i32[6,5]{-2,2} idx=4
// E2E: @topk_ties i64[1,7]{0,1} i32[0,5]{0,1} idx=7
func.func @topk_ties(%x: tensor<?x?xi64>, %y: tensor<?x?xi32>, %k: index) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %0 = kiln.topk %x, %k dim 1 largest : (tensor<?x?xi64>, index) -> tensor<?x?xi64>
  %c3 = arith.constant 3 : index
  %1 = kiln.topk %y, %c3 dim 1 : (tensor<?x?xi32>, index) -> tensor<?x?xi64>
  return %0, %1 : tensor<?x?xi64>, tensor<?x?xi64>
}

// E2E: @topk_scalar f64[] idx=1
// E2E: @topk_scalar f64[] idx=0 expect-error
func.func @topk_scalar(%x: tensor<f64>, %k: index) -> tensor<i64> {
  %0 = kiln.topk %x, %k dim 0 largest : (tensor<f64>, index) -> tensor<i64>
  return %0 : tensor<i64>
}

// E2E: @scatter f32[5,4] i64[3,4]{0,5} f32[3,4]
// E2E: @scatter f32[2,3] i64[6,2]{0,2} f32[7,3]
// E2E: @scatter f32[4,4] i64[0,4]{0,1} f32[2,4]
// E2E: @scatter f32[5,4] i64[3,4]{5,9} f32[3,4] expect-error
// E2E: @scatter f32[5,4] i64[3,4]{0,5} f32[2,4] expect-error
// E2E: @scatter f32[5,2] i64[3,4]{0,5} f32[3,4] expect-error
func.func @scatter(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %s: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @scatter_last i64[3,6]{-50,50} i32[3,9]{0,6} i64[4,9]{-50,50}
func.func @scatter_last(%x: tensor<?x?xi64>, %i: tensor<?x?xi32>, %s: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.scatter_add %x, %i, %s dim 1 : (tensor<?x?xi64>, tensor<?x?xi32>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

// E2E: @scatter_scalar f32[] i64[]{0,1} f32[]
func.func @scatter_scalar(%x: tensor<f32>, %i: tensor<i64>, %s: tensor<f32>) -> tensor<f32> {
  %0 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// float16 and bfloat16 scan in f64 and round through f32, as eager does.
// E2E: @half_scans f16[3,40] bf16[5,6]{-1.5,1.5}
func.func @half_scans(%x: tensor<?x?xf16>, %y: tensor<?x?xbf16>) -> (tensor<?x?xf16>, tensor<?x?xbf16>) {
  %0 = kiln.cumsum %x dim 1 : tensor<?x?xf16>
  %1 = kiln.cumprod %y dim 0 : tensor<?x?xbf16>
  return %0, %1 : tensor<?x?xf16>, tensor<?x?xbf16>
}
