// Tests compiled composite ops (kiln-decompose-composites writes them with
// the other ops) against the eager runtime's own functions for them.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 79 passed, 0 failed

// logsumexp over rows and over columns; inf, -inf and NaN in the first row
// (a column holding +inf gives +inf, one holding -inf a finite value).
// E2E: @logsumexp f32[4,8]*30!
// E2E: @logsumexp f32[1,3]
// E2E: @logsumexp f32[2,5]*0.01
func.func @logsumexp(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>) {
  %0 = kiln.logsumexp %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.logsumexp %x dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.logsumexp %x dims [] : tensor<?x?xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>
}

// Integers give f32 (their maximum subtracted exactly: values near 2^24
// that f32 cannot tell apart); f64 stays f64.
// E2E: @logsumexp_types i64[5,6]{-20,20} f64[2,3,4]
// E2E: @logsumexp_types i64[4,6]{16777210,16777222} f64[1,1,1]
func.func @logsumexp_types(%n: tensor<?x?xi64>, %d: tensor<?x?x?xf64>) -> (tensor<?xf32>, tensor<?x1x?xf64>) {
  %0 = kiln.logsumexp %n dims [0] : tensor<?x?xi64> -> tensor<?xf32>
  %1 = kiln.logsumexp %d dims [1] keepdim : tensor<?x?x?xf64> -> tensor<?x1x?xf64>
  return %0, %1 : tensor<?xf32>, tensor<?x1x?xf64>
}

