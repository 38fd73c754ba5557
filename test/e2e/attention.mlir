// Tests kiln.scaled_dot_product_attention compiled against the eager runtime:
// without a mask, causal (more queries than keys too), with bool and float
// masks that broadcast (rows that attend to nothing), an explicit scale,
// rank-2 and rank-3 operands whose batch dims broadcast (size 1 at run
// time too), f64, f16 and bf16, keys in several of the kernel's blocks, a
// head dim of 0 (the scores are 0: v's mean), a query row of inf, -inf and
// NaN (NaN rows, as torch gives), a 0-d mask, and sizes eager rejects. E2E-GRAD lines: its
// gradient (GradientOpInterface) against eager autograd's, the batch dims
// broadcast, causal, masked (rows that attend to no key take none), a float
// mask's own gradient, and one tensor as query, key and value.
// test/e2e/cuda/emulated.test runs it through the GPU pipeline's lowering
// (one loop nest, convert-kiln-to-linalg).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 31 passed, 0 failed

// E2E: @plain f32[2,3,5,8] f32[2,3,7,8] f32[2,3,7,6]
// E2E: @plain f32[1,1,1,4] f32[1,1,300,4] f32[1,1,300,2]
// E2E: @plain f32[2,3,5,8] f32[2,3,7,9] f32[2,3,7,6] expect-error
// E2E: @plain f32[2,3,5,8] f32[1,3,7,8] f32[2,1,7,6]
// E2E: @plain f32[2,3,5,8] f32[3,3,7,8] f32[3,3,7,6] expect-error
// E2E: @plain f32[2,3,5,8] f32[2,3,7,8] f32[2,3,6,6] expect-error
// E2E: @plain f32[1,1,3,0] f32[1,1,4,0] f32[1,1,4,2]
// E2E: @plain f32[2,3,5,8]! f32[2,3,7,8] f32[2,3,7,6]
// E2E-GRAD: @plain f32[2,3,5,8] f32[1,3,7,8] f32[2,1,7,6]
func.func @plain(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

// E2E: @causal f32[3,70,16] f32[1,300,16] f32[1,300,16]
// E2E: @causal f32[2,9,16] f32[2,3,16] f32[2,3,16]
// E2E-GRAD: @causal f32[2,9,16] f32[2,3,16] f32[2,3,16]
// E2E-GRAD: @causal f32[1,6,16] f32[1,6,16] f32[1,6,16]
func.func @causal(%q: tensor<?x?x16xf32>, %k: tensor<?x?x16xf32>, %v: tensor<?x?x16xf32>) -> tensor<?x?x16xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}

// E2E: @flags f32[2,4,6,8] f32[2,4,10,8] f32[2,4,10,8] i1[2,1,1,10] f64=0.3
// E2E: @flags f32[1,2,3,8] f32[1,2,5,8] f32[1,2,5,8] i1[1,1,1,5] f64=1.5
// E2E-GRAD: @flags f32[2,4,6,8] f32[2,4,10,8] f32[2,4,10,8] i1[2,1,1,10] f64=0.3
// E2E: @flags f32[1,2,3,8] f32[1,2,5,8] f32[1,2,5,8] i1[1,1,1,4] f64=1.5 expect-error
func.func @flags(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %m: tensor<?x1x1x?xi1>, %s: f64) -> tensor<?x?x?x?xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m scale %s {is_causal = false} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x1x1x?xi1>, f64) -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

// E2E: @bias f32[5,8] f32[7,8] f32[7,3] f32[5,7]
// E2E: @bias f32[1,8] f32[1,8] f32[1,3] f32[1,1]
// E2E-GRAD: @bias f32[5,8] f32[7,8] f32[7,3] f32[5,7]
// E2E-GRAD: @bias f32[5,8] f32[7,8] f32[7,3] f32[1,7]
func.func @bias(%q: tensor<?x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x3xf32>, %m: tensor<?x?xf32>) -> tensor<?x3xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m {is_causal = false} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x?xf32>) -> tensor<?x3xf32>
  return %o : tensor<?x3xf32>
}

// E2E-GRAD: @self f32[2,5,8]
func.func @self(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %o = kiln.scaled_dot_product_attention %x, %x, %x {is_causal = true} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %o : tensor<?x?x?xf32>
}

// Rows of the mask all false or all true (a size-1 dim at run time):
// queries that attend to no key give zeros.
// E2E: @rows f32[6,8] f32[9,8] f32[9,4] i1[6,1]
// E2E: @rows f32[6,8] f32[9,8] f32[9,4] i1[1,9]
// E2E: @rows f32[6,8] f32[9,8] f32[9,4] i1[6,0] expect-error
func.func @rows(%q: tensor<?x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x4xf32>, %m: tensor<?x?xi1>) -> tensor<?x4xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m {is_causal = false} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x?xi1>) -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}

// A batch dim fixed at 2 against keys of none: both raise, and the
// compiled graph reads nothing past the empty keys.
// E2E: @fixed f32[2,5,8] f32[0,6,8] f32[0,6,8] expect-error
// E2E: @fixed f32[2,5,8] f32[1,6,8] f32[2,6,8]
func.func @fixed(%q: tensor<2x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x8xf32>) -> tensor<2x?x8xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<2x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<2x?x8xf32>
  return %o : tensor<2x?x8xf32>
}

// A 0-d float mask, added to every score.
// E2E: @scalar f32[2,5,8] f32[2,6,8] f32[2,6,3] f32[]
func.func @scalar(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x3xf32>, %m: tensor<f32>) -> tensor<?x?x3xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m {is_causal = false} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x3xf32>, tensor<f32>) -> tensor<?x?x3xf32>
  return %o : tensor<?x?x3xf32>
}

// E2E: @wide f64[2,6,5] f64[2,6,5] f64[2,6,5]
func.func @wide(%q: tensor<?x?x?xf64>, %k: tensor<?x?x?xf64>, %v: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x?x?xf64>, tensor<?x?x?xf64>, tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  return %o : tensor<?x?x?xf64>
}

// E2E: @half f16[2,5,8] f16[2,7,8] f16[2,7,8]
func.func @half(%q: tensor<?x?x8xf16>, %k: tensor<?x?x8xf16>, %v: tensor<?x?x8xf16>) -> tensor<?x?x8xf16> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<?x?x8xf16>, tensor<?x?x8xf16>, tensor<?x?x8xf16>) -> tensor<?x?x8xf16>
  return %o : tensor<?x?x8xf16>
}

// E2E: @brain bf16[3,4,8] bf16[3,6,8] bf16[3,6,8]
func.func @brain(%q: tensor<?x?x8xbf16>, %k: tensor<?x?x8xbf16>, %v: tensor<?x?x8xbf16>) -> tensor<?x?x8xbf16> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x?x8xbf16>, tensor<?x?x8xbf16>, tensor<?x?x8xbf16>) -> tensor<?x?x8xbf16>
  return %o : tensor<?x?x8xbf16>
}
