// Tests the lowering of matmul, linear, embedding, conv2d, cross_entropy.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-cpu-pipeline -mlir-print-ir-after=one-shot-bufferize 2>&1 >/dev/null | FileCheck %s --check-prefix=BUFFERS

// 2-d products are linalg.matmul; a dynamic contracting dim is checked.
// CHECK-LABEL: func.func @mm
// CHECK: cf.assert {{.*}}, "matmul: contracting sizes differ"
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Batched products broadcast batch dims through the maps.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @batched
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
func.func @batched(%a: tensor<2x3x4x5xf32>, %b: tensor<1x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<1x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// A transpose of an operand's last two dims is read in place through the
// product's maps (x @ w.T, a.T @ b): the products read the arguments, and
// the transposes are left dead for the canonicalizer.
// CHECK-DAG: #[[TX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[TW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[TY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[TA:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[TB:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[TC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_operands
// CHECK: %[[SW:.*]] = tensor.extract_slice %arg1
// CHECK: linalg.generic {indexing_maps = [#[[TX]], #[[TW]], #[[TY]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[SW]] :
// CHECK: %[[SA:.*]] = tensor.extract_slice %arg2
// CHECK: %[[SB:.*]] = tensor.extract_slice %arg3
// CHECK: linalg.generic {indexing_maps = [#[[TA]], #[[TB]], #[[TC]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[SA]], %[[SB]] :
func.func @transposed_operands(%x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %wt = kiln.transpose %w dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %0 = kiln.matmul %x, %wt : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %at = kiln.transpose %a dims 1, 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = kiln.matmul %at, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?x?xf32>, tensor<?x?xf32>
}

// -----

// linear reads the weight transposed in place, then adds the bias.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]]
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @linear(%x: tensor<?x?x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %0 = kiln.linear %x, %w, %b : (tensor<?x?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// Ids are range-checked, then clamped where they are read.
// CHECK-LABEL: func.func @embedding
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: cf.assert {{.*}}, "embedding: index out of range"
// CHECK: arith.maxsi
// CHECK: tensor.extract
func.func @embedding(%ids: tensor<?x?xi64>, %t: tensor<10x4xf32>) -> tensor<?x?x4xf32> {
  %0 = kiln.embedding %ids, %t : (tensor<?x?xi64>, tensor<10x4xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

// A table whose rows are dynamic may be empty (its ids then fail their
// check): the read is skipped there, and the table is read where it is (an
// scf.if that yielded a stand-in row or the table made One-Shot Bufferize
// copy a slice of a weight argument, GPT-2's wte.narrow(0, 0, V), whole on
// every call).
// CHECK-LABEL: func.func @embedding_dynamic
// CHECK: cf.assert {{.*}}, "embedding: index out of range"
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: linalg.generic
// CHECK: scf.if %[[EMPTY]] -> (f32)
// CHECK: } else {
// CHECK: tensor.extract %extracted_slice
// BUFFERS-LABEL: func.func @embedding_dynamic
// BUFFERS: %[[TABLE:.*]] = memref.subview %arg1
// BUFFERS-NOT: memref.copy %[[TABLE]]
// BUFFERS: memref.load %[[TABLE]]
// BUFFERS: return
func.func @embedding_dynamic(%ids: tensor<?x?xi64>, %t: tensor<?x?xf32>, %rows: index) -> tensor<?x?x?xf32> {
  %c1 = arith.constant 1 : index
  %width = tensor.dim %t, %c1 : tensor<?x?xf32>
  %v = tensor.extract_slice %t[0, 0] [%rows, %width] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %0 = kiln.embedding %ids, %v : (tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @conv
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: arith.addf
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = kiln.conv2d %x, %w, %b {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Strides and padding known only at run time: checked, clamped, then an
// im2col gather and a product (no linalg convolution: its strides are
// attributes).
// CHECK-LABEL: func.func @conv_params
// CHECK: cf.assert {{.*}}, "conv2d: stride must be at least 1"
// CHECK: cf.assert {{.*}}, "conv2d: padding must be at least 0"
// CHECK: tensor.pad
// CHECK: tensor.extract
// CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0], [1, 2, 3, 4], [5, 6]]
// CHECK-NOT: linalg.conv_2d
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-NOT: linalg.conv_2d
// CHECK: return
func.func @conv_params(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %s: index, %p: index) -> tensor<?x4x?x?xf32> {
  %0 = kiln.conv2d %x, %w params [%s, %s, %p, %p] {padding = array<i64: -9223372036854775808, -9223372036854775808>, strides = array<i64: -9223372036854775808, -9223372036854775808>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, index, index, index, index) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Groups (depthwise here): each group's channels gathered by the im2col
// and one matmul batched over the groups, after the channel checks.
// CHECK-LABEL: func.func @conv_groups
// CHECK: cf.assert {{.*}}, "conv2d: the input's channels are not the weight's times groups"
// CHECK: cf.assert {{.*}}, "conv2d: groups do not divide the filters"
// CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0], [1], [2, 3, 4], [5, 6]]
// CHECK-NOT: linalg.conv_2d
// CHECK: return
func.func @conv_groups(%x: tensor<?x4x?x?xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = kiln.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 4} : (tensor<?x4x?x?xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Dilation alone, everything static: linalg's dilated convolution.
// CHECK-LABEL: func.func @conv_dilated
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
func.func @conv_dilated(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x3xf32> {
  %0 = kiln.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>, dilation = array<i64: 2, 3>} : (tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @cross_entropy
// CHECK: cf.assert {{.*}}, "cross_entropy: target out of range"
// CHECK: math.log
// CHECK: tensor.extract
// CHECK: arith.negf
func.func @cross_entropy(%l: tensor<?x10xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %l, %t : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
