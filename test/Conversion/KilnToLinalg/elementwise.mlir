// Tests that elementwise kiln ops become one linalg.generic each, with
// broadcasting in the indexing maps and, for dynamic dims that may be 1 at
// run time, a shape check and an scf.if that broadcasts only then.
// RUN: kiln-opt %s -convert-kiln-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_add
// CHECK-NOT: cf.assert
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
func.func @bias_add(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = kiln.add %x, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Both dims dynamic in both operands: checks and run-time broadcasting, one
// scf.if per operand for both of its dims, whose copy reads the operand at
// min(index, size - 1) along them (marked kiln.broadcast_copy; nothing is
// copied, nor filled, when one of them is 0: the result has no element, or
// a check failed).
// CHECK-LABEL: func.func @dynamic_broadcast
// CHECK: cf.assert {{.*}}, "operand shapes cannot be broadcast"
// CHECK: %[[A0SMALL:.*]] = arith.cmpi ult, %[[A0:[a-z0-9_]+]],
// CHECK: %[[A1SMALL:.*]] = arith.cmpi ult, %[[A1:[a-z0-9_]+]],
// CHECK: %[[ASMALL:.*]] = arith.ori %[[A0SMALL]], %[[A1SMALL]]
// CHECK: scf.if %[[ASMALL]]
// CHECK: scf.if
// CHECK-NOT: linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty
// CHECK-NEXT: scf.yield %[[EMPTY]]
// CHECK: } else {
// CHECK: %[[LAST0:.*]] = arith.subi %[[A0]],
// CHECK: %[[LAST1:.*]] = arith.subi %[[A1]],
// CHECK: linalg.generic {{.*}} attrs = {kiln.broadcast_copy}
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: %[[I1:.*]] = linalg.index 1
// CHECK: %[[J0:.*]] = arith.minui %[[I0]], %[[LAST0]]
// CHECK: %[[J1:.*]] = arith.minui %[[I1]], %[[LAST1]]
// CHECK: tensor.extract %arg0[%[[J0]], %[[J1]]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %arg0
// CHECK: scf.if
// CHECK: tensor.extract %arg1
// CHECK: scf.yield %arg1
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @dynamic_broadcast(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.mul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Dims that derive from one source need no check: x * sigmoid(x).
// CHECK-LABEL: func.func @same_source
// CHECK-NOT: cf.assert
// CHECK-NOT: scf.if
// CHECK: return
func.func @same_source(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.sigmoid %x : tensor<?x?xf32>
  %1 = kiln.mul %x, %0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A result re-broadcast against an operand its size was broadcast from
// (x * b, then + b): the size is the first broadcast's, with no new check,
// and only b, which may still be 1, is copied (the same copy: CSE'd
// later).
// CHECK-LABEL: func.func @rebroadcast
// CHECK-COUNT-2: cf.assert {{.*}}, "operand shapes cannot be broadcast"
// CHECK: %[[PROD:.*]] = linalg.generic {{.*}} ins(
// CHECK: arith.mulf
// CHECK-NOT: cf.assert
// CHECK-NOT: scf.if %{{.*}} -> (tensor<?x?xf32>)
// CHECK: scf.if %{{.*}} -> (tensor<?xf32>)
// CHECK: tensor.extract %arg1
// CHECK-NOT: scf.if %{{.*}} -> (tensor<?x?xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[PROD]], %{{.*}} : tensor<?x?xf32>, tensor<?xf32>)
// CHECK: arith.addf
func.func @rebroadcast(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.mul %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.add %0, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// gelu's tanh form as x sigmoid(2u): no math.tanh, no 1 + tanh(u).
// CHECK-LABEL: func.func @functions
// CHECK: math.exp
// CHECK: math.erf
// CHECK-NOT: math.tanh
// CHECK: math.absf
// CHECK: math.exp
// CHECK: arith.maximumf
func.func @functions(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.exp %x : tensor<8xf32>
  %1 = kiln.gelu %0 : tensor<8xf32>
  %2 = kiln.gelu %1 approximate tanh : tensor<8xf32>
  %3 = kiln.relu %2 : tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// sigmoid as s = 1 / (1 + exp(-|x|)), then s or exp(-|x|) * s by the sign:
// the denominator lies in [1, 2], so its division may be estimated.
// CHECK-LABEL: func.func @sigmoid
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: %[[E:.*]] = math.exp
// CHECK: %[[D:.*]] = arith.addf {{.*}}, %[[E]]
// CHECK: %[[S:.*]] = arith.divf {{.*}}, %[[D]] fastmath<ninf,arcp>
// CHECK: arith.cmpf oge
// CHECK: arith.mulf %[[E]], %[[S]]
// CHECK: arith.select
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.sigmoid %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Comparisons: ordered except ne; bools compare unsigned.
// CHECK-LABEL: func.func @compare
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpi ult
// CHECK: arith.select
func.func @compare(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = kiln.cmp lt, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = kiln.cmp ne, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = kiln.cmp lt, %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = kiln.where %b, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// -----

// float -> int saturates and maps NaN to 0, as the runtime does.
// CHECK-LABEL: func.func @saturating_cast
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf uno
// CHECK: arith.fptosi
// CHECK: arith.select
func.func @saturating_cast(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = kiln.cast %x : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 16-bit floats compute in f32 and round per op.
// CHECK-LABEL: func.func @half
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.exp {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = kiln.exp %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}
