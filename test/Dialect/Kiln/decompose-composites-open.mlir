// Tests that kiln-decompose-composites refuses a graph whose types are still
// open (its decompositions read sizes), and that a composite on a tensor of
// known element type but open rank verifies before it is typed.
// RUN: kiln-opt %s -split-input-file -kiln-decompose-composites -verify-diagnostics

func.func @open(%x: tensor<*x!kiln.open>) -> tensor<*x!kiln.open> {
  // expected-error@+1 {{'kiln.flatten' op has open types: type the graph first (kiln-refine-types)}}
  %0 = kiln.flatten %x dims 0 to -1 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

func.func @open_rank(%f: tensor<*xf64>) -> tensor<?x!kiln.open> {
  %n = arith.constant 6 : index
  // expected-error@+1 {{'kiln.reshape' op has open types}}
  %0 = kiln.reshape %f [%n] : tensor<*xf64> -> tensor<?x!kiln.open>
  %1 = kiln.flatten %f dims 0 to -1 : tensor<*xf64> -> tensor<*x!kiln.open>
  return %0 : tensor<?x!kiln.open>
}
