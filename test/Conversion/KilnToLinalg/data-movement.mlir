// Tests the lowering of reshape, transpose, permute, slice, unsqueeze,
// squeeze, expand, cat and detach.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape
// CHECK: cf.assert {{.*}}, "reshape: the element counts differ"
// CHECK: scf.if
// CHECK: tensor.from_elements
// CHECK: tensor.reshape
func.func @reshape(%x: tensor<?x768xf32>, %b: index, %t: index) -> tensor<?x?x12x64xf32> {
  %0 = kiln.reshape %x [%b, %t] : tensor<?x768xf32> -> tensor<?x?x12x64xf32>
  return %0 : tensor<?x?x12x64xf32>
}

// -----

// To 0-d (the product of a full einsum contraction): the new shape is a
// tensor of no sizes.
// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK: cf.assert {{.*}}, "reshape: the element counts differ"
// CHECK: %[[S:.*]] = tensor.from_elements  : tensor<0xindex>
// CHECK: tensor.reshape %{{.*}}(%[[S]]) : (tensor<?x?xf32>, tensor<0xindex>) -> tensor<f32>
func.func @reshape_to_scalar(%x: tensor<?x?xf32>) -> tensor<f32> {
  %0 = kiln.reshape %x : tensor<?x?xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK: linalg.transpose ins({{.*}}) outs({{.*}}) permutation = [0, 2, 1, 3]
func.func @permute(%x: tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32> {
  %0 = kiln.permute %x [0, 2, 1, 3] : tensor<?x?x12x64xf32> -> tensor<?x12x?x64xf32>
  return %0 : tensor<?x12x?x64xf32>
}

// -----

// detach is its input: the next op reads the argument.
// CHECK-LABEL: func.func @detach
// CHECK-NOT: kiln.detach
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<f32>)
// CHECK: math.exp
func.func @detach(%x: tensor<f32>) -> tensor<f32> {
  %0 = kiln.detach %x : tensor<f32>
  %1 = kiln.exp %0 : tensor<f32>
  return %1 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose ins({{.*}}) outs({{.*}}) permutation = [1, 0]
func.func @transpose(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %0 = kiln.transpose %x dims 0, 1 : tensor<?x4xf32> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Python (and ATen) semantics: negative bounds wrap, both bounds are
// clamped into [0, n]; no bound is an error.
// CHECK-LABEL: func.func @slice
// CHECK-NOT: cf.assert
// CHECK: arith.ceildivsi
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [%{{.*}}, 6] [2, 1]
func.func @slice(%x: tensor<?x6xf32>, %s: index, %e: index) -> tensor<?x6xf32> {
  %0 = kiln.slice %x dim 0 [%s : %e step 2] : tensor<?x6xf32> -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// A width the type states (kiln-refine-types: [s, s + 1)) is checked at
// run time: a start out of range makes the slice shorter, and the call
// then runs eagerly.
// CHECK-LABEL: func.func @stated_width
// CHECK: %[[LEN:.*]] = arith.ceildivsi
// CHECK: %[[HOLDS:.*]] = arith.cmpi eq, %[[LEN]], %c1
// CHECK: cf.assert %[[HOLDS]], "slice: the range is not the width its type states"
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}] [%{{.*}}, %[[LEN]]] [1, 1]
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<?x1xf32>
func.func @stated_width(%x: tensor<?x?xf32>, %s: index) -> tensor<?x1xf32> {
  %c1 = arith.constant 1 : index
  %e = arith.addi %s, %c1 : index
  %0 = kiln.slice %x dim 1 [%s : %e] : tensor<?x?xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// The new size-1 dim is grouped with its neighbour.
// CHECK-LABEL: func.func @unit_dims
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]]
func.func @unit_dims(%x: tensor<?x3xf32>, %y: tensor<?x3x1xf32>) -> (tensor<?x1x3xf32>, tensor<?x3xf32>) {
  %0 = kiln.unsqueeze %x dim 1 : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %1 = kiln.squeeze %y dim 2 : tensor<?x3x1xf32> -> tensor<?x3xf32>
  return %0, %1 : tensor<?x1x3xf32>, tensor<?x3xf32>
}

// -----

// A dim that is 1 only at run time: a shape check, then the unit dim.
// CHECK-LABEL: func.func @squeeze_dynamic
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[N]], %c1
// CHECK: cf.assert %[[ONE]], "squeeze of a dim whose size is not 1"
// CHECK: %[[UNIT:.*]] = tensor.cast %{{.*}} : tensor<?x3xf32> to tensor<1x3xf32>
// CHECK: tensor.collapse_shape %[[UNIT]] {{\[\[}}0, 1]] : tensor<1x3xf32> into tensor<3xf32>
func.func @squeeze_dynamic(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = kiln.squeeze %x dim 0 : tensor<?x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-DAG: #[[ROW0:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[ROW0]], #[[ID]]]
func.func @expand(%x: tensor<1x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = kiln.expand %x [%n] : tensor<1x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @cat
// CHECK: tensor.empty
// CHECK: tensor.insert_slice
// CHECK: cf.assert {{.*}}, "cat: the inputs' shapes differ"
// CHECK: tensor.extract_slice
// CHECK: tensor.insert_slice
func.func @cat(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) -> tensor<?x8xf32> {
  %0 = kiln.cat %a, %b dim 1 : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
