// Tests the lowering of kiln.pool2d and kiln.adaptive_avg_pool2d.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s

// Max pooling: one generic over the output and the window's taps, the
// taps outside the input -inf (no tensor.pad), NaN kept by maximumf.
// CHECK-LABEL: func.func @max_pool
// CHECK: cf.assert {{.*}}, "max_pool2d: only the batch dim may be empty"
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @max_pool(%x: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %0 = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// Average pooling of half floats: summed in f32, then divided and
// truncated in an elementwise generic; run-time window parameters checked.
// CHECK-LABEL: func.func @avg_pool
// CHECK: cf.assert {{.*}}, "avg_pool2d: kernel_size must be at least 1"
// CHECK: cf.assert {{.*}}, "avg_pool2d: padding must be at most half the kernel size"
// CHECK: cf.assert {{.*}}, "avg_pool2d: the padded input is smaller than the kernel"
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: return
func.func @avg_pool(%x: tensor<?x3x?x?xf16>, %k: index) -> tensor<?x3x?x?xf16> {
  %0 = kiln.pool2d avg %x params [%k, %k] {kernel = array<i64: -9223372036854775808, -9223372036854775808>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x?x?xf16>, index, index) -> tensor<?x3x?x?xf16>
  return %0 : tensor<?x3x?x?xf16>
}

// -----

// Adaptive: each window read from its start, at most ceil(in / out) + 1
// taps.
// CHECK-LABEL: func.func @adaptive
// CHECK: arith.ceildivsi
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: return
func.func @adaptive(%x: tensor<?x3x?x?xf32>) -> tensor<?x3x2x2xf32> {
  %0 = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>) -> tensor<?x3x2x2xf32>
  return %0 : tensor<?x3x2x2xf32>
}
