//===- Passes.td - Kiln's GPU codegen passes ---------------*- tablegen -*-===//
//
// The codegen passes the GPU's: device buffers, the grid mapping and row kernels, one binary per file.
// They work on linalg, SCF and memrefs after the conversion from the kiln
// dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_PASSES_TD
#define KILN_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGpuDeviceBuffers : Pass<"kiln-gpu-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Keep every buffer of a GPU graph in device memory";
  let description = [{
    On bufferized host functions of the GPU pipeline, whose arguments and
    results are device buffers: `memref.alloc` becomes `gpu.alloc` and
    `memref.dealloc` becomes `gpu.dealloc` (the runtime's caching device
    allocator, in stream order), and `memref.copy` becomes `linalg.copy`,
    which the pipeline then runs as a kernel like any other loop nest.
    Nothing on the host reads or writes tensor data afterwards. Buffers
    that only host code uses (shapes for `memref.reshape`, the lists of
    pointers and flags the deallocation pipeline hands its helper) stay in
    host memory. Where host code reads or writes a
    single value of device memory (a flag that a kernel computed, as the
    check of embedding ids does), it goes through a host copy and
    `gpu.memcpy`; reading more is an error. A call of a host function with
    buffers (an `allow_in_graph` function) gets host copies: each device
    operand's span goes over with one `gpu.memcpy` and the function sees a
    host view with the same offset and strides; its result (a contiguous
    host buffer from `abi::returnTensor`) is copied into a device buffer
    that takes its place, then handed back to the runtime through
    `kiln_release_returned_buffer`. A linalg op with no parallel loop (a reduction
    of every dim, a fill of a single value) is put in a parallel loop of
    one iteration, so that it too becomes a kernel instead of host loops.

    Example:

    ```mlir
    %a = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %a : memref<?xf32, strided<[?], offset: ?>> to memref<?xf32>
    ```

    becomes

    ```mlir
    %a = gpu.alloc (%n) : memref<?xf32>
    linalg.copy ins(%x : memref<?xf32, strided<[?], offset: ?>>) outs(%a : memref<?xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnGpuMapParallelLoops : Pass<"kiln-gpu-map-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Map each loop nest onto GPU blocks and threads";
  let description = [{
    Prepares every outermost `scf.parallel` of a host function for
    `convert-parallel-loops-to-gpu` by giving it a mapping:

    * A row reduction, an `scf.parallel` over rows whose body is one
      `scf.for` carrying an accumulator combined by a single arithmetic op
      (the sums and maxima of softmax, layer_norm and `sum`), runs one
      block per row: the block's threads each reduce a strided part of the
      row, `gpu.all_reduce` combines the partial values through warp
      shuffles and shared memory, and thread 0 stores the result. The
      nests over the same rows next to it (the fills of its accumulators,
      elementwise steps over the rows' columns, further reductions) join
      the same kernel as phases, separated by `gpu.barrier`, when every
      buffer they write is only accessed at each nest's own row: fills run
      on thread 0, elementwise phases stride the row's columns over the
      threads (four columns at a time with vector accesses, as below, where
      the data allows; a reduction's fold likewise loads four consecutive
      elements at once). Softmax and layer_norm are one kernel each.
      Contractions (the reduced loop reads two buffers, as matmul and
      linear do) are not row reductions: their outputs are many and each
      is short, and they run one thread per output element below.
    * Any other nest is collapsed into one dimension (any rank, dynamic
      sizes), tiled by the block size with a bounds check, and mapped to
      blocks and threads along x, so that consecutive threads touch
      consecutive elements (coalesced loads and stores).
    * Where such a nest reads or writes a buffer contiguously along its
      last dim (the last index is the last induction variable), each thread
      instead handles `vector-width` consecutive iterations: those accesses
      become one aligned `vector.load`/`vector.store` each (PTX
      `ld.global.v4`), the rest of the body runs once per lane. The
      vectorized grid runs when, at run time, the last dim's size is a
      multiple of the width and every such buffer's last stride is 1 and
      its address, offset and other strides are multiples of the width (so
      that every vector access is aligned); otherwise the scalar grid runs.

    A reduction over several dims (a perfect `scf.for` nest carrying the
    accumulator) is first coalesced into one loop. Nested `scf.parallel`
    loops run sequentially inside their thread. A load or store of device
    memory left in host code afterwards is an error (it would fault).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"4",
           "Consecutive elements per thread where data is contiguous (1: off)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def KilnGpuMergeModules : Pass<"kiln-gpu-merge-modules", "ModuleOp"> {
  let summary = "Put all kernels of a module into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel. This pass
    moves every kernel into the first one (renamed `kiln_kernels`),
    renaming kernels whose names clash, and updates each `gpu.launch_func`,
    so that a compiled file carries one device binary, loaded once, whose
    bytes stitched C++ embeds as one array.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KilnGpuMatmulToCublas : Pass<"kiln-gpu-matmul-to-cublas", "ModuleOp"> {
  let summary = "Call cuBLAS for float products, the generated kernel as fallback";
  let description = [{
    On bufferized IR over device buffers, replaces each float product that
    kiln-matmul-to-blas would hand to BLAS (the shared matcher,
    kiln/Codegen/Common/BlasProducts.h) with a call of the runtime's
    `kiln_cuda_gemm_*`, `kiln_cuda_linear_*` or `kiln_cuda_bmm_*`, which
    run cuBLAS (loaded at run time) and return whether they did: the
    original op stays behind an `scf.if` and becomes the generated kernel
    that runs when cuBLAS is missing or an operand has no unit stride.
    conv2d stays generated code.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KILN_CODEGEN_GPU_PASSES_TD
