// Tests the backward functions kiln-differentiate builds (each op's
// GradientOpInterface): for random gradients of the outputs, the gradient of
// every float input, compiled and interpreted, against eager autograd's
// (the forward run by the runtime's own ops on inputs that require grad).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// E2E-TOLERANCE: 1e-4 1e-5
// CHECK-NOT: FAIL
// CHECK: 57 passed, 0 failed

// Broadcasting arithmetic: a [1, N] row, a column, a 0-d scalar and a
// vector, each summed back over the dims it was broadcast along, whether
// its sizes are known or only seen at run time.
// E2E-GRAD: @arith f32[4,5] f32[1,5] f32[4,1] f32[] f32[5]
// E2E-GRAD: @arith f32[3,1] f32[3,6] f32[1,1] f32[] f32[1]
func.func @arith(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x1xf32>, %s: tensor<f32>, %v: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.add %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.mul %0, %c : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %2 = kiln.sub %1, %s : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %3 = kiln.div %2, %v : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %4 = kiln.mul %a, %a : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %3, %4 : tensor<?x?xf32>, tensor<?x?xf32>
}

// The unary functions, on inputs in their domains.
// E2E-GRAD: @unary f32[3,7] f32[3,7]{0.5,3}
func.func @unary(%x: tensor<?x?xf32>, %p: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.exp %x : tensor<?x?xf32>
  %1 = kiln.tanh %x : tensor<?x?xf32>
  %2 = kiln.sigmoid %x : tensor<?x?xf32>
  %3 = kiln.silu %x : tensor<?x?xf32>
  %4 = kiln.relu %x : tensor<?x?xf32>
  %5 = kiln.gelu %x : tensor<?x?xf32>
  %6 = kiln.gelu %x approximate tanh : tensor<?x?xf32>
  %7 = kiln.sin %x : tensor<?x?xf32>
  %8 = kiln.cos %x : tensor<?x?xf32>
  %9 = kiln.erf %x : tensor<?x?xf32>
  %10 = kiln.square %x : tensor<?x?xf32>
  %11 = kiln.neg %x : tensor<?x?xf32>
  %12 = kiln.floor %x : tensor<?x?xf32>
  %13 = kiln.log %p : tensor<?x?xf32>
  %14 = kiln.sqrt %p : tensor<?x?xf32>
  %15 = kiln.rsqrt %p : tensor<?x?xf32>
  %16 = kiln.reciprocal %p : tensor<?x?xf32>
  %17 = kiln.log1p %p : tensor<?x?xf32>
  %18 = kiln.log2 %p : tensor<?x?xf32>
  %19 = kiln.log10 %p : tensor<?x?xf32>
  %20 = kiln.exp2 %x : tensor<?x?xf32>
  %21 = kiln.expm1 %x : tensor<?x?xf32>
  %s0 = kiln.add %0, %1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s1 = kiln.add %2, %3 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s2 = kiln.add %4, %5 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s3 = kiln.add %6, %7 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s4 = kiln.add %8, %9 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s5 = kiln.add %10, %11 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s6 = kiln.add %12, %20 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s7 = kiln.add %s6, %21 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t0 = kiln.add %13, %14 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t1 = kiln.add %15, %16 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t2 = kiln.add %17, %18 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t3 = kiln.add %t2, %19 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u0 = kiln.add %s0, %s1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u1 = kiln.add %s2, %s3 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u2 = kiln.add %s4, %s5 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u3 = kiln.add %t0, %t1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %u0, %u1, %u2, %t3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// Reductions, softmax and the norms over the last dim; f64 exactly.
// E2E-GRAD: @reductions f32[4,6] f32[6] f32[6]
// E2E-GRAD: @reductions f32[1,3] f32[3] f32[3]
func.func @reductions(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.mean %x dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  %3 = kiln.log_softmax %x dim 0 : tensor<?x?xf32>
  %4 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %5 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?xf32>, tensor<1x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// The norms over a 2-d weight's dims.
// E2E-GRAD: @norms2d f32[3,4,5] f32[4,5] f32[4,5]
func.func @norms2d(%x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %0 = kiln.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// E2E-GRAD: @reductions_f64 f64[3,5] f64[5]
func.func @reductions_f64(%x: tensor<?x?xf64>, %w: tensor<?xf64>) -> (tensor<f64>, tensor<?x?xf64>) {
  %0 = kiln.mean %x dims [] : tensor<?x?xf64> -> tensor<f64>
  %1 = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?x?xf64>
  return %0, %1 : tensor<f64>, tensor<?x?xf64>
}

// Products: batched matmul broadcasting its batch dims, vectors on either
// side, linear over 3-d rows, with and without a bias.
// E2E-GRAD: @products f32[2,3,4,5] f32[3,5,6] f32[5] f32[6] f32[2,7,5] f32[8,5] f32[8]
func.func @products(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>, %u: tensor<?xf32>, %v: tensor<?xf32>, %x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %0 = kiln.matmul %a, %b : (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %1 = kiln.matmul %u, %b : (tensor<?xf32>, tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.matmul %b, %v : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %3 = kiln.linear %x, %w, %bias : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  %4 = kiln.linear %x, %w : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// Projections: one matrix applied to every matrix of a batch (its gradient
// one product over the batch's rows), from contiguous and transposed
// batches; the forward's batch folds into one product's rows where its
// strides allow.
// E2E-GRAD: @projection f32[2,3,5] f32[5,4] f32[3,2,4,5]
// E2E-GRAD: @projection f32[1,7,3] f32[3,9] f32[1,1,2,3]
func.func @projection(%x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %y: tensor<?x?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.matmul %x, %w : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %t = kiln.transpose %x dims 0, 1 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %1 = kiln.matmul %t, %w : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %2 = kiln.matmul %y, %w : (tensor<?x?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?x?xf32>
}

// Composites differentiate through their decomposition (as torch's
// CompositeImplicitAutograd ops do): var and std (a correction given at run
// time), logsumexp, tril and triu, repeat and tile, cast_like to f64,
// reshape_as, unflatten and expand_as (a [1, n] row to x's rows).
// E2E-GRAD: @composites f32[3,5] idx=0 f64[15]
// E2E-GRAD: @composites f32[4,6] idx=2 f64[24]
func.func @composites(%x: tensor<?x?xf32>, %c: index, %like: tensor<?xf64>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf64>, tensor<?xf32>, tensor<?x1x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %0 = kiln.var %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.std %x dims [1] keepdim correction_value %c : tensor<?x?xf32> -> tensor<?x1xf32>
  %2 = kiln.logsumexp %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %3 = kiln.tril %x diagonal 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %4 = kiln.triu %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %5 = kiln.repeat %x [2, 1, 3] : tensor<?x?xf32> -> tensor<2x?x?xf32>
  %6 = kiln.tile %x [2] : tensor<?x?xf32> -> tensor<?x?xf32>
  %7 = kiln.cast_like %x, %like : (tensor<?x?xf32>, tensor<?xf64>) -> tensor<?x?xf64>
  %8 = kiln.reshape_as %x, %like : (tensor<?x?xf32>, tensor<?xf64>) -> tensor<?xf32>
  %c1 = arith.constant 1 : index
  %n = kiln.dim %x, 1 : tensor<?x?xf32>
  %9 = kiln.unflatten %x dim 1 sizes [%c1, %n] : tensor<?x?xf32> -> tensor<?x1x?xf32>
  %r = kiln.cast %5 : tensor<2x?x?xf32> to tensor<?x?x?xf32>
  %row = kiln.slice %x dim 0 [%c0 : %c1] : tensor<?x?xf32> -> tensor<1x?xf32>
  %10 = kiln.expand_as %row, %x : (tensor<1x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %r, %6, %7, %8, %9, %10 : tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf64>, tensor<?xf32>, tensor<?x1x?xf32>, tensor<?x?xf32>
}

// The elementwise composites through their decompositions against the
// runtime's own gradient formulas: leaky_relu and elu (a run-time factor),
// masked_fill (none reaches the filled places), lerp from either end (a
// run-time weight), and sign (zero).
// E2E-GRAD: @elementwise_composites f32[3,7]*3 f32[3,7] f64=0.3
// E2E-GRAD: @elementwise_composites f32[2,5]*3 f32[2,5] f64=0.8
func.func @elementwise_composites(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %w: f64) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.leaky_relu %x, %w : tensor<?x?xf32>
  %1 = kiln.elu %x, %w : tensor<?x?xf32>
  %m = kiln.cmp gt, %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %v = kiln.from_scalar %w : f64 -> tensor<f64>
  %2 = kiln.masked_fill %y, %m, %v : (tensor<?x?xf32>, tensor<?x?xi1>, tensor<f64>) -> tensor<?x?xf32>
  %3 = kiln.lerp %x, %y, %w : (tensor<?x?xf32>, tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  %s = kiln.sign %x : tensor<?x?xf32>
  %4 = kiln.mul %s, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// clamp through its decomposition against the runtime's ClampBackward1:
// the gradient only where min < x < max, with both bounds, a run-time
// min alone and max alone.
// E2E-GRAD: @clamp f32[3,7]*3 f64=0.5
// E2E-GRAD: @clamp f32[2,5]*3 f64=-0.5
func.func @clamp(%x: tensor<?x?xf32>, %v: f64) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %lo = arith.constant -1.0 : f64
  %hi = arith.constant 2.0 : f64
  %wlo = kiln.from_scalar %lo : f64 -> tensor<f64>
  %whi = kiln.from_scalar %hi : f64 -> tensor<f64>
  %wv = kiln.from_scalar %v : f64 -> tensor<f64>
  %0 = kiln.clamp %x min %wlo max %whi : (tensor<?x?xf32>, tensor<f64>, tensor<f64>) -> tensor<?x?xf32>
  %1 = kiln.clamp %x min %wv : (tensor<?x?xf32>, tensor<f64>) -> tensor<?x?xf32>
  %2 = kiln.clamp %x max %wv : (tensor<?x?xf32>, tensor<f64>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// norm through its decomposition against the runtime's NormBackward1: p =
// 2, 1, 3, 0.5 and +-inf, over rows, kept over columns and over
// everything; a zero input, whose gradient is 0 for every p (the roots
// taken of 1 there).
// E2E-GRAD: @norm f32[3,7] f32[2,3]{0,0}
// E2E-GRAD: @norm f32[1,2] f32[1,1]{0,0}
func.func @norm(%x: tensor<?x?xf32>, %z: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>) {
  %0 = kiln.norm %x p 2.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.norm %x p 1.0 dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.norm %x p 3.0 dims [] : tensor<?x?xf32> -> tensor<f32>
  %3 = kiln.norm %x p 0.5 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %4 = kiln.norm %x p 0x7FF0000000000000 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %5 = kiln.norm %x p 0xFFF0000000000000 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %6 = kiln.norm %z p 2.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %7 = kiln.norm %z p 3.0 dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>
}

// bmm, baddbmm and addmm through their decompositions: the operands'
// gradients scaled by alpha, the input's by beta and summed over the dims
// it was broadcast along (none when beta is 0).
// E2E-GRAD: @scaled_products f32[2,3,4] f32[2,4,5] f32[5] f32[3,4] f32[4,5]
// E2E-GRAD: @scaled_products f32[1,1,2] f32[1,2,1] f32[1] f32[1,2] f32[2,1]
func.func @scaled_products(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?xf32>, %m: tensor<?x?xf32>, %n: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.bmm %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.baddbmm %c, %a, %b {alpha = 5.000000e-01 : f64, beta = 2 : i64} : (tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = kiln.addmm %c, %m, %n {alpha = 1 : i64, beta = 0.000000e+00 : f64} : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.addmm %c, %m, %n {alpha = -1.500000e+00 : f64, beta = 1 : i64} : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// narrow and select through their slices: the gradient placed back at
// the range (a negative start counted from the end), zeros elsewhere.
// E2E-GRAD: @slices f32[4,6] idx=1 idx=3
// E2E-GRAD: @slices f32[3,5] idx=-2 idx=1
func.func @slices(%x: tensor<?x?xf32>, %s: index, %l: index) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %0 = kiln.narrow %x dim 1 start %s length %l : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = kiln.select %x dim 1 index %s : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?xf32>
}

// stack: each input's gradient its slice of the result's.
// E2E-GRAD: @stack f32[3,4] f32[3,4]
// E2E-GRAD: @stack f32[1,2] f32[1,2]
func.func @stack(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x2x?xf32>, tensor<?x?x3xf32>) {
  %0 = kiln.stack %a, %b dim 1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x2x?xf32>
  %1 = kiln.stack %b, %a, %b dim 2 : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x3xf32>
  return %0, %1 : tensor<?x2x?xf32>, tensor<?x?x3xf32>
}

// batch_norm (inference): gradients to the input, weight and bias; none to
// the running statistics (buffers, detached).
// E2E-GRAD: @batch_norm f32[2,3,4] f32[3] f32[3]{0.5,2} f32[3] f32[3]
// E2E-GRAD: @batch_norm f32[1,2,1] f32[2] f32[2]{0.5,2} f32[2] f32[2]
func.func @batch_norm(%x: tensor<?x?x?xf32>, %m: tensor<?xf32>, %v: tensor<?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %0 = kiln.batch_norm %x, %m, %v weight %w bias %b {eps = 1.0e-05 : f64} : (tensor<?x?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// group_norm: gradients to the input (through each group's mean and
// variance), weight and bias.
// E2E-GRAD: @group_norm f32[2,4,3] f32[4] f32[4]
// E2E-GRAD: @group_norm f32[1,4,1] f32[4] f32[4]
func.func @group_norm(%x: tensor<?x?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %g = arith.constant 2 : index
  %0 = kiln.group_norm %x groups %g weight %w bias %b {eps = 1.0e-05 : f64} : (tensor<?x?x?xf32>, index, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// flip and roll (through their gathers): the gradient flipped and rolled
// back, whatever the shift's sign and size.
// E2E-GRAD: @flip_roll f32[3,5]
// E2E-GRAD: @flip_roll f32[1,2]
func.func @flip_roll(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.flip %x dims [0, 1] : tensor<?x?xf32>
  %1 = kiln.roll %x shift -7 dim 1 : tensor<?x?xf32>
  %r = kiln.roll %x shift 2 dim 0 : tensor<?x?xf32>
  %2 = kiln.flip %r dims [1] : tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// Activations: tan, atan, erfc, softplus (past its threshold of 20 too),
// mish, and hardswish and hardsigmoid on either side of, and at, their
// kinks at -3 and 3.
// E2E-GRAD: @activations f32[17]{-4,4}
// E2E-GRAD: @activations f32[9]*4
func.func @activations(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %t = kiln.full {value = 0.3 : f32} : tensor<f32>
  %small = kiln.mul %x, %t : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %0 = kiln.tan %small : tensor<?xf32>
  %1 = kiln.atan %x : tensor<?xf32>
  %2 = kiln.erfc %x : tensor<?xf32>
  %3 = kiln.softplus %x : tensor<?xf32>
  %k = kiln.full {value = 8.0 : f32} : tensor<f32>
  %big = kiln.mul %x, %k : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %4 = kiln.softplus %big : tensor<?xf32>
  %5 = kiln.mish %x : tensor<?xf32>
  %6 = kiln.hardswish %x : tensor<?xf32>
  %7 = kiln.hardsigmoid %x : tensor<?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// prod, exact with zeros as eager's: a row without one, a row with one
// zero, rows with several (relu's).
// E2E-GRAD: @products_of_rows f64[3,7]{-2,2}
// E2E-GRAD: @products_of_rows f64[2,3]
func.func @products_of_rows(%x: tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?x1xf64>, tensor<f64>) {
  %0 = kiln.prod %x dims [1] : tensor<?x?xf64> -> tensor<?xf64>
  %r = kiln.relu %x : tensor<?x?xf64>
  %1 = kiln.prod %r dims [1] keepdim : tensor<?x?xf64> -> tensor<?x1xf64>
  %2 = kiln.prod %x dims [] : tensor<?x?xf64> -> tensor<f64>
  return %0, %1, %2 : tensor<?xf64>, tensor<?x1xf64>, tensor<f64>
}

// A host condition choosing between two tensors (`c ? a : b`): the chosen
// one takes the gradient.
// E2E-GRAD: @choose f32[2,3] f32[2,3] idx=1
// E2E-GRAD: @choose f32[4,1] f32[4,1] idx=0
func.func @choose(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %i: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c = arith.cmpi sgt, %i, %c0 : index
  %0 = arith.select %c, %a, %b : tensor<?x?xf32>
  %1 = kiln.mul %0, %0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// detach: its values, no gradient through it (x * detach(x) has x's
// values squared and the gradient detach(x)).
// E2E-GRAD: @detached f32[3,4]
func.func @detached(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %d = kiln.detach %x : tensor<?x?xf32>
  %0 = kiln.mul %x, %d : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A classifier's loss: embedding, cross_entropy of [N, C] logits.
// E2E-GRAD: @loss i64[2,3]{0,10} f32[10,4] f32[6,4] i64[6]{0,4}
func.func @loss(%ids: tensor<?x?xi64>, %table: tensor<?x?xf32>, %logits: tensor<?x?xf32>, %targets: tensor<?xi64>) -> (tensor<?x?x?xf32>, tensor<f32>) {
  %0 = kiln.embedding %ids, %table : (tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.cross_entropy %logits, %targets : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<f32>
  return %0, %1 : tensor<?x?x?xf32>, tensor<f32>
}

// Strided slices: each element's gradient added at its place among zeros,
// from a start counted from the end, past the end, and a step that leaves
// one element.
// E2E-GRAD: @strided f32[3,9] idx=-8 idx=100
// E2E-GRAD: @strided f32[2,4] idx=1 idx=3
func.func @strided(%x: tensor<?x?xf32>, %s: index, %e: index) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.slice %x dim 1 [%s : %e step 2] : tensor<?x?xf32> -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %1 = kiln.slice %x dim 0 [%c0 : %e step 3] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Views and data movement: reshape, transpose, permute, squeeze, expand,
// slices (a negative start counted from the end) and cat.
// E2E-GRAD: @views f32[2,3,4] f32[1,4] idx=1 idx=-2
func.func @views(%x: tensor<?x?x?xf32>, %r: tensor<1x?xf32>, %s: index, %n: index) -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %d0 = kiln.dim %x, 0 : tensor<?x?x?xf32>
  %d1 = kiln.dim %x, 1 : tensor<?x?x?xf32>
  %d2 = kiln.dim %x, 2 : tensor<?x?x?xf32>
  %m = arith.muli %d0, %d1 : index
  %0 = kiln.reshape %x [%m, %d2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %1 = kiln.transpose %x dims 0, 2 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %2 = kiln.permute %x [1, 2, 0] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %3 = kiln.squeeze %r dim 0 : tensor<1x?xf32> -> tensor<?xf32>
  %4 = kiln.expand %r [%d1, %d2] : tensor<1x?xf32> -> tensor<?x?xf32>
  %5 = kiln.mul %4, %3 : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %6 = kiln.slice %x dim 1 [%s : %d1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %7 = kiln.slice %x dim 1 [%n : %d1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %8 = kiln.cat %6, %7 dim 1 : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %5, %2, %8 : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// where's branches (the mask takes none) and a promotion: an f64 scalar
// (0-d) times an f32 tensor computes in f32.
// E2E-GRAD: @select f32[3,4] f32[4] f64[]
func.func @select(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %d: tensor<f64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = kiln.full {value = 0.0 : f32} : tensor<f32>
  %c = kiln.cmp gt, %x, %zero : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %0 = kiln.where %c, %x, %y : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.mul %x, %d : (tensor<?x?xf32>, tensor<f64>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// pow (a positive base; a 0 exponent passes nothing to the base), maximum
// and minimum (of a tensor and itself: a tie everywhere, half each), abs,
// and amax/amin (over a tensor and its copy: every extremum tied, the
// gradient shared).
// E2E-GRAD: @extrema f32[4,5]{0.5,3} f32[5] f32[4,5]
// E2E-GRAD: @extrema f32[2,1]{0.5,3} f32[1]{0,0} f32[2,1]
func.func @extrema(%p: tensor<?x?xf32>, %e: tensor<?xf32>, %x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<1x?xf32>) {
  %0 = kiln.pow %p, %e : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.maximum %x, %p : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.minimum %x, %x : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.abs %x : tensor<?x?xf32>
  %c = kiln.cat %x, %x dim 1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = kiln.amax %c dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %5 = kiln.amin %c dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %6 = kiln.add %0, %1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %6, %2, %3, %1, %4, %5 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<1x?xf32>
}

// gather (indices repeated: their gradients add), scatter_add (the source
// read back where it was added; a source larger than the index, whose
// elements past it add nothing and take zeros) and cumsum (the sums from
// each position on).
// E2E-GRAD: @indexing f32[3,5] i64[3,4]{0,5} f32[4,5] i64[2,5]{0,4} f32[2,5]
// E2E-GRAD: @indexing f32[1,2] i64[1,6]{0,2} f32[1,1] i64[3,1]{0,1} f32[3,1]
// E2E-GRAD: @indexing f32[2,3] i64[2,2]{0,3} f32[4,5] i64[2,3]{0,4} f32[3,6]
func.func @indexing(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>, %base: tensor<?x?xf32>, %j: tensor<?x?xi64>, %src: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.gather %x, %i dim 1 : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  %1 = kiln.scatter_add %base, %j, %src dim 0 : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.cumsum %x dim 1 : tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// cumprod (torch's cumprod_backward): before a slice's first zero, at it,
// and after it; the evenly spaced values hold one exact 0, twice in each
// row of the joined x (two zeros in a slice), once in a column of y.
// E2E-GRAD: @cumprod f32[3,5]{-1,1} f64[3,5]{-1.5,1.5}
// E2E-GRAD: @cumprod f32[2,4] f64[4,3]
func.func @cumprod(%x: tensor<?x?xf32>, %y: tensor<?x?xf64>) -> (tensor<?x?xf32>, tensor<?x?xf64>) {
  %xx = kiln.cat %x, %x dim 1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = kiln.cumprod %xx dim 1 : tensor<?x?xf32>
  %1 = kiln.cumprod %y dim 0 : tensor<?x?xf64>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf64>
}

// index_select: the gradient scattered back to the rows picked (summed
// where one is picked twice); pad: each kept element's gradient, none for
// the padding, reflected ones summed.
// E2E-GRAD: @pick_and_pad f32[4,5] i64[6]{0,4}
// E2E-GRAD: @pick_and_pad f32[2,3] i64[1]{0,2}
func.func @pick_and_pad(%x: tensor<?x?xf32>, %i: tensor<?xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c = arith.constant 1.5 : f64
  %0 = kiln.index_select %x, %i dim 0 : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %1 = kiln.pad %x [1, 2, 0, 1] constant value %c : (tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  %2 = kiln.pad %x [1, 1] reflect value %c0 : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// conv_transpose2d: the gradients of its spread, padding and flipped
// weight through the convolution; a grouped, dilated one with the stride
// known only at run time, and one that crops.
// E2E-GRAD: @conv_transpose f32[2,4,3,4] f32[4,3,3,3] f32[3] f32[4,2,2,2] idx=2
// E2E-GRAD: @conv_transpose f32[1,4,3,1] f32[4,3,3,3] f32[3] f32[4,2,2,2] idx=1
func.func @conv_transpose(%x: tensor<?x4x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>, %g: tensor<4x2x2x2xf32>, %s: index) -> (tensor<?x3x?x?xf32>, tensor<?x4x?x?xf32>) {
  %0 = kiln.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 3>, padding = array<i64: 3, 1>, output_padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>}
      : (tensor<?x4x?x?xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<?x3x?x?xf32>
  %1 = kiln.conv_transpose2d %x, %g params [%s, %s] {strides = array<i64: -9223372036854775808, -9223372036854775808>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 1>, groups = 2, dilation = array<i64: 1, 2>}
      : (tensor<?x4x?x?xf32>, tensor<4x2x2x2xf32>, index, index) -> tensor<?x4x?x?xf32>
  return %0, %1 : tensor<?x3x?x?xf32>, tensor<?x4x?x?xf32>
}

// einsum: the gradients of its sums, permutations and product.
// E2E-GRAD: @einsum f32[2,3,4] f32[2,4,5] f32[3,4]
// E2E-GRAD: @einsum f32[1,2,1] f32[1,1,3] f32[2,1]
func.func @einsum(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.einsum "bij,bjk->bik" %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.einsum "...j,kj->...k" %a, %c : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %2 = kiln.einsum "bij->jb" %a : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>
}

// interpolate: nearest's gradient summed into the pixels it copied,
// bilinear's weighed into both neighbours.
// E2E-GRAD: @resample f32[2,3,4,5] idx=7 idx=3 f64=1.5
// E2E-GRAD: @resample f32[1,2,3,2] idx=2 idx=5 f64=2
func.func @resample(%x: tensor<?x?x?x?xf32>, %h: index, %w: index, %f: f64) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.interpolate %x sizes [%h, %w] nearest : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  %1 = kiln.interpolate %x sizes [%h, %w] bilinear {align_corners = true} : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  %2 = kiln.interpolate_scaled %x scale %f bilinear : (tensor<?x?x?x?xf32>, f64) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}
