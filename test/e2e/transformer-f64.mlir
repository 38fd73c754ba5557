// Tests the transformer block of transformer.mlir in float64, where compiled
// and eager code must agree to 1e-9: what differs in float32 is rounding,
// not the algorithm.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 5 passed, 0 failed

// E2E: @block f64[2,7,32] f64[32] f64[32] f64[96,32] f64[96] f64[32,32] f64[32] f64[32] f64[32] f64[128,32] f64[128] f64[32,128] f64[32]
// E2E: @block f64[1,1,32] f64[32] f64[32] f64[96,32] f64[96] f64[32,32] f64[32] f64[32] f64[32] f64[128,32] f64[128] f64[32,128] f64[32]
// The block's backward (kiln-differentiate): the gradient of the input and
// of every weight against eager autograd's, to 1e-9 as well.
// E2E-GRAD: @block f64[2,7,32] f64[32] f64[32] f64[96,32] f64[96] f64[32,32] f64[32] f64[32] f64[32] f64[128,32] f64[128] f64[32,128] f64[32]
// E2E-GRAD: @block f64[1,5,32] f64[32] f64[32] f64[96,32] f64[96] f64[32,32] f64[32] f64[32] f64[32] f64[128,32] f64[128] f64[32,128] f64[32]
// E2E: @block f64[3,19,32] f64[32] f64[32] f64[96,32] f64[96] f64[32,32] f64[32] f64[32] f64[32] f64[128,32] f64[128] f64[32,128] f64[32]
func.func @block(%x: tensor<?x?x32xf64>,
                 %ln1w: tensor<32xf64>, %ln1b: tensor<32xf64>,
                 %wqkv: tensor<96x32xf64>, %bqkv: tensor<96xf64>,
                 %wo: tensor<32x32xf64>, %bo: tensor<32xf64>,
                 %ln2w: tensor<32xf64>, %ln2b: tensor<32xf64>,
                 %w1: tensor<128x32xf64>, %b1: tensor<128xf64>,
                 %w2: tensor<32x128xf64>, %b2: tensor<32xf64>) -> tensor<?x?x32xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %b = kiln.dim %x, 0 : tensor<?x?x32xf64>
  %t = kiln.dim %x, 1 : tensor<?x?x32xf64>
  // Attention.
  %h = kiln.layer_norm %x, %ln1w, %ln1b {eps = 1.0e-05 : f64} : (tensor<?x?x32xf64>, tensor<32xf64>, tensor<32xf64>) -> tensor<?x?x32xf64>
  %qkv = kiln.linear %h, %wqkv, %bqkv : (tensor<?x?x32xf64>, tensor<96x32xf64>, tensor<96xf64>) -> tensor<?x?x96xf64>
  %q0 = kiln.slice %qkv dim 2 [%c0 : %c32] : tensor<?x?x96xf64> -> tensor<?x?x32xf64>
  %k0 = kiln.slice %qkv dim 2 [%c32 : %c64] : tensor<?x?x96xf64> -> tensor<?x?x32xf64>
  %v0 = kiln.slice %qkv dim 2 [%c64 : %c96] : tensor<?x?x96xf64> -> tensor<?x?x32xf64>
  // [B, T, 32] -> [B, 4 heads, T, 8]
  %q1 = kiln.reshape %q0 [%b, %t] : tensor<?x?x32xf64> -> tensor<?x?x4x8xf64>
  %q = kiln.permute %q1 [0, 2, 1, 3] : tensor<?x?x4x8xf64> -> tensor<?x4x?x8xf64>
  %k1 = kiln.reshape %k0 [%b, %t] : tensor<?x?x32xf64> -> tensor<?x?x4x8xf64>
  %k = kiln.permute %k1 [0, 2, 1, 3] : tensor<?x?x4x8xf64> -> tensor<?x4x?x8xf64>
  %v1 = kiln.reshape %v0 [%b, %t] : tensor<?x?x32xf64> -> tensor<?x?x4x8xf64>
  %v = kiln.permute %v1 [0, 2, 1, 3] : tensor<?x?x4x8xf64> -> tensor<?x4x?x8xf64>
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x4x?x8xf64> -> tensor<?x4x8x?xf64>
  %s0 = kiln.matmul %q, %kt : (tensor<?x4x?x8xf64>, tensor<?x4x8x?xf64>) -> tensor<?x4x?x?xf64>
  %scale = kiln.constant dense<0.35355339059327373> : tensor<f64>
  %s1 = kiln.mul %s0, %scale : (tensor<?x4x?x?xf64>, tensor<f64>) -> tensor<?x4x?x?xf64>
  // Causal mask: key position j > query position i is masked.
  %pos = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %pi = kiln.unsqueeze %pos dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %mask = kiln.cmp gt, %pos, %pi : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi1>
  %ninf = kiln.constant dense<0xFFF0000000000000> : tensor<f64>
  %s2 = kiln.where %mask, %ninf, %s1 : (tensor<?x?xi1>, tensor<f64>, tensor<?x4x?x?xf64>) -> tensor<?x4x?x?xf64>
  %p = kiln.softmax %s2 dim 3 : tensor<?x4x?x?xf64>
  %o0 = kiln.matmul %p, %v : (tensor<?x4x?x?xf64>, tensor<?x4x?x8xf64>) -> tensor<?x4x?x8xf64>
  %o1 = kiln.permute %o0 [0, 2, 1, 3] : tensor<?x4x?x8xf64> -> tensor<?x?x4x8xf64>
  %o = kiln.reshape %o1 [%b, %t] : tensor<?x?x4x8xf64> -> tensor<?x?x32xf64>
  %attn = kiln.linear %o, %wo, %bo : (tensor<?x?x32xf64>, tensor<32x32xf64>, tensor<32xf64>) -> tensor<?x?x32xf64>
  %r1 = kiln.add %x, %attn : (tensor<?x?x32xf64>, tensor<?x?x32xf64>) -> tensor<?x?x32xf64>
  // MLP.
  %h2 = kiln.layer_norm %r1, %ln2w, %ln2b {eps = 1.0e-05 : f64} : (tensor<?x?x32xf64>, tensor<32xf64>, tensor<32xf64>) -> tensor<?x?x32xf64>
  %m1 = kiln.linear %h2, %w1, %b1 : (tensor<?x?x32xf64>, tensor<128x32xf64>, tensor<128xf64>) -> tensor<?x?x128xf64>
  %m2 = kiln.gelu %m1 : tensor<?x?x128xf64>
  %m3 = kiln.linear %m2, %w2, %b2 : (tensor<?x?x128xf64>, tensor<32x128xf64>, tensor<32xf64>) -> tensor<?x?x32xf64>
  %y = kiln.add %r1, %m3 : (tensor<?x?x32xf64>, tensor<?x?x32xf64>) -> tensor<?x?x32xf64>
  return %y : tensor<?x?x32xf64>
}
