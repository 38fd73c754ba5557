// Tests compiled matmul (every rank combination, batch broadcasting),
// linear, embedding, conv2d and cross_entropy against the eager runtime.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 41 passed, 0 failed

// E2E: @mm f32[33,17] f32[17,9]
// E2E: @mm f32[1,5] f32[5,1]
// E2E: @mm f32[4,6] f32[7,3] expect-error
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// E2E: @batched f32[2,3,4,5] f32[3,5,6]
// E2E: @batched f32[2,1,4,5] f32[3,5,6]
// E2E: @batched f32[2,3,4,5] f32[4,5,6] expect-error
// E2E: @batched f32[2,3,4,5] f32[2,5,6] expect-error
func.func @batched(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = kiln.matmul %a, %b : (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// Static size-1 batch dims broadcast through the maps (the runtime's
// batched gemm reads them with stride 0).
// E2E: @batched_static f32[2,1,4,5] f32[3,5,6]
func.func @batched_static(%a: tensor<2x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// E2E: @vectors f32[7] f32[7,3] f32[4,7] f32[2,4,7]
func.func @vectors(%v: tensor<?xf32>, %m: tensor<?x3xf32>, %n: tensor<4x?xf32>, %b: tensor<2x4x?xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<4xf32>, tensor<2x4x3xf32>) {
  %0 = kiln.matmul %v, %v : (tensor<?xf32>, tensor<?xf32>) -> tensor<f32>
  %1 = kiln.matmul %v, %m : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<3xf32>
  %2 = kiln.matmul %n, %v : (tensor<4x?xf32>, tensor<?xf32>) -> tensor<4xf32>
  %3 = kiln.matmul %b, %m : (tensor<2x4x?xf32>, tensor<?x3xf32>) -> tensor<2x4x3xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<3xf32>, tensor<4xf32>, tensor<2x4x3xf32>
}

// E2E: @int_mm i64[3,4]{-9,9} i64[4,2]{-9,9}
func.func @int_mm(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = kiln.matmul %a, %b : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

// E2E: @linear f32[3,5,16] f32[8,16] f32[8]
// E2E: @linear f32[1,1,16] f32[8,16] f32[8]
func.func @linear(%x: tensor<?x?x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %0 = kiln.linear %x, %w, %b : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %1 = kiln.linear %x, %w : (tensor<?x?x16xf32>, tensor<8x16xf32>) -> tensor<?x?x8xf32>
  return %0, %1 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// bfloat16 products multiply and sum in float32 and round once, as eager
// does (the runtime's kiln_linear_bf16 / kiln_bmm_bf16: AMX or AVX512-BF16
// where the CPU has them, float32 otherwise): 2-d, batched with broadcast,
// linear on rank-3 inputs with and without a bias, and a length-1 dim.
// E2E: @mm_bf16 bf16[33,17] bf16[17,9] bf16[2,3,4,40] bf16[3,40,6]
// E2E: @mm_bf16 bf16[1,5] bf16[5,1] bf16[2,1,1,5] bf16[3,5,6]
// E2E: @mm_bf16 bf16[4,6] bf16[7,3] bf16[2,3,4,5] bf16[3,5,6] expect-error
func.func @mm_bf16(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<?x?x?x?xbf16>, %d: tensor<?x?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?x?x?x?xbf16>) {
  %0 = kiln.matmul %a, %b : (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %1 = kiln.matmul %c, %d : (tensor<?x?x?x?xbf16>, tensor<?x?x?xbf16>) -> tensor<?x?x?x?xbf16>
  return %0, %1 : tensor<?x?xbf16>, tensor<?x?x?x?xbf16>
}

// E2E: @linear_bf16 bf16[3,5,48] bf16[40,48] bf16[40]
// E2E: @linear_bf16 bf16[1,1,48] bf16[40,48] bf16[40]
func.func @linear_bf16(%x: tensor<?x?x48xbf16>, %w: tensor<40x48xbf16>, %b: tensor<40xbf16>) -> (tensor<?x?x40xbf16>, tensor<?x?x40xbf16>) {
  %0 = kiln.linear %x, %w, %b : (tensor<?x?x48xbf16>, tensor<40x48xbf16>, tensor<40xbf16>) -> tensor<?x?x40xbf16>
  %1 = kiln.linear %x, %w : (tensor<?x?x48xbf16>, tensor<40x48xbf16>) -> tensor<?x?x40xbf16>
  return %0, %1 : tensor<?x?x40xbf16>, tensor<?x?x40xbf16>
}

// E2E: @embed i64[2,5]{0,10} f32[10,4]
// E2E: @embed i64[3,1]{10,12} f32[10,4] expect-error
func.func @embed(%ids: tensor<?x?xi64>, %t: tensor<10x4xf32>) -> tensor<?x?x4xf32> {
  %0 = kiln.embedding %ids, %t : (tensor<?x?xi64>, tensor<10x4xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// A table with no rows: every id is out of range, and no read may happen.
// E2E: @embed_dynamic i64[2]{0,1} f32[0,4] expect-error
// E2E: @embed_dynamic i64[2]{0,3} f32[3,4]
func.func @embed_dynamic(%ids: tensor<?xi64>, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = kiln.embedding %ids, %t : (tensor<?xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// E2E: @conv f32[2,3,9,7] f32[4,3,3,3] f32[4]
// E2E: @conv f32[1,3,5,5] f32[4,3,3,3] f32[4]
func.func @conv(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) {
  %0 = kiln.conv2d %x, %w, %b {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %1 = kiln.conv2d %x, %w {padding = array<i64: 0, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0, %1 : tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>
}

// Strides and padding known only at run time (a module's members): the
// im2col lowering, its range checks raising as the runtime's do.
// E2E: @conv_params f32[2,3,9,7] f32[4,3,3,3] f32[4] idx=2 idx=1
// E2E: @conv_params f32[1,3,6,5] f32[4,3,3,3] f32[4] idx=1 idx=0
// E2E: @conv_params f32[3,3,4,4] f32[4,3,3,3] f32[4] idx=3 idx=2
// E2E: @conv_params f32[1,3,5,5] f32[4,3,3,3] f32[4] idx=0 idx=1 expect-error
// E2E: @conv_params f32[1,3,5,5] f32[4,3,3,3] f32[4] idx=1 idx=-1 expect-error
// E2E: @conv_params f32[1,3,2,2] f32[4,3,3,3] f32[4] idx=1 idx=0 expect-error
func.func @conv_params(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %s: index, %p: index) -> (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) {
  %c1 = arith.constant 1 : index
  %0 = kiln.conv2d %x, %w, %b params [%s, %s, %p, %p] {padding = array<i64: -9223372036854775808, -9223372036854775808>, strides = array<i64: -9223372036854775808, -9223372036854775808>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, index, index, index, index) -> tensor<?x4x?x?xf32>
  %1 = kiln.conv2d %x, %w params [%s, %p] {padding = array<i64: 0, -9223372036854775808>, strides = array<i64: -9223372036854775808, 1>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, index, index) -> tensor<?x4x?x?xf32>
  return %0, %1 : tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>
}

// Dilation and groups (depthwise: groups = channels): linalg's dilated
// convolution when everything is static with one group; the grouped
// im2col and batched matmul otherwise, with dilation and groups known only
// at run time checked as the runtime checks them.
// E2E: @conv_groups f32[2,4,9,7] f32[4,1,3,3] f32[8,2,3,2]
// E2E: @conv_groups f32[1,4,7,8] f32[4,1,3,3] f32[8,2,3,2]
func.func @conv_groups(%x: tensor<?x4x?x?xf32>, %dw: tensor<4x1x3x3xf32>, %w: tensor<8x2x3x2xf32>) -> (tensor<?x4x?x?xf32>, tensor<?x8x?x?xf32>, tensor<?x4x?x?xf32>) {
  %0 = kiln.conv2d %x, %dw {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>, groups = 4} : (tensor<?x4x?x?xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x?x?xf32>
  %1 = kiln.conv2d %x, %w {padding = array<i64: 2, 1>, strides = array<i64: 1, 2>, dilation = array<i64: 2, 1>, groups = 2} : (tensor<?x4x?x?xf32>, tensor<8x2x3x2xf32>) -> tensor<?x8x?x?xf32>
  %2 = kiln.conv2d %x, %dw {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 4} : (tensor<?x4x?x?xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0, %1, %2 : tensor<?x4x?x?xf32>, tensor<?x8x?x?xf32>, tensor<?x4x?x?xf32>
}

// E2E: @conv_dilated f32[2,3,9,8] f32[4,3,3,3]
func.func @conv_dilated(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = kiln.conv2d %x, %w {padding = array<i64: 1, 2>, strides = array<i64: 1, 1>, dilation = array<i64: 3, 2>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// E2E: @conv_group_params f32[2,4,9,7] f32[4,2,3,3] idx=2 idx=2
// E2E: @conv_group_params f32[1,6,5,6] f32[6,3,3,3] idx=2 idx=1
// E2E: @conv_group_params f32[1,4,5,6] f32[4,2,3,3] idx=1 idx=1 expect-error
// E2E: @conv_group_params f32[1,4,5,6] f32[3,2,3,3] idx=2 idx=1 expect-error
// E2E: @conv_group_params f32[1,4,5,6] f32[4,2,3,3] idx=2 idx=0 expect-error
func.func @conv_group_params(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>, %g: index, %d: index) -> tensor<?x?x?x?xf32> {
  %0 = kiln.conv2d %x, %w params [%d, %d, %g] {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>, dilation = array<i64: -9223372036854775808, -9223372036854775808>, groups = -9223372036854775808} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, index, index, index) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// E2E: @xent f32[6,10] i64[6]{0,10}
// E2E: @xent f32[6,10] i64[6]{10,15} expect-error
// E2E: @xent_dynamic f32[3,0] i64[3]{0,1} expect-error
// E2E: @xent_dynamic f32[3,4] i64[3]{0,4}
func.func @xent(%l: tensor<?x10xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %l, %t : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @xent_dynamic(%l: tensor<?x?xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %l, %t : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
