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
// CHECK: %[[R:.*]] = arith.divf %[[P]], {{.*}} fastmath<ninf,arcp>
// CHECK: %[[LO1:.*]] = arith.maximumf %[[R]]
// CHECK: arith.minimumf %[[LO1]]
// CHECK-NOT: math.erf
func.func @erf_rational(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// erf(x * k) for a constant k folds k into the coefficients: the clamp
// becomes [-4/k, 4/k] and the multiplication goes.
// CHECK-LABEL: func.func @erf_scaled
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<5.65685415> : vector<16xf32>
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-5.65685415> : vector<16xf32>
// CHECK-NOT: arith.mulf %arg0
// CHECK: %[[C:.*]] = arith.maximumf %arg0, %[[LO]]
// CHECK: %[[Y:.*]] = arith.minimumf %[[C]], %[[HI]]
// CHECK: arith.mulf %[[Y]], %[[Y]]
func.func @erf_scaled(%x: vector<16xf32>) -> vector<16xf32> {
  %k = arith.constant dense<0.70710678> : vector<16xf32>
  %y = arith.mulf %x, %k : vector<16xf32>
  %0 = math.erf %y : vector<16xf32>
  return %0 : vector<16xf32>
}

// f32 exp: x clamped (compare and select, which keeps NaN), n = round(x /
// ln2) by the shift trick, whose bits shifted into the exponent field give
// the scale 2^(n-1) without a float-to-int conversion or a clamp of n.
// CHECK-LABEL: func.func @exp_shift
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %arg0
// CHECK: %[[X0:.*]] = arith.select %[[BELOW]], {{.*}}, %arg0
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X0]]
// CHECK: %[[X:.*]] = arith.select %[[ABOVE]], {{.*}}, %[[X0]]
// CHECK: %[[Z:.*]] = math.fma %[[X]], {{.*}}, %[[SHIFT:.*]] : vector<16xf32>
// CHECK: %[[N:.*]] = arith.subf %[[Z]], %[[SHIFT]]
// CHECK: %[[R0:.*]] = math.fma %[[N]], {{.*}}, %[[X]]
// CHECK: %[[R:.*]] = math.fma %[[N]], {{.*}}, %[[R0]]
// CHECK-COUNT-4: math.fma
// CHECK: %[[TWICE:.*]] = arith.addf
// CHECK: %[[BITS:.*]] = arith.bitcast %[[Z]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[SBITS:.*]] = arith.shli %[[BITS]]
// CHECK: %[[SCALE:.*]] = arith.bitcast %[[SBITS]] : vector<16xi32> to vector<16xf32>
// CHECK: arith.mulf %[[TWICE]], %[[SCALE]]
// CHECK-NOT: math.exp
func.func @exp_shift(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// exp(-|x|) (sigmoid's) cannot overflow: only the lower clamp remains.
// CHECK-LABEL: func.func @exp_of_non_positive
// CHECK: arith.cmpf olt
// CHECK-NOT: arith.cmpf ogt
// CHECK: return
func.func @exp_of_non_positive(%x: vector<16xf32>) -> vector<16xf32> {
  %a = math.absf %x : vector<16xf32>
  %n = arith.negf %a : vector<16xf32>
  %0 = math.exp %n : vector<16xf32>
  return %0 : vector<16xf32>
}
