// Tests the elementwise functions of one tensor against the eager runtime,
// on shapes the file names nowhere else: trigonometric, error, logarithm
// and exponential functions, the activations torch defines on floats, and
// rounding and squaring, which keep integer dtypes. Each runs over a range
// that reaches its edges (special values: inf, -inf, nan, 0, -0, 1e-40,
// +-100), in float32, in float64 where the lowering differs (log1p and
// expm1 keep small x exact), and on integers where the dtype is kept.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 45 passed, 0 failed

// E2E: @sin f32[17,59]{-30,30}
// E2E: @sin f32[3,7]!
// E2E: @cos f32[17,59]{-30,30}
// E2E: @cos f32[3,7]!
// E2E: @tan f32[17,59]{-1.5,1.5}
// E2E: @tan f32[3,7]!
// E2E: @atan f32[17,59]{-30,30}
// E2E: @atan f32[3,7]!
// E2E: @erf f32[17,59]{-30,30}
// E2E: @erf f32[3,7]!
// E2E: @erfc f32[17,59]{-30,30}
// E2E: @erfc f32[3,7]!
// E2E: @log1p f32[17,59]{-0.99,30}
// E2E: @log1p f32[5,9]
// E2E: @expm1 f32[17,59]{-30,30}
// E2E: @expm1 f32[3,7]!
// E2E: @log2 f32[17,59]{0.001,1000}
// E2E: @log2 f32[5,9]
// E2E: @exp2 f32[17,59]{-30,30}
// E2E: @exp2 f32[3,7]!
// E2E: @reciprocal f32[17,59]{0.01,50}
// E2E: @reciprocal f32[5,9]
// E2E: @softplus f32[17,59]{-30,30}
// E2E: @softplus f32[3,7]!
// E2E: @mish f32[17,59]{-30,30}
// E2E: @mish f32[3,7]!
// E2E: @hardswish f32[17,59]{-30,30}
// E2E: @hardswish f32[3,7]!
// E2E: @hardsigmoid f32[17,59]{-30,30}
// E2E: @hardsigmoid f32[3,7]!
// E2E: @log1p_f64 f64[13,31]{-0.001,0.001}
// E2E: @log1p_f64 f64[4,6]*3
// E2E: @expm1_f64 f64[13,31]{-0.001,0.001}
// E2E: @expm1_f64 f64[4,6]*3
// E2E: @floor f32[9,11]*3!
// E2E: @floor_i64 i64[5,3]{-100,100}
// E2E: @ceil f32[9,11]*3!
// E2E: @ceil_i64 i64[5,3]{-100,100}
// E2E: @round f32[9,11]*3!
// E2E: @round_i64 i64[5,3]{-100,100}
// E2E: @trunc f32[9,11]*3!
// E2E: @trunc_i64 i64[5,3]{-100,100}
// E2E: @square f32[9,11]*3!
// E2E: @square_i64 i64[5,3]{-100,100}
// E2E: @round f32[8,8]{-4,4}

func.func @sin(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.sin %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @cos(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.cos %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @tan(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.tan %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @atan(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.atan %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @erf(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.erf %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @erfc(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.erfc %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @log1p(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.log1p %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @expm1(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.expm1 %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @log2(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.log2 %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @exp2(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.exp2 %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @reciprocal(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.reciprocal %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @softplus(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.softplus %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @mish(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.mish %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @hardswish(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.hardswish %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @hardsigmoid(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.hardsigmoid %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @log1p_f64(%x: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = kiln.log1p %x : tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}

func.func @expm1_f64(%x: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = kiln.expm1 %x : tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}

func.func @floor(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.floor %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @floor_i64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.floor %x : tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

func.func @ceil(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.ceil %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @ceil_i64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.ceil %x : tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

func.func @round(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.round %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @round_i64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.round %x : tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

func.func @trunc(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.trunc %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @trunc_i64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.trunc %x : tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

func.func @square(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.square %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @square_i64(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.square %x : tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}
