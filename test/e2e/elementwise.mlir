// Tests that compiled elementwise ops, broadcasting over dynamic dims that
// are 1 at run time included, match the eager runtime on shapes the source
// does not name, and that a broadcast mismatch fails in both.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 34 passed, 0 failed

// E2E: @chain f32[1]
// E2E: @chain f32[777]
// E2E: @chain f32[100003]
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c15 = kiln.constant dense<1.5> : tensor<f32>
  %c05 = kiln.constant dense<0.5> : tensor<f32>
  %c1 = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.mul %x, %c15 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = kiln.add %0, %c05 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %2 = kiln.gelu %1 : tensor<?xf32>
  %3 = kiln.sigmoid %x : tensor<?xf32>
  %4 = kiln.mul %2, %3 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %5 = kiln.abs %x : tensor<?xf32>
  %6 = kiln.add %5, %c1 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %7 = kiln.div %x, %6 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %8 = kiln.sub %4, %7 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %8 : tensor<?xf32>
}

// Two dynamic operands: either may be 1 in any dim at run time.
// E2E: @broadcast f32[4,5] f32[4,5]
// E2E: @broadcast f32[4,5] f32[1,5]
// E2E: @broadcast f32[4,1] f32[1,5]
// E2E: @broadcast f32[1,1] f32[3,2]
// E2E: @broadcast f32[4,5] f32[3,5] expect-error
// E2E: @broadcast f32[0,5] f32[1,5]
// E2E: @broadcast f32[3,5] f32[4,5] expect-error
// E2E: @broadcast f32[2,5] f32[0,5] expect-error
func.func @broadcast(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.add %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.maximum %0, %a : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// Rank 3: one operand's copy covers every dim of it that is 1 (one scf.if
// per operand), whichever dims those are.
// E2E: @broadcast3 f32[2,1,3] f32[1,4,1]
// E2E: @broadcast3 f32[1,1,1] f32[2,3,4]
// E2E: @broadcast3 f32[2,3,4] f32[2,1,4]
// E2E: @broadcast3 f32[5,1,7] f32[5,6,1]
// E2E: @broadcast3 f32[2,0,4] f32[1,1,4]
// E2E: @broadcast3 f32[2,3,4] f32[2,2,4] expect-error
func.func @broadcast3(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = kiln.sub %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.mul %0, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %1 : tensor<?x?x?xf32>
}

// A chain re-broadcasting against operands whose dims an earlier op already
// broadcast (x = x * 0.5f + b, again and again): those results need no
// copy or check, the other operands still broadcast either way.
// E2E: @broadcast_chain f32[3,1] f32[1,4] f32[3,4]
// E2E: @broadcast_chain f32[1,1] f32[1,1] f32[2,3]
// E2E: @broadcast_chain f32[3,4] f32[3,1] f32[1,4]
// E2E: @broadcast_chain f32[1,5] f32[2,1] f32[1,1]
// E2E: @broadcast_chain f32[0,4] f32[1,4] f32[1,1]
// E2E: @broadcast_chain f32[3,4] f32[3,4] f32[2,4] expect-error
func.func @broadcast_chain(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.sub %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.mul %0, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.add %1, %c : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.mul %2, %a : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = kiln.sub %3, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %5 = kiln.div %1, %a : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %4, %5 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Run-time broadcasts of other element types (1, 2 and 8 bytes): each
// copy is one strided copy of its own element size (kiln-broadcast-copies).
// E2E: @broadcast_types i1[4,1] f32[1,5] i64[4,1]{-9,9} i64[1,5]{-9,9} bf16[1,5] bf16[4,1]
// E2E: @broadcast_types i1[1,5] f32[4,1] i64[1,1]{-9,9} i64[4,5]{-9,9} bf16[4,5] bf16[1,1]
// E2E: @broadcast_types i1[3,5] f32[3,5] i64[3,5]{-9,9} i64[3,5]{-9,9} bf16[3,5] bf16[3,5]
// E2E: @broadcast_types i1[4,1] f32[3,5] i64[4,1]{-9,9} i64[1,5]{-9,9} bf16[1,5] bf16[4,1] expect-error
func.func @broadcast_types(%m: tensor<?x?xi1>, %x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %j: tensor<?x?xi64>, %h: tensor<?x?xbf16>, %k: tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xbf16>) {
  %z = kiln.constant dense<-1.0> : tensor<f32>
  %w = kiln.where %m, %x, %z : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %s = kiln.sub %i, %j : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %p = kiln.mul %h, %k : (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %w, %s, %p : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xbf16>
}

// E2E: @unary f32[3,17]
func.func @unary(%x: tensor<?x17xf32>) -> (tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>) {
  %a = kiln.abs %x : tensor<?x17xf32>
  %0 = kiln.neg %x : tensor<?x17xf32>
  %1 = kiln.relu %x : tensor<?x17xf32>
  %2 = kiln.exp %x : tensor<?x17xf32>
  %3 = kiln.log %a : tensor<?x17xf32>
  %4 = kiln.sqrt %a : tensor<?x17xf32>
  %5 = kiln.rsqrt %a : tensor<?x17xf32>
  %6 = kiln.tanh %x : tensor<?x17xf32>
  %7 = kiln.silu %x : tensor<?x17xf32>
  %8 = kiln.gelu %x approximate tanh : tensor<?x17xf32>
  %9 = kiln.add %3, %4 : (tensor<?x17xf32>, tensor<?x17xf32>) -> tensor<?x17xf32>
  return %0, %1, %2, %9, %5, %6, %7, %8 : tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>
}

// The polynomial forms far from zero (exp overflowing and underflowing, erf
// saturating at +-4, sigmoid's both sides) and at inf, -inf, NaN and -0.
// E2E: @wide_math f32[999]*40!
// E2E: @wide_math f32[1200]*6!
func.func @wide_math(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = kiln.exp %x : tensor<?xf32>
  %1 = kiln.sigmoid %x : tensor<?xf32>
  %2 = kiln.silu %x : tensor<?xf32>
  %3 = kiln.gelu %x : tensor<?xf32>
  %4 = kiln.gelu %x approximate tanh : tensor<?xf32>
  %5 = kiln.tanh %x : tensor<?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// E2E: @compare_where f32[6,3] f32[3]
func.func @compare_where(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
  %m = kiln.cmp gt, %x, %y : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
  %z = kiln.constant dense<0.0> : tensor<f32>
  %w = kiln.where %m, %x, %z : (tensor<?x3xi1>, tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
  %n = kiln.cmp ne, %x, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xi1>
  return %w, %n : tensor<?x3xf32>, tensor<?x3xi1>
}

// E2E: @casts f32[9] i64[9]{-5,5}
func.func @casts(%x: tensor<?xf32>, %i: tensor<?xi64>) -> (tensor<?xi32>, tensor<?xf32>, tensor<?xi1>, tensor<?xf64>, tensor<?xi64>) {
  %c3 = kiln.constant dense<300.0> : tensor<f32>
  %big = kiln.mul %x, %c3 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %0 = kiln.cast %big : tensor<?xf32> to tensor<?xi32>
  %1 = kiln.cast %i : tensor<?xi64> to tensor<?xf32>
  %2 = kiln.cast %i : tensor<?xi64> to tensor<?xi1>
  %3 = kiln.cast %x : tensor<?xf32> to tensor<?xf64>
  %4 = kiln.mul %i, %i : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %0, %1, %2, %3, %4 : tensor<?xi32>, tensor<?xf32>, tensor<?xi1>, tensor<?xf64>, tensor<?xi64>
}

// E2E: @pow_minmax f32[2,8] f32[2,1]
func.func @pow_minmax(%x: tensor<2x8xf32>, %y: tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %a = kiln.abs %x : tensor<2x8xf32>
  %0 = kiln.pow %a, %y : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %1 = kiln.minimum %x, %y : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// E2E: @f16_math f16[33]
func.func @f16_math(%x: tensor<?xf16>) -> tensor<?xf16> {
  %0 = kiln.exp %x : tensor<?xf16>
  %1 = kiln.mul %0, %x : (tensor<?xf16>, tensor<?xf16>) -> tensor<?xf16>
  return %1 : tensor<?xf16>
}
