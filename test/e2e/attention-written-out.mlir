// Tests attention written out (matmul, scale, the causal triangle from
// arange, softmax, matmul), which the CPU pipeline runs as the fused kernel
// (kiln-recognize-attention), against the eager runtime running every op
// of it: GPT-2's spelling with its scale as a multiplier, one dividing by
// a scalar with no mask, f64, a triangle sized by another tensor that
// does not fit the scores (where's error, in both), and rows of the
// triangle past the keys (queries later than every key: all attended);
// Llama's spelling as traced (masked_fill of `tril(ones(T, T)) == 0` with
// its shape check, the scale a double made float, casts of each result to
// its own type), and its mask not fitting keys of another length
// (masked_fill's error, in both); scores that are not scaled at all
// (the kernel's scale 1, not its default 1/sqrt(E)).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 16 passed, 0 failed

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

// E2E: @llama f32[2,4,24,16] f32[2,4,24,16] f32[2,4,24,16] f64=4.0
// E2E: @llama f32[1,2,1,16] f32[1,2,1,16] f32[1,2,1,16] f64=3.3
// E2E: @llama f32[1,2,6,16] f32[1,2,9,16] f32[1,2,9,16] f64=4.0 expect-error
func.func @llama(%q: tensor<?x?x?x16xf32>, %k: tensor<?x?x?x16xf32>, %v: tensor<?x?x?x16xf32>, %sq: f64) -> tensor<?x?x?x16xf32> {
  %T = kiln.dim %q, 2 : tensor<?x?x?x16xf32>
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x?x?x16xf32> -> tensor<?x?x16x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?x?x16xf32>, tensor<?x?x16x?xf32>) -> tensor<?x?x?x?xf32>
  %sqt = kiln.from_scalar %sq : f64 -> tensor<f64>
  %sqf = kiln.cast %sqt : tensor<f64> to tensor<f32>
  %scores = kiln.div %att, %sqf : (tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %ones = kiln.full [%T, %T] {value = 1.000000e+00 : f32} : tensor<?x?xf32>
  %n0 = kiln.dim %ones, 0 : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = kiln.arange %c0, %n0, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %r dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %n1 = kiln.dim %ones, 1 : tensor<?x?xf32>
  %cols = kiln.arange %c0, %n1, %c1 : tensor<?xi64>
  %off = kiln.sub %cols, %rows : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %keep = kiln.cmp le, %off, %z : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %zf = kiln.cast %z : tensor<i64> to tensor<f32>
  %tril = kiln.where %keep, %ones, %zf : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %trilc = kiln.cast %tril : tensor<?x?xf32> to tensor<?x?xf32>
  %gone = kiln.cmp eq, %trilc, %zf : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %filled = kiln.where %gone, %ninft, %scores : (tensor<?x?xi1>, tensor<f32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %masked = kiln.cast %filled : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
  // masked_fill's check: the mask broadcast did not grow the scores.
  %m0 = kiln.dim %masked, 0 : tensor<?x?x?x?xf32>
  %m1 = kiln.dim %masked, 1 : tensor<?x?x?x?xf32>
  %m2 = kiln.dim %masked, 2 : tensor<?x?x?x?xf32>
  %m3 = kiln.dim %masked, 3 : tensor<?x?x?x?xf32>
  %s0 = kiln.dim %scores, 0 : tensor<?x?x?x?xf32>
  %s1 = kiln.dim %scores, 1 : tensor<?x?x?x?xf32>
  %s2 = kiln.dim %scores, 2 : tensor<?x?x?x?xf32>
  %s3 = kiln.dim %scores, 3 : tensor<?x?x?x?xf32>
  %ma = arith.muli %m0, %m1 : index
  %mb = arith.muli %ma, %m2 : index
  %mn = arith.muli %mb, %m3 : index
  %sa = arith.muli %s0, %s1 : index
  %sb = arith.muli %sa, %s2 : index
  %sn = arith.muli %sb, %s3 : index
  %fits = arith.cmpi eq, %mn, %sn : index
  cf.assert %fits, "masked_fill: the mask does not broadcast to the tensor's shape"
  %p = kiln.softmax %masked dim 3 : tensor<?x?x?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?x?x?xf32>, tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  return %y : tensor<?x?x?x16xf32>
}

// E2E: @unscaled f32[2,7,16] f32[2,9,16] f32[2,9,5]
// E2E: @unscaled f32[1,1,16] f32[1,1,16] f32[1,1,5]
func.func @unscaled(%q: tensor<?x?x16xf32>, %k: tensor<?x?x16xf32>, %v: tensor<?x?x5xf32>) -> tensor<?x?x5xf32> {
  %kt = kiln.transpose %k dims 1, 2 : tensor<?x?x16xf32> -> tensor<?x16x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?x16xf32>, tensor<?x16x?xf32>) -> tensor<?x?x?xf32>
  %p = kiln.softmax %att dim 2 : tensor<?x?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?x?xf32>, tensor<?x?x5xf32>) -> tensor<?x?x5xf32>
  return %y : tensor<?x?x5xf32>
}

