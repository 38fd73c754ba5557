// Tests the GPU pipeline on a graph with a linear layer, gelu, softmax and
// layer_norm: the linear layer calls cuBLAS with a generated kernel as its
// fallback, the kernels are outlined into one gpu.module, row reductions
// use block-wide all-reduces (warp shuffles and barriers in NVVM), math goes
// through libdevice, the host function launches every kernel, and the result
// is one gpu.binary of PTX for the requested architecture; elementwise
// kernels move four floats per load and store (ld.global.v4), and softmax's
// reductions and elementwise steps share one block-per-row kernel.
// RUN: kiln-opt %s -kiln-gpu-pipeline='format=isa' -mlir-print-ir-after=kiln-gpu-merge-modules 2>&1 >/dev/null | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s -kiln-gpu-pipeline='format=isa' -mlir-print-ir-after=convert-gpu-to-nvvm 2>&1 >/dev/null | FileCheck %s --check-prefix=NVVM
// RUN: kiln-opt %s -kiln-gpu-pipeline='format=isa' | FileCheck %s --check-prefix=SM90
// RUN: kiln-opt %s -kiln-gpu-pipeline='format=isa chip=sm_80' | FileCheck %s --check-prefix=SM80

// The host function: device allocations and launches chained in order by
// async tokens (one stream), 256 threads per block.
// GPU-LABEL: func.func @model
// GPU-NOT: memref.alloc
// GPU: gpu.alloc async
// GPU: gpu.launch_func async [%{{.*}}] @kiln_kernels::@model_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// The linear layer: cuBLAS, or the generated kernel where it cannot run.
// GPU: %[[DONE:.*]] = call @kiln_cuda_linear_f32(
// GPU: %[[NOT:.*]] = arith.xori %[[DONE]], %true
// GPU: scf.if %[[NOT]] {
// GPU: gpu.launch_func async [%{{.*}}] @kiln_kernels::@model_kernel_{{[0-9]+}}
// GPU-NOT: memref.copy
// GPU: gpu.wait [%{{.*}}]
// GPU: return
// GPU: gpu.module @kiln_kernels
// GPU: gpu.func @model_kernel
// GPU-SAME: kernel
// Elementwise kernels read and write four aligned floats at once where the
// data allows (the scalar kernel runs otherwise).
// GPU: vector.load {{.*}} {alignment = 16 : i64} : memref<{{.*}}>, vector<4xf32>
// GPU: vector.store {{.*}} {alignment = 16 : i64} : memref<{{.*}}>, vector<4xf32>
// Softmax is one kernel, a block per row: the maximum, the exponentials,
// their sum and the division are phases of it, barriers between them.
// GPU: gpu.func @model_kernel
// GPU: gpu.all_reduce maxnumf
// GPU-NOT: gpu.func
// GPU: gpu.barrier
// GPU-NOT: gpu.func
// GPU: math.exp
// GPU-NOT: gpu.func
// GPU: gpu.all_reduce add
// GPU-NOT: gpu.func
// GPU: gpu.barrier
// GPU-NOT: gpu.func
// GPU: arith.divf
// GPU-NOT: gpu.module

// NVVM: gpu.module @kiln_kernels
// NVVM: llvm.func @model_kernel
// NVVM-SAME: gpu.kernel
// NVVM-DAG: nvvm.read.ptx.sreg.ctaid.x
// NVVM-DAG: nvvm.read.ptx.sreg.tid.x
// NVVM-DAG: nvvm.shfl.sync bfly
// NVVM-DAG: nvvm.barrier
// NVVM-DAG: llvm.call @__nv_erff
// NVVM-DAG: llvm.call @__nv_expf
// NVVM-DAG: llvm.call @__nv_sqrtf
// NVVM-DAG: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// NVVM-DAG: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr

// SM90: llvm.func @model(
// SM90: gpu.launch_func <%{{.*}} : !llvm.ptr> @kiln_kernels::@model_kernel
// SM90: llvm.func @_mlir_ciface_model(
// SM90: gpu.binary @kiln_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// SM90-SAME: .target sm_90
// SM90-SAME: .visible .entry model_kernel(
// SM90-SAME: ld.global.v4.b32
// SM90-SAME: shfl.sync.bfly.b32
// SM90-SAME: bar.sync
// SM90-NOT: gpu.binary

// SM80: gpu.binary @kiln_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// SM80-SAME: .target sm_80

func.func @model(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>,
                 %g: tensor<?xf32>, %be: tensor<?xf32>) -> tensor<?x?xf32> {
  %h = kiln.linear %x, %w, %b : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %a = kiln.gelu %h : tensor<?x?xf32>
  %s = kiln.softmax %a dim 1 : tensor<?x?xf32>
  %n = kiln.layer_norm %s, %g, %be {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %n : tensor<?x?xf32>
}
