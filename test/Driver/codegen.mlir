// Tests `kiln codegen`: each stage can be written, the host CPU is the
// default, --target/--cpu/--features override it, objects hold one
// kiln_entry_NAME per graph, and bad input is a located error.
// RUN: kiln codegen %s -o - --emit=kiln | FileCheck %s --check-prefix=KILN
// RUN: kiln codegen %s -o - --emit=linalg | FileCheck %s --check-prefix=LINALG
// RUN: kiln codegen %s -o - --emit=llvm-dialect | FileCheck %s --check-prefix=LLVMDIALECT
// RUN: kiln codegen %s -o - --emit=llvm --target=x86_64-unknown-linux-gnu --cpu=haswell | FileCheck %s --check-prefix=HASWELL
// RUN: kiln codegen %s -o - --emit=llvm --target=aarch64-unknown-linux-gnu --cpu=neoverse-v1 | FileCheck %s --check-prefix=AARCH64
// RUN: kiln codegen %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
// RUN: echo 'func.func @f() { %0 = kiln.bogus }' > %t.bad.mlir
// RUN: not kiln codegen %t.bad.mlir -o - 2>&1 | FileCheck %s --check-prefix=BAD

// KILN: kiln.mul
// LINALG: linalg.generic
// LINALG-NOT: kiln.
// LLVMDIALECT: llvm.func @_mlir_ciface_scale
// HASWELL: target triple = "x86_64-unknown-linux-gnu"
// HASWELL-DAG: define void @kiln_entry_scale(ptr
// HASWELL-DAG: fmul <8 x float>
// HASWELL-DAG: "target-cpu"="haswell"
// AARCH64: target triple = "aarch64-unknown-linux-gnu"
// AARCH64: "target-cpu"="neoverse-v1"
// OBJ: T _mlir_ciface_scale
// OBJ: T kiln_entry_scale
// BAD: bad.mlir:1:{{[0-9]+}}: error:

func.func @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = kiln.constant dense<3.0> : tensor<f32>
  %0 = kiln.mul %x, %c : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
