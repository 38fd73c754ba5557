// Tests the scalar arithmetic chosen per element type: integer ops wrap
// (addi/muli), bools are logical (or/and), division is float-only, casts
// between integer widths extend or truncate, bool converts unsigned.
// RUN: kiln-opt %s -convert-kiln-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @integers
// CHECK: arith.addi
// CHECK: arith.muli
// CHECK: arith.subi
// CHECK: math.absi
// CHECK: arith.maxsi
// CHECK: arith.cmpi slt
func.func @integers(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi1>) {
  %0 = kiln.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = kiln.mul %0, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = kiln.neg %1 : tensor<4xi64>
  %3 = kiln.abs %2 : tensor<4xi64>
  %4 = kiln.relu %3 : tensor<4xi64>
  %5 = kiln.cmp lt, %4, %a : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %4, %5 : tensor<4xi64>, tensor<4xi1>
}

// CHECK-LABEL: func.func @bools
// CHECK: arith.ori
// CHECK: arith.andi
func.func @bools(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.add %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = kiln.mul %0, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}

// CHECK-LABEL: func.func @casts
// CHECK: arith.extsi {{.*}} : i32 to i64
// CHECK: arith.trunci {{.*}} : i64 to i32
// CHECK: arith.uitofp {{.*}} : i1 to f32
// CHECK: arith.sitofp {{.*}} : i64 to f64
// CHECK: arith.extui {{.*}} : i1 to i64
// CHECK: arith.cmpi ne
func.func @casts(%i: tensor<4xi32>, %l: tensor<4xi64>, %b: tensor<4xi1>) -> (tensor<4xi64>, tensor<4xi32>, tensor<4xf32>, tensor<4xf64>, tensor<4xi64>, tensor<4xi1>) {
  %0 = kiln.cast %i : tensor<4xi32> to tensor<4xi64>
  %1 = kiln.cast %l : tensor<4xi64> to tensor<4xi32>
  %2 = kiln.cast %b : tensor<4xi1> to tensor<4xf32>
  %3 = kiln.cast %l : tensor<4xi64> to tensor<4xf64>
  %4 = kiln.cast %b : tensor<4xi1> to tensor<4xi64>
  %5 = kiln.cast %l : tensor<4xi64> to tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi32>, tensor<4xf32>, tensor<4xf64>, tensor<4xi64>, tensor<4xi1>
}
