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

// f32 erf is one rational function of x clamped to [-4, 4], its only
// division free to become a reciprocal estimate.
// CHECK-LABEL: func.func @erf_rational
// CHECK: %[[LO:.*]] = arith.maximumf %arg0
// CHECK: %[[X:.*]] = arith.minimumf %[[LO]]
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-COUNT-6: math.fma {{.*}}, %[[X2]]
// CHECK: %[[P:.*]] = arith.mulf %[[X]]
// CHECK-COUNT-4: math.fma {{.*}}, %[[X2]]
// CHECK: arith.divf %[[P]], {{.*}} fastmath<ninf,arcp>
// CHECK-NOT: math.erf
func.func @erf_rational(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}
