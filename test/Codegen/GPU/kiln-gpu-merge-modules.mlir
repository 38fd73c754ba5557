// Tests that the kernels of all gpu.modules end up in one, kiln_kernels,
// with clashing names made unique and every launch pointing at its kernel.
// RUN: kiln-opt %s -kiln-gpu-merge-modules | FileCheck %s

// CHECK: func.func @graph
// CHECK: gpu.launch_func @kiln_kernels::@k blocks
// CHECK: gpu.launch_func @kiln_kernels::@[[K2:k_[0-9]+]] blocks
// CHECK: gpu.launch_func @kiln_kernels::@other blocks
// CHECK: gpu.launch_func @kiln_kernels::@k blocks
// CHECK: gpu.module @kiln_kernels
// CHECK-DAG: gpu.func @k(%{{.*}}: memref<?xf32>) kernel
// CHECK-DAG: gpu.func @[[K2]](%{{.*}}: memref<?xf32>, %{{.*}}: f32) kernel
// CHECK-DAG: gpu.func @other() kernel
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @graph(%m: memref<?xf32>, %f: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xf32>)
    gpu.launch_func @second::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xf32>, %f : f32)
    gpu.launch_func @second::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @first::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xf32>)
    return
  }
  gpu.module @first {
    gpu.func @k(%m: memref<?xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @k(%m: memref<?xf32>, %f: f32) kernel {
      gpu.return
    }
    gpu.func @other() kernel {
      gpu.return
    }
  }
}
