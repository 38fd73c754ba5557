// Tests that f32 transcendental functions become polynomial arithmetic
// (which vectorizes) instead of libm calls.
// RUN: kiln-opt %s -kiln-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @math
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: return
func.func @math(%x: f32) -> (f32, f32, f32) {
  %0 = math.erf %x : f32
  %1 = math.exp %x : f32
  %2 = math.tanh %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: return
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}
