// Tests a GPT-2-style transformer block (pre-norm attention with a causal
// mask built from aranges, then an MLP), compiled as one graph, against the
// eager runtime on batch and sequence sizes the source does not name.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// Twenty ops deep, on unscaled random weights: a wider float32 tolerance.
// E2E-TOLERANCE: 1e-3 1e-4
// CHECK-NOT: FAIL
// CHECK: 3 passed, 0 failed

// E2E: @block f32[2,7,32] f32[32] f32[32] f32[96,32] f32[96] f32[32,32] f32[32] f32[32] f32[32] f32[128,32] f32[128] f32[32,128] f32[32]
// E2E: @block f32[1,1,32] f32[32] f32[32] f32[96,32] f32[96] f32[32,32] f32[32] f32[32] f32[32] f32[128,32] f32[128] f32[32,128] f32[32]
// E2E: @block f32[3,19,32] f32[32] f32[32] f32[96,32] f32[96] f32[32,32] f32[32] f32[32] f32[32] f32[128,32] f32[128] f32[32,128] f32[32]
func.func @block(%x: tensor<?x?x32xf32>,
                 %ln1w: tensor<32xf32>, %ln1b: tensor<32xf32>,
                 %wqkv: tensor<96x32xf32>, %bqkv: tensor<96xf32>,
                 %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
                 %ln2w: tensor<32xf32>, %ln2b: tensor<32xf32>,
                 %w1: tensor<128x32xf32>, %b1: tensor<128xf32>,
                 %w2: tensor<32x128xf32>, %b2: tensor<32xf32>) -> tensor<?x?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %b = kiln.dim %x, 0 : tensor<?x?x32xf32>
  %t = kiln.dim %x, 1 : tensor<?x?x32xf32>
  // Attention.
  %h = kiln.layer_norm %x, %ln1w, %ln1b {eps = 1.0e-05 : f64} : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %qkv = kiln.linear %h, %wqkv, %bqkv : (tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<?x?x96xf32>
  %q0 = kiln.slice %qkv dim 2 [%c0 : %c32] : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  %k0 = kiln.slice %qkv dim 2 [%c32 : %c64] : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  %v0 = kiln.slice %qkv dim 2 [%c64 : %c96] : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  // [B, T, 32] -> [B, 4 heads, T, 8]
  %q1 = kiln.reshape %q0 [%b, %t] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %q = kiln.permute %q1 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %k1 = kiln.reshape %k0 [%b, %t] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %k = kiln.permute %k1 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %v1 = kiln.reshape %v0 [%b, %t] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %v = kiln.permute %v1 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x4x?x8xf32> -> tensor<?x4x8x?xf32>
  %s0 = kiln.matmul %q, %kt : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %scale = kiln.constant dense<0.353553385> : tensor<f32>
  %s1 = kiln.mul %s0, %scale : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  // Causal mask: key position j > query position i is masked.
  %pos = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %pi = kiln.unsqueeze %pos dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %mask = kiln.cmp gt, %pos, %pi : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi1>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %s2 = kiln.where %mask, %ninf, %s1 : (tensor<?x?xi1>, tensor<f32>, tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %p = kiln.softmax %s2 dim 3 : tensor<?x4x?x?xf32>
  %o0 = kiln.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %o1 = kiln.permute %o0 [0, 2, 1, 3] : tensor<?x4x?x8xf32> -> tensor<?x?x4x8xf32>
  %o = kiln.reshape %o1 [%b, %t] : tensor<?x?x4x8xf32> -> tensor<?x?x32xf32>
  %attn = kiln.linear %o, %wo, %bo : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %r1 = kiln.add %x, %attn : (tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  // MLP.
  %h2 = kiln.layer_norm %r1, %ln2w, %ln2b {eps = 1.0e-05 : f64} : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %m1 = kiln.linear %h2, %w1, %b1 : (tensor<?x?x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  %m2 = kiln.gelu %m1 : tensor<?x?x128xf32>
  %m3 = kiln.linear %m2, %w2, %b2 : (tensor<?x?x128xf32>, tensor<32x128xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %y = kiln.add %r1, %m3 : (tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}