// cast_like converts to the other tensor's element type.
// E2E: @cast_like f64[3,4] f32[2]
func.func @cast_like(%x: tensor<?x?xf64>, %like: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.cast_like %x, %like : (tensor<?x?xf64>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A conv2d and pools of one [C, H, W] image.
// E2E: @unbatched f32[3,9,9] f32[4,3,3,3] f32[4]
func.func @unbatched(%x: tensor<3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<4x?x?xf32>, tensor<4x?x?xf32>, tensor<4x2x2xf32>) {
  %0 = kiln.conv2d %x, %w, %b {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : (tensor<3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<4x?x?xf32>
  %1 = kiln.pool2d max %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
      : (tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  %2 = kiln.adaptive_avg_pool2d %0 {output_size = array<i64: 2, 2>}
      : (tensor<4x?x?xf32>) -> tensor<4x2x2xf32>
  return %0, %1, %2 : tensor<4x?x?xf32>, tensor<4x?x?xf32>, tensor<4x2x2xf32>
}


// var and std: over rows with Bessel's correction, over columns kept with
// a correction known only at run time, over everything; NaN and infinities
// in the first row.
// E2E: @variance f32[4,6]*10! idx=0
// E2E: @variance f32[3,5] idx=2
func.func @variance(%x: tensor<?x?xf32>, %c: index) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>) {
  %0 = kiln.var %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.std %x dims [0] keepdim correction_value %c : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.var %x dims [] {correction = 0 : i64} : tensor<?x?xf32> -> tensor<f32>
  %3 = kiln.std %x dims [1] correction_value %c : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>
}

// norm: p = 2, 1, 3, 0.5, 0 and +-inf, over rows, kept over columns and
// over everything, NaN and infinities in the first row; a zero input (0
// for every p); bf16.
// E2E: @norm f32[4,6]*10! f32[2,3]{0,0} bf16[3,5]
// E2E: @norm f32[1,1] f32[1,1]{0,0} bf16[1,2]
func.func @norm(%x: tensor<?x?xf32>, %z: tensor<?x?xf32>, %h: tensor<?x?xbf16>) -> (tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xbf16>) {
  %0 = kiln.norm %x p 2.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.norm %x p 1.0 dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %2 = kiln.norm %x p 3.0 dims [] : tensor<?x?xf32> -> tensor<f32>
  %3 = kiln.norm %x p 0.5 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %4 = kiln.norm %x p 0.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %5 = kiln.norm %x p 0x7FF0000000000000 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %6 = kiln.norm %x p 0xFFF0000000000000 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %7 = kiln.norm %z p 2.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %8 = kiln.norm %z p 3.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %9 = kiln.norm %h p 2.0 dims [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<?xf32>, tensor<1x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xbf16>
}

// bmm, baddbmm and addmm: integer and float factors, beta 0 ignoring an
// input of infinities, an input broadcast over the product; an integer
// product stays integer with integer factors and becomes float32 with a
// float one; batch sizes that differ (bmm broadcasts nothing), an input
// that does not broadcast to the product and one that would broadcast the
// product up (an input [3] over a product [3, 4, 1]: add alone would give
// [3, 4, 3]) raise eager's errors.
// E2E: @products f32[3,4,5] f32[3,5,2] f32[2]! f32[4,5] f32[5,2] i64[4,5]{-5,5} i64[5,2]{-5,5} i64[2]{-9,9}
// E2E: @products f32[1,1,1] f32[1,1,1] f32[1] f32[1,1] f32[1,1] i64[1,1]{0,3} i64[1,1]{0,3} i64[1]{0,3}
// E2E: @products f32[1,4,5] f32[3,5,2] f32[2] f32[4,5] f32[5,2] i64[4,5]{0,3} i64[5,2]{0,3} i64[2]{0,3} expect-error
// E2E: @products f32[3,4,5] f32[3,5,2] f32[3] f32[4,5] f32[5,2] i64[4,5]{0,3} i64[5,2]{0,3} i64[2]{0,3} expect-error
// E2E: @products f32[3,4,5] f32[3,5,1] f32[3] f32[4,5] f32[5,1] i64[4,5]{0,3} i64[5,1]{0,3} i64[2]{0,3} expect-error
func.func @products(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?xf32>, %m: tensor<?x?xf32>, %n: tensor<?x?xf32>, %im: tensor<?x?xi64>, %in: tensor<?x?xi64>, %ic: tensor<?xi64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) {
  %0 = kiln.bmm %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.baddbmm %c, %a, %b {alpha = 5.000000e-01 : f64, beta = 2 : i64} : (tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = kiln.addmm %c, %m, %n {alpha = 1 : i64, beta = 0.000000e+00 : f64} : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.addmm %c, %m, %n {alpha = -1.500000e+00 : f64, beta = 1 : i64} : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = kiln.addmm %ic, %im, %in {alpha = 2 : i64, beta = 3 : i64} : (tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %5 = kiln.addmm %ic, %im, %in {alpha = 5.000000e-01 : f64, beta = 1 : i64} : (tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>
}

// narrow and select at run-time starts and indices, counted from the end
// when negative, on floats and integers; a start past the end, a length
// too long and an index out of range raise eager's errors.
// E2E: @slices f32[4,6] i64[5,3]{-9,9} idx=1 idx=3
// E2E: @slices f32[3,5] i64[2,4]{-9,9} idx=-2 idx=2
// E2E: @slices f32[3,5] i64[2,4]{-9,9} idx=4 idx=2 expect-error
// E2E: @slices f32[3,5] i64[2,4]{-9,9} idx=1 idx=5 expect-error
// E2E: @slices f32[3,5] i64[2,4]{-9,9} idx=-6 idx=0 expect-error
func.func @slices(%x: tensor<?x?xf32>, %n: tensor<?x?xi64>, %s: index, %l: index) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xi64>, tensor<?xi64>) {
  %0 = kiln.narrow %x dim 1 start %s length %l : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = kiln.select %x dim 1 index %s : tensor<?x?xf32> -> tensor<?xf32>
  %2 = kiln.narrow %n dim 0 start %s length %l : tensor<?x?xi64> -> tensor<?x?xi64>
  %3 = kiln.select %n dim 0 index %s : tensor<?x?xi64> -> tensor<?xi64>
  return %0, %1, %2, %3 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xi64>, tensor<?xi64>
}

// stack along a new first, middle and last dim, f32 with f64 promoted;
// shapes that differ at run time raise eager's error.
// E2E: @stack f32[3,4] f32[3,4] f64[3,4]
// E2E: @stack f32[1,1] f32[1,1] f64[1,1]
// E2E: @stack f32[3,4] f32[3,5] f64[3,4] expect-error
func.func @stack(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf64>) -> (tensor<2x?x?xf32>, tensor<?x3x?xf64>, tensor<?x?x2xf32>) {
  %0 = kiln.stack %a, %b dim 0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<2x?x?xf32>
  %1 = kiln.stack %a, %c, %b dim 1 : (tensor<?x?xf32>, tensor<?x?xf64>, tensor<?x?xf32>) -> tensor<?x3x?xf64>
  %2 = kiln.stack %b, %a dim 2 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x2xf32>
  return %0, %1, %2 : tensor<2x?x?xf32>, tensor<?x3x?xf64>, tensor<?x?x2xf32>
}

// tril and triu over the last two dims of a batch, on and off the main
// diagonal, on floats, integers and bools, square and not.
// E2E: @triangles f32[2,5,7] i64[6,4]{-9,9} i1[3,3]
// E2E: @triangles f32[1,1,1] i64[1,9]{-9,9} i1[4,2]
func.func @triangles(%x: tensor<?x?x?xf32>, %n: tensor<?x?xi64>, %b: tensor<?x?xi1>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>) {
  %0 = kiln.tril %x : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %1 = kiln.triu %x diagonal 2 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %2 = kiln.tril %n diagonal -1 : tensor<?x?xi64> -> tensor<?x?xi64>
  %3 = kiln.triu %b diagonal -2 : tensor<?x?xi1> -> tensor<?x?xi1>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>
}

// The value tests and sign on inf, -inf, NaN, 0, -0 and finite floats, on
// integers and on bools.
// E2E: @value_tests f32[3,9]! i64[4]{-3,3} i1[5]
// E2E: @value_tests f32[1,1] i64[1]{0,1} i1[2]
func.func @value_tests(%x: tensor<?x?xf32>, %n: tensor<?xi64>, %b: tensor<?xi1>) -> (tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xi1>, tensor<?xi1>, tensor<?xi64>, tensor<?xi1>, tensor<?xi1>) {
  %0 = kiln.isnan %x : tensor<?x?xf32> -> tensor<?x?xi1>
  %1 = kiln.isinf %x : tensor<?x?xf32> -> tensor<?x?xi1>
  %2 = kiln.isfinite %x : tensor<?x?xf32> -> tensor<?x?xi1>
  %3 = kiln.logical_not %x : tensor<?x?xf32> -> tensor<?x?xi1>
  %4 = kiln.sign %x : tensor<?x?xf32>
  %5 = kiln.isinf %n : tensor<?xi64> -> tensor<?xi1>
  %6 = kiln.isfinite %n : tensor<?xi64> -> tensor<?xi1>
  %7 = kiln.sign %n : tensor<?xi64>
  %8 = kiln.logical_not %b : tensor<?xi1> -> tensor<?xi1>
  %9 = kiln.isnan %b : tensor<?xi1> -> tensor<?xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xi1>, tensor<?xi1>, tensor<?xi64>, tensor<?xi1>, tensor<?xi1>
}

// logical_and and logical_or of floats (NaN and -0 included), integers and
// bools, broadcasting; any and all over every dim, one dim and dims kept.
// E2E: @logical f32[3,5]! i64[5]{-1,1} i1[3,1]
// E2E: @logical f32[1,1] i64[1]{0,1} i1[1,1]
func.func @logical(%x: tensor<?x?xf32>, %n: tensor<?xi64>, %b: tensor<?x?xi1>) -> (tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<?x1xi1>, tensor<?xi1>) {
  %0 = kiln.logical_and %x, %n : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xi1>
  %1 = kiln.logical_or %n, %b : (tensor<?xi64>, tensor<?x?xi1>) -> tensor<?x?xi1>
  %2 = kiln.logical_and %b, %x : (tensor<?x?xi1>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %3 = kiln.any %x dims [] : tensor<?x?xf32> -> tensor<i1>
  %4 = kiln.all %n dims [] : tensor<?xi64> -> tensor<i1>
  %5 = kiln.any %n dims [0] : tensor<?xi64> -> tensor<i1>
  %6 = kiln.all %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xi1>
  %7 = kiln.any %b dims [1] : tensor<?x?xi1> -> tensor<?xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<?x1xi1>, tensor<?xi1>
}

// flip over one and several dims, roll by shifts below, past and above
// the size (negative too), on floats, integers and bools; an empty dim.
// E2E: @flip_roll f32[3,5] i64[4,2]{-9,9} i1[2,3]
// E2E: @flip_roll f32[1,1] i64[1,2]{0,9} i1[1,4]
// E2E: @flip_roll f32[2,0] i64[3,2]{0,9} i1[1,1]
func.func @flip_roll(%x: tensor<?x?xf32>, %n: tensor<?x2xi64>, %b: tensor<?x?xi1>) -> (tensor<?x?xf32>, tensor<?x2xi64>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x2xi64>, tensor<?x?xi1>, tensor<?x?xf32>) {
  %0 = kiln.flip %x dims [0, 1] : tensor<?x?xf32>
  %1 = kiln.flip %n dims [1] : tensor<?x2xi64>
  %2 = kiln.flip %b dims [0] : tensor<?x?xi1>
  %3 = kiln.roll %x shift 2 dim 1 : tensor<?x?xf32>
  %4 = kiln.roll %n shift -5 dim 0 : tensor<?x2xi64>
  %5 = kiln.roll %b shift 7 dim 1 : tensor<?x?xi1>
  %6 = kiln.roll %x shift -1 dim 0 : tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x2xi64>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x2xi64>, tensor<?x?xi1>, tensor<?x?xf32>
}

// leaky_relu and elu with constant and run-time factors, on inf, -inf,
// NaN, -0 and values where expm1 overflows; f64 and bf16 keep their type.
// E2E: @below_zero f32[4,9]*100! f64=0.2 f64[7] bf16[6]
// E2E: @below_zero f32[1,1] f64=-1.5 f64[1] bf16[1]
func.func @below_zero(%x: tensor<?x?xf32>, %k: f64, %d: tensor<?xf64>, %h: tensor<?xbf16>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf64>, tensor<?xbf16>) {
  %small = arith.constant 0.01 : f64
  %0 = kiln.leaky_relu %x, %k : tensor<?x?xf32>
  %1 = kiln.leaky_relu %x, %small : tensor<?x?xf32>
  %2 = kiln.elu %x, %k : tensor<?x?xf32>
  %3 = kiln.elu %d, %small : tensor<?xf64>
  %4 = kiln.leaky_relu %h, %k : tensor<?xbf16>
  return %0, %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf64>, tensor<?xbf16>
}

// masked_fill with a broadcast mask, a constant -inf, a run-time value, a
// float value into integers (converted to their type: 2.5 gives 2) and
// into bools; a mask larger than the input is eager's error.
// E2E: @masked_fill f32[4,6] i1[1,6] f32=0.75 i64[4,6]{-9,9}
// E2E: @masked_fill f32[1,1] i1[1,1] f32=-3 i64[1,1]{0,9}
// E2E: @masked_fill f32[1,6] i1[3,6] f32=1 i64[1,6]{0,9} expect-error
func.func @masked_fill(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>, %v: f32, %n: tensor<?x?xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>) {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %c = kiln.from_scalar %ninf : f64 -> tensor<f64>
  %value = kiln.from_scalar %v : f32 -> tensor<f32>
  %half = arith.constant 2.5 : f64
  %h = kiln.from_scalar %half : f64 -> tensor<f64>
  %0 = kiln.masked_fill %x, %m, %c : (tensor<?x?xf32>, tensor<?x?xi1>, tensor<f64>) -> tensor<?x?xf32>
  %1 = kiln.masked_fill %x, %m, %value : (tensor<?x?xf32>, tensor<?x?xi1>, tensor<f32>) -> tensor<?x?xf32>
  %2 = kiln.masked_fill %n, %m, %h : (tensor<?x?xi64>, tensor<?x?xi1>, tensor<f64>) -> tensor<?x?xi64>
  %b = kiln.cmp gt, %x, %value : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %3 = kiln.masked_fill %b, %m, %h : (tensor<?x?xi1>, tensor<?x?xi1>, tensor<f64>) -> tensor<?x?xi1>
  return %0, %1, %2, %3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xi1>
}

// lerp from either end, with run-time and constant weights (1 gives end
// exactly), start and end broadcast together; f64 too.
// E2E: @lerp f32[3,5] f32[5] f64=0.3 f64[4] f64[4]
// E2E: @lerp f32[1,2] f32[2] f64=0.8 f64[1] f64[1]
func.func @lerp(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %w: f64, %c: tensor<?xf64>, %d: tensor<?xf64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf64>) {
  %quarter = arith.constant 0.25 : f64
  %one = arith.constant 1.0 : f64
  %0 = kiln.lerp %a, %b, %w : (tensor<?x?xf32>, tensor<?xf32>, f64) -> tensor<?x?xf32>
  %1 = kiln.lerp %a, %b, %quarter : (tensor<?x?xf32>, tensor<?xf32>, f64) -> tensor<?x?xf32>
  %2 = kiln.lerp %a, %b, %one : (tensor<?x?xf32>, tensor<?xf32>, f64) -> tensor<?x?xf32>
  %3 = kiln.lerp %c, %d, %w : (tensor<?xf64>, tensor<?xf64>, f64) -> tensor<?xf64>
  return %0, %1, %2, %3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf64>
}

// clamp with both bounds, min alone and max alone (run-time), min > max
// (max everywhere), inf, -inf and NaN (kept) in the input; an integer
// tensor with integer bounds (stays integer) and with a float bound
// (float32, as eager's maximum and minimum promote); bf16.
// E2E: @clamp f32[4,9]*3! f64=0.5 i64[5]{-9,9} bf16[6]
// E2E: @clamp f32[1,1] f64=-2 i64[1]{0,9} bf16[1]
func.func @clamp(%x: tensor<?x?xf32>, %v: f64, %n: tensor<?xi64>, %h: tensor<?xbf16>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?xbf16>) {
  %lo = arith.constant -1.0 : f64
  %hi = arith.constant 2.0 : f64
  %wlo = kiln.from_scalar %lo : f64 -> tensor<f64>
  %whi = kiln.from_scalar %hi : f64 -> tensor<f64>
  %wv = kiln.from_scalar %v : f64 -> tensor<f64>
  %c3 = arith.constant 3 : index
  %cm2 = arith.constant -2 : index
  %i3 = kiln.from_scalar %c3 : index -> tensor<i64>
  %im2 = kiln.from_scalar %cm2 : index -> tensor<i64>
  %0 = kiln.clamp %x min %wlo max %whi : (tensor<?x?xf32>, tensor<f64>, tensor<f64>) -> tensor<?x?xf32>
  %1 = kiln.clamp %x min %wv : (tensor<?x?xf32>, tensor<f64>) -> tensor<?x?xf32>
  %2 = kiln.clamp %x max %wv : (tensor<?x?xf32>, tensor<f64>) -> tensor<?x?xf32>
  %3 = kiln.clamp %x min %whi max %wlo : (tensor<?x?xf32>, tensor<f64>, tensor<f64>) -> tensor<?x?xf32>
  %4 = kiln.clamp %n min %im2 max %i3 : (tensor<?xi64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %5 = kiln.clamp %n max %wv : (tensor<?xi64>, tensor<f64>) -> tensor<?xf32>
  %6 = kiln.clamp %h min %wlo max %wv : (tensor<?xbf16>, tensor<f64>, tensor<f64>) -> tensor<?xbf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?xbf16>
}

// batch_norm in evaluation mode: an image batch with every operand and a
// run-time eps, [N, C] without weight and bias, float64 statistics for a
// float32 input (computed promoted, returned as float32); statistics of
// another size than the channels are eager's error (a size-1 one would
// otherwise broadcast).
// E2E: @batch_norm f32[2,3,4,5] f32[3] f32[3]{0.5,2} f32[3] f32[3] f64=0.001 f32[6,4] f64[4] f64[4]{0.5,2}
// E2E: @batch_norm f32[1,1,1,1] f32[1] f32[1]{0.5,2} f32[1] f32[1] f64=0.1 f32[1,2] f64[2] f64[2]{0.5,2}
// E2E: @batch_norm f32[2,3,4,5] f32[1] f32[3]{0.5,2} f32[3] f32[3] f64=0.001 f32[6,4] f64[4] f64[4]{0.5,2} expect-error
func.func @batch_norm(%x: tensor<?x?x?x?xf32>, %m: tensor<?xf32>, %v: tensor<?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>, %e: f64, %y: tensor<?x?xf32>, %m2: tensor<?xf64>, %v2: tensor<?xf64>) -> (tensor<?x?x?x?xf32>, tensor<?x?xf32>) {
  %0 = kiln.batch_norm %x, %m, %v weight %w bias %b eps_value %e {eps = 0.0 : f64} : (tensor<?x?x?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, f64) -> tensor<?x?x?x?xf32>
  %1 = kiln.batch_norm %y, %m2, %v2 {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf64>, tensor<?xf64>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?x?x?xf32>, tensor<?x?xf32>
}

// group_norm with a run-time group count, weight, bias and eps; a group
// per channel (instance_norm) without weight and bias, on float64; groups
// that do not divide the channels, and a weight of another size than the
// channels, are eager's errors.
// E2E: @group_norm f32[2,6,5] idx=3 f32[6] f32[6] f64=0.001 f64[2,3,4]
// E2E: @group_norm f32[1,2,1] idx=1 f32[2] f32[2] f64=0.1 f64[1,1,2]
// E2E: @group_norm f32[2,6,5] idx=4 f32[6] f32[6] f64=0.001 f64[2,3,4] expect-error
// E2E: @group_norm f32[2,6,5] idx=3 f32[1] f32[6] f64=0.001 f64[2,3,4] expect-error
func.func @group_norm(%x: tensor<?x?x?xf32>, %g: index, %w: tensor<?xf32>, %b: tensor<?xf32>, %e: f64, %y: tensor<?x?x?xf64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf64>) {
  %c1 = arith.constant 1 : index
  %0 = kiln.group_norm %x groups %g weight %w bias %b eps_value %e {eps = 0.0 : f64} : (tensor<?x?x?xf32>, index, tensor<?xf32>, tensor<?xf32>, f64) -> tensor<?x?x?xf32>
  %c = kiln.dim %y, 1 : tensor<?x?x?xf64>
  %1 = kiln.group_norm %y groups %c {eps = 1.0e-05 : f64} : (tensor<?x?x?xf64>, index) -> tensor<?x?x?xf64>
  return %0, %1 : tensor<?x?x?xf32>, tensor<?x?x?xf64>
}

// eye, one_hot, linspace and randint at run-time sizes, bounds and seeds
// (a square int64 eye, one of the dims 0 or 1, linspace of one step and
// none); ids out of range, a negative step count, and randint's high not
// above low raise eager's errors.
// E2E: @factories i64[4,3]{0,5} idx=3 idx=5 f64=-1.5 f64=2.25 idx=7
// E2E: @factories i64[2,1]{0,2} idx=1 idx=2 f64=0.5 f64=0.5 idx=1
// E2E: @factories i64[1,2]{0,1} idx=0 idx=1 f64=3 f64=-4 idx=0
// E2E: @factories i64[4,3]{5,7} idx=3 idx=5 f64=-1.5 f64=2.25 idx=7 expect-error
// E2E: @factories i64[4,3]{0,5} idx=3 idx=5 f64=-1.5 f64=2.25 idx=-1 expect-error
// E2E: @factories i64[4,3]{0,3} idx=3 idx=3 f64=-1.5 f64=2.25 idx=7 expect-error
func.func @factories(%ids: tensor<?x?xi64>, %r: index, %c: index, %a: f64, %b: f64, %n: index) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?x?xi64>, tensor<?xf32>, tensor<?xf64>, tensor<?x3xi64>, tensor<?x3xf32>) {
  %0 = kiln.eye %r, %c dtype f32 : tensor<?x?xf32>
  %1 = kiln.eye %c, %c dtype i64 : tensor<?x?xi64>
  %2 = kiln.one_hot %ids classes %c : tensor<?x?xi64> -> tensor<?x?x?xi64>
  %3 = kiln.linspace %a, %b, %n dtype f32 : tensor<?xf32>
  %4 = kiln.linspace %b, %a, %n dtype f64 : tensor<?xf64>
  %c3 = arith.constant 3 : index
  %5 = kiln.randint %r, %c, [%n, %c3] seed %n dtype i64 : tensor<?x3xi64>
  %6 = kiln.randint %r, %c, [%n, %c3] seed %r dtype f32 : tensor<?x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?x?xi64>, tensor<?xf32>, tensor<?xf64>, tensor<?x3xi64>, tensor<?x3xf32>
}

// index_select along the first and last dims, with an int32 index, a 0-d
// index and an index that repeats; pad in each mode over one and two dims,
// cropping, an integer tensor padded with a float value (its elements kept
// exact past float32's 2^24: the value is converted, the tensor is not
// promoted). An index out of
// range and a reflection as long as the dim raise eager's errors.
// E2E: @pick_and_pad f32[4,5] i64[6]{0,4} i32[3]{0,5} i64[7,3]{-9,9}
// E2E: @pick_and_pad f32[2,2] i64[1]{0,2} i32[1]{0,2} i64[2,2]{-9,9}
// E2E: @pick_and_pad f32[3,2] i64[2]{0,3} i32[2]{0,2} i64[4,3]{16777210,16777222}
// E2E: @pick_and_pad f32[4,5] i64[6]{4,6} i32[3]{0,5} i64[7,3]{-9,9} expect-error
// E2E: @pick_and_pad f32[1,5] i64[6]{0,1} i32[3]{0,5} i64[7,3]{-9,9} expect-error
func.func @pick_and_pad(%x: tensor<?x?xf32>, %i: tensor<?xi64>, %j: tensor<?xi32>, %n: tensor<?x?xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %half = arith.constant 2.5 : f64
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %0 = kiln.index_select %x, %i dim 0 : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %1 = kiln.index_select %x, %j dim 1 : (tensor<?x?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  %2 = kiln.index_select %x, %z dim 1 : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x1xf32>
  %3 = kiln.pad %x [2, 1, 1, 0] constant value %half : (tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  %4 = kiln.pad %x [1, 1, 1, 1] reflect value %c0 : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %5 = kiln.pad %x [-1, 3] replicate value %c0 : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %6 = kiln.pad %n [0, 0, 1, -1] constant value %half : (tensor<?x?xi64>, f64) -> tensor<?x?xi64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi64>
}

// full_like with a float and an integer value, over floats, integers and
// bools; dropout at inference (the input), p out of [0, 1] raising eager's
// error.
// E2E: @like_and_dropout f32[3,4] i64[2,5]{-9,9} i1[3] f64=-2.75 f64=0.25
// E2E: @like_and_dropout f32[1,1] i64[1,0]{-9,9} i1[0] f64=0.5 f64=1
// E2E: @like_and_dropout f32[3,4] i64[2,5]{-9,9} i1[3] f64=-2.75 f64=1.5 expect-error
func.func @like_and_dropout(%x: tensor<?x?xf32>, %n: tensor<?x?xi64>, %b: tensor<?xi1>, %v: f64, %p: f64) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?xi1>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %0 = kiln.full_like %x, %v : (tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  %1 = kiln.full_like %n, %v : (tensor<?x?xi64>, f64) -> tensor<?x?xi64>
  %2 = kiln.full_like %b, %v : (tensor<?xi1>, f64) -> tensor<?xi1>
  %3 = kiln.full_like %x, %c1 : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %4 = kiln.dropout %x p %p : tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?xi1>, tensor<?x?xf32>, tensor<?x?xf32>
}

// einsum: a batched product, broadcast batch dims ('...'), a sum and a
// permutation of one operand, a full contraction to 0-d; contracted sizes
// that differ at run time raise eager's error.
// E2E: @einsum f32[2,3,4] f32[2,4,5] f32[3,4]
// E2E: @einsum f32[1,1,1] f32[1,1,2] f32[3,1]
// E2E: @einsum f32[2,3,4] f32[2,5,5] f32[3,4] expect-error
func.func @einsum(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<f32>) {
  %0 = kiln.einsum "bij,bjk->bik" %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.einsum "...j,kj->...k" %a, %c : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %2 = kiln.einsum "bij->jb" %a : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %3 = kiln.einsum "ij,ij->" %c, %c : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<f32>
}

// interpolate to run-time sizes and by a run-time scale: nearest, bilinear
// with and without align_corners, up and down, an image of one pixel; a
// size below 1 and a scale that leaves none raise eager's errors.
// E2E: @resample f32[2,3,4,5] idx=7 idx=3 f64=1.5
// E2E: @resample f32[1,1,1,1] idx=1 idx=4 f64=2
// E2E: @resample f32[2,3,4,5] idx=0 idx=3 f64=1.5 expect-error
// E2E: @resample f32[2,3,4,5] idx=7 idx=3 f64=0.1 expect-error
func.func @resample(%x: tensor<?x?x?x?xf32>, %h: index, %w: index, %f: f64) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.interpolate %x sizes [%h, %w] nearest : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  %1 = kiln.interpolate %x sizes [%h, %w] bilinear : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  %2 = kiln.interpolate %x sizes [%w, %h] bilinear {align_corners = true} : (tensor<?x?x?x?xf32>, index, index) -> tensor<?x?x?x?xf32>
  %3 = kiln.interpolate_scaled %x scale %f nearest : (tensor<?x?x?x?xf32>, f64) -> tensor<?x?x?x?xf32>
  %4 = kiln.interpolate_scaled %x scale %f bilinear {align_corners = false} : (tensor<?x?x?x?xf32>, f64) -> tensor<?x?x?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// conv_transpose2d: strided with padding and output_padding; grouped and
// dilated with its stride, padding and groups known only at run time; one
// [C, H, W] image. An empty dim is not spread (the output is the bias, or
// the zeros padded); a stride of 0, groups that do not divide the channels
// and an empty output are eager's errors.
// E2E: @conv_transpose f32[2,4,5,6] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=2 idx=1 idx=2 f32[4,3,4]
// E2E: @conv_transpose f32[1,4,1,2] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=1 idx=0 idx=4 f32[4,1,1]
// E2E: @conv_transpose f32[2,4,0,3] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=1 idx=0 idx=1 f32[4,0,2]
// E2E: @conv_transpose f32[2,4,5,6] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=0 idx=1 idx=2 f32[4,3,4] expect-error
// E2E: @conv_transpose f32[2,4,5,6] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=1 idx=0 idx=3 f32[4,3,4] expect-error
// E2E: @conv_transpose f32[1,4,1,1] f32[4,3,3,3] f32[3] f32[4,1,2,2] idx=1 idx=3 idx=1 f32[4,1,1] expect-error
func.func @conv_transpose(%x: tensor<?x4x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>, %g: tensor<4x1x2x2xf32>, %s: index, %p: index, %groups: index, %img: tensor<4x?x?xf32>) -> (tensor<?x3x?x?xf32>, tensor<?x?x?x?xf32>, tensor<3x?x?xf32>) {
  %0 = kiln.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 3>, padding = array<i64: 1, 0>, output_padding = array<i64: 1, 2>, dilation = array<i64: 1, 1>}
      : (tensor<?x4x?x?xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<?x3x?x?xf32>
  %1 = kiln.conv_transpose2d %x, %g params [%s, %s, %p, %p, %groups] {strides = array<i64: -9223372036854775808, -9223372036854775808>, padding = array<i64: -9223372036854775808, -9223372036854775808>, output_padding = array<i64: 0, 0>, groups = -9223372036854775808, dilation = array<i64: 2, 1>}
      : (tensor<?x4x?x?xf32>, tensor<4x1x2x2xf32>, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %2 = kiln.conv_transpose2d %img, %w, %b {strides = array<i64: 1, 2>, padding = array<i64: 0, 1>, output_padding = array<i64: 0, 1>, dilation = array<i64: 1, 1>}
      : (tensor<4x?x?xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<3x?x?xf32>
  return %0, %1, %2 : tensor<?x3x?x?xf32>, tensor<?x?x?x?xf32>, tensor<3x?x?xf32>
}

// A constant pad of a dim that is empty at run time: all value, as eager.
// E2E: @pad_empty f32[3,0] f64=2.5
// E2E: @pad_empty f32[0,4] f64=-1
// E2E: @pad_empty f32[2,3] f64=0.5
func.func @pad_empty(%x: tensor<?x?xf32>, %v: f64) -> tensor<?x?xf32> {
  %0 = kiln.pad %x [1, 2, 2, 0] constant value %v : (tensor<?x?xf32>, f64) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
