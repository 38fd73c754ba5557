// Tests attention written out (matmul, scale, the causal triangle from
// arange, softmax, matmul), which the CPU pipeline runs as the fused kernel
// (kiln-recognize-attention), against the eager runtime running every op
// of it: GPT-2's spelling with its scale as a multiplier, one dividing by
// a scalar with no mask, f64, a triangle sized by another tensor that
// does not fit the scores (where's error, in both), and rows of the
// triangle past the keys (queries later than every key: all attended).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 8 passed, 0 failed

// E2E: @gpt2 f32[2,3,40,16] f32[2,3,40,16] f32[2,3,40,16]
// E2E: @gpt2 f32[1,2,130,8] f32[1,2,130,8] f32[1,2,130,8]
// E2E: @gpt2 f32[1,1,1,8] f32[1,1,1,8] f32[1,1,1,8]
func.func @gpt2(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %st = kiln.constant dense<0.25> : tensor<f32>
  %scaled = kiln.mul %att, %st : (tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kiln.dim %q, 2 : tensor<?x?x?x?xf32>
  %ar = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %ar dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %ar2 = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %cols = kiln.unsqueeze %ar2 dim 0 : tensor<?xi64> -> tensor<1x?xi64>
  %causal = kiln.cmp ge, %rows, %cols : (tensor<?x1xi64>, tensor<1x?xi64>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %masked = kiln.where %causal, %scaled, %ninft : (tensor<?x?xi1>, tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %p = kiln.softmax %masked dim 3 : tensor<?x?x?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}

// No mask, the scores divided by a scalar; rank 3, keys and queries apart.
// E2E: @divided f32[4,9,32] f32[4,200,32] f32[4,200,5]
// E2E: @divided f32[1,1,32] f32[1,3,32] f32[1,3,7]
func.func @divided(%q: tensor<?x?x32xf32>, %k: tensor<?x?x32xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %kt = kiln.transpose %k dims 1, 2 : tensor<?x?x32xf32> -> tensor<?x32x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?x32xf32>, tensor<?x32x?xf32>) -> tensor<?x?x?xf32>
  %d = kiln.constant dense<5.65685415> : tensor<f32>
  %scaled = kiln.div %att, %d : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?x?xf32>
  %p = kiln.softmax %scaled dim 2 : tensor<?x?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// f64, the triangle sized by another tensor: where rejects it when it does
// not fit the scores, and so must the compiled graph.
// E2E: @sized f64[2,12,8] f64[2,12,8] f64[2,12,4] i64[12] f64=0.3
// E2E: @sized f64[1,5,8] f64[1,5,8] f64[1,5,4] i64[5] f64=1.5
// E2E: @sized f64[2,12,8] f64[2,12,8] f64[2,12,4] i64[11] f64=0.3 expect-error
func.func @sized(%q: tensor<?x?x8xf64>, %k: tensor<?x?x8xf64>, %v: tensor<?x?x4xf64>, %pos: tensor<?xi64>, %s: f64) -> tensor<?x?x4xf64> {
  %kt = kiln.transpose %k dims 2, 1 : tensor<?x?x8xf64> -> tensor<?x8x?xf64>
  %raw = kiln.matmul %q, %kt : (tensor<?x?x8xf64>, tensor<?x8x?xf64>) -> tensor<?x?x?xf64>
  %st = kiln.from_scalar %s : f64 -> tensor<f64>
  %att = kiln.mul %st, %raw : (tensor<f64>, tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kiln.dim %pos, 0 : tensor<?xi64>
  %ar = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %cols = kiln.unsqueeze %ar dim 0 : tensor<?xi64> -> tensor<1x?xi64>
  %rows = kiln.unsqueeze %ar dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %causal = kiln.cmp le, %cols, %rows : (tensor<1x?xi64>, tensor<?x1xi64>) -> tensor<?x?xi1>
  %ninf = kiln.constant dense<0xFFF0000000000000> : tensor<f64>
  %masked = kiln.where %causal, %att, %ninf : (tensor<?x?xi1>, tensor<?x?x?xf64>, tensor<f64>) -> tensor<?x?x?xf64>
  %p = kiln.softmax %masked dim 2 : tensor<?x?x?xf64>
  %y = kiln.matmul %p, %v : (tensor<?x?x?xf64>, tensor<?x?x4xf64>) -> tensor<?x?x4xf64>
  return %y : tensor<?x?x4xf64>
}
