// Polynomial float32 math in compiled code against the eager runtime in
// units in the last place, swept over the whole input range: exp (compiled
// within 1.95 ulp of exp in double, eager within 2), and the sigmoid built
// on it (its division a reciprocal estimate with a Newton step).
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK: 5 passed, 0 failed

// E2E-ULP: 4

// E2E: @exp f32[400000]{-104,89}
// E2E: @exp f32[4000]{-1,1}
// E2E: @exp f32[1000]*40!
func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = kiln.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// E2E: @sigmoid f32[400000]{-90,20}
// E2E: @sigmoid f32[1000]*40!
func.func @sigmoid(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = kiln.sigmoid %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