// bfloat16 and float16 (a bfloat16 model, or autocast's products): the
// fused kernel reads the 16-bit q, k and v and keeps the scores and the
// softmax in float32 where the ops written out round each to 16 bits, so
// the two agree to 16-bit rounding; the scale a float32 scalar the scores
// round to bfloat16 after (0.17 is no power of two).
// E2E: @gpt2_bf16 bf16[2,3,40,16] bf16[2,3,40,16] bf16[2,3,40,16] f32=0.17
// E2E: @gpt2_bf16 bf16[1,2,70,8] bf16[1,2,70,8] bf16[1,2,70,8] f32=0.25
func.func @gpt2_bf16(%q: tensor<?x?x?x?xbf16>, %k: tensor<?x?x?x?xbf16>, %v: tensor<?x?x?x?xbf16>, %s: f32) -> tensor<?x?x?x?xbf16> {
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x?x?x?xbf16> -> tensor<?x?x?x?xbf16>
  %att = kiln.matmul %q, %kt : (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) -> tensor<?x?x?x?xbf16>
  %st = kiln.from_scalar %s : f32 -> tensor<f32>
  %scaled = kiln.mul %att, %st : (tensor<?x?x?x?xbf16>, tensor<f32>) -> tensor<?x?x?x?xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kiln.dim %q, 2 : tensor<?x?x?x?xbf16>
  %ar = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %ar dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.unsqueeze %ar dim 0 : tensor<?xi64> -> tensor<1x?xi64>
  %causal = kiln.cmp ge, %rows, %cols : (tensor<?x1xi64>, tensor<1x?xi64>) -> tensor<?x?xi1>
  %ninf = kiln.constant dense<0xFF80> : tensor<bf16>
  %masked = kiln.where %causal, %scaled, %ninf : (tensor<?x?xi1>, tensor<?x?x?x?xbf16>, tensor<bf16>) -> tensor<?x?x?x?xbf16>
  %p = kiln.softmax %masked dim 3 : tensor<?x?x?x?xbf16>
  %y = kiln.matmul %p, %v : (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) -> tensor<?x?x?x?xbf16>
  return %y : tensor<?x?x?x?xbf16>
}

// E2E: @divided_f16 f16[4,9,32] f16[4,200,32] f16[4,200,5]
func.func @divided_f16(%q: tensor<?x?x32xf16>, %k: tensor<?x?x32xf16>, %v: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %kt = kiln.transpose %k dims 1, 2 : tensor<?x?x32xf16> -> tensor<?x32x?xf16>
  %att = kiln.matmul %q, %kt : (tensor<?x?x32xf16>, tensor<?x32x?xf16>) -> tensor<?x?x?xf16>
  %d = kiln.constant dense<5.656> : tensor<f16>
  %scaled = kiln.div %att, %d : (tensor<?x?x?xf16>, tensor<f16>) -> tensor<?x?x?xf16>
  %p = kiln.softmax %scaled dim 2 : tensor<?x?x?xf16>
  %y = kiln.matmul %p, %v : (tensor<?x?x?xf16>, tensor<?x?x?xf16>) -> tensor<?x?x?xf16>
  return %y : tensor<?x?x?xf16>
}
