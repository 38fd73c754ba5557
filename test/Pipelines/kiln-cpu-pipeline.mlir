// Tests that the CPU pipeline fuses an elementwise chain into one parallel
// loop nest, maps it to OpenMP, and ends in the LLVM dialect with a C
// wrapper per entry point and the status result.
// RUN: kiln-opt %s -kiln-cpu-pipeline -mlir-print-ir-after=convert-linalg-to-parallel-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=LOOPS
// RUN: kiln-opt %s -kiln-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// gelu(x*1.5+0.5)*sigmoid(x) - x/(abs(x)+1): one loop over x, one store.
// LOOPS-LABEL: func.func @chain
// LOOPS: scf.parallel
// LOOPS-NOT: scf.parallel
// LOOPS: memref.store
// LOOPS-NOT: memref.store
// LOOPS: return

// LLVM: llvm.func @chain(
// LLVM: omp.parallel
// LLVM: llvm.func @_mlir_ciface_chain(
// LLVM-NOT: kiln.
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c15 = kiln.constant dense<1.5> : tensor<f32>
  %c05 = kiln.constant dense<0.5> : tensor<f32>
  %c1 = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.mul %x, %c15 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = kiln.add %0, %c05 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %2 = kiln.gelu %1 : tensor<?xf32>
  %3 = kiln.sigmoid %x : tensor<?xf32>
  %4 = kiln.mul %2, %3 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %5 = kiln.abs %x : tensor<?xf32>
  %6 = kiln.add %5, %c1 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %7 = kiln.div %x, %6 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %8 = kiln.sub %4, %7 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %8 : tensor<?xf32>
}
