// Tests compiled kiln.random against the eager runtime's rand and randn:
// the same SplitMix64 counters and Box-Muller pairs element for element, at
// sizes the function never names (odd counts leave a pair half used), f32
// and f64, and seeds above 2^63.
// RUN: kiln-e2e %s --work %t --cxx %clangxx %e2e_flags | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 6 passed, 0 failed

// E2E: @draws idx=3 idx=5 idx=7
// E2E: @draws idx=1 idx=1 idx=-3
// E2E: @draws idx=0 idx=4 idx=11
func.func @draws(%m: index, %n: index, %seed: index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x3xf64>, tensor<?x?xf64>) {
  %u = kiln.random uniform %seed [%m, %n] : tensor<?x?xf32>
  %g = kiln.random normal %seed [%m, %n] : tensor<?x?xf32>
  %h = kiln.random normal %seed [%n] : tensor<?x3xf64>
  %v = kiln.random uniform %seed [%n, %m] : tensor<?x?xf64>
  return %u, %g, %h, %v : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x3xf64>, tensor<?x?xf64>
}

// Static sizes.
// E2E: @static_noise idx=42
// E2E: @static_noise idx=7
// E2E: @static_noise idx=-1
func.func @static_noise(%seed: index) -> tensor<5x7xf32> {
  %g = kiln.random normal %seed : tensor<5x7xf32>
  return %g : tensor<5x7xf32>
}
