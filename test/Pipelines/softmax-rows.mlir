// Tests that the CPU pipeline runs softmax as one parallel loop over blocks
// of rows, each computing the row maximum, the exponentials and their sum
// in registers (scf.for with iter_args; the sum reassociable so that it
// vectorizes) and the multiplication by its reciprocal, with no pass over the whole tensor between.
// RUN: kiln-opt %s -kiln-cpu-pipeline -mlir-print-ir-after=kiln-parallelize-outer-loop 2>&1 >/dev/null | FileCheck %s
// The row maximum reaches LLVM as its maxnum intrinsic, a reduction LLVM's
// vectorizer knows (compares and selects in its place ran it one element
// at a time: softmax 4x slower):
// RUN: kiln-opt %s -kiln-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @softmax
// LLVM: llvm.intr.maxnum

// CHECK-LABEL: func.func @softmax
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to ({{.*}}) step (%c16)
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
