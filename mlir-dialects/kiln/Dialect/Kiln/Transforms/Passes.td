//===- Passes.td - Kiln's own transformation passes --------*- tablegen -*-===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Runtime ABI
//===----------------------------------------------------------------------===//

def KilnLowerShapeAsserts : Pass<"kiln-lower-shape-asserts", "ModuleOp"> {
  let summary = "Turn shape checks into the entry points' status result";
  let description = [{
    Conversion to linalg states every shape condition the eager runtime
    enforces as a `cf.assert`, and keeps the code in bounds when one fails.
    This pass gives each public function one more result, an `i32` status
    (0: every check held, 1: one failed), computed from the asserts in its
    body, and erases them. The caller that sees status 1 re-runs the graph
    eagerly, which raises the runtime's own `kiln::Error` for the same
    inputs (docs/abi.md), so compiled and eager code report errors alike.

    Asserts nested in regions (none are emitted there today) are left for
    the lowering of `cf.assert`, which aborts.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

def KilnOpenMpSchedule : Pass<"kiln-openmp-schedule"> {
  let summary = "Hand out parallel loops' iterations to threads as they finish";
  let description = [{
    `convert-scf-to-openmp` makes each parallel loop an `omp.wsloop` with
    the static schedule: each thread gets one equal share up front, so a
    thread that the machine slows (another process on its core, a page
    fault) keeps the others waiting at the loop's end. This pass lets work
    move to whichever thread is free: a loop over row tiles (a step above
    1: few, heavy iterations) gets the dynamic schedule, one tile at a
    time; a loop over elements (step 1: millions of light iterations) the
    guided schedule, chunks large first and smaller towards the end, for a
    few atomic operations per loop. Measured on benchmarks (a) and (b)
    (docs/benchmarks.md): steadier and, on a busy machine, faster than
    static; dynamic on element loops was a thousand times slower.
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect"];
}

def KilnApproximateMath : Pass<"kiln-approximate-math"> {
  let summary = "Replace transcendental math ops with vectorizable polynomials";
  let description = [{
    Rewrites `math.tanh`, `math.log` and friends on f32 (scalars and
    vectors) with upstream's polynomial approximations, so that the loops
    holding them vectorize instead of calling libm one element at a time.
    f32 `math.exp` is Kiln's own: 2^n exp(r) with n from the shift trick and
    the scale built from its bits (12 multiply-class instructions where
    upstream's takes 15; within 1.95 ulp, results below 2^-125 flush to
    zero). f32 `math.erf` becomes one rational function of x clamped to
    [-4, 4] (4.5e-7 absolute), its result clamped to [-1, 1], a constant
    factor of its operand folded into the coefficients, and its division
    free to become a reciprocal estimate. Runs before the math-to-LLVM
    lowering.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def KilnParallelizeOuterLoop : Pass<"kiln-parallelize-outer-loop"> {
  let summary = "Keep one parallel dim per loop nest, run the rest in order";
  let description = [{
    `convert-linalg-to-parallel-loops` makes every parallel dim of a nest
    one `scf.parallel`; mapped to OpenMP, a multi-dim loop is collapsed
    into one index that each iteration divides back into coordinates, which
    costs a division per element and stops the inner loop from
    vectorizing. This pass keeps the outermost dim of each outermost
    `scf.parallel` parallel and turns the other dims, and any nested
    `scf.parallel`, into `scf.for` loops, so that threads split rows and
    the innermost loop stays a plain, vectorizable loop.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def KilnPrefetchNextRow : Pass<"kiln-prefetch-next-row"> {
  let summary = "Prefetch the next row of big arrays while a row tile's row runs";
  let description = [{
    After `kiln-fuse-row-loops`, a row tile runs all of a chain's ops on one
    row (several loops over its columns) before the next. The first of
    those loops reads the row from memory, and only then does computation
    start; the hardware prefetcher, which follows the addresses the loops
    touch, has not fetched the next row by the time the row is done. This
    pass adds, at the start of each row, a loop over the next row's cache
    lines (64 bytes apart) that prefetches each big array the row's first
    column loop reads (`memref.prefetch` read) and its last one writes
    (write, saving the read-for-ownership stall): the next row streams in
    while this one computes. Arrays are big when they come from outside the
    parallel loop of row tiles; the last row prefetches itself.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnFuseRowLoops : Pass<"kiln-fuse-row-loops"> {
  let summary = "Run the row loops of a row tile as one loop over its rows";
  let description = [{
    After `kiln-tile-and-fuse-rows` and the lowering to loops, each row
    tile of a chain (softmax, a norm, the elementwise ops around them) is a
    sequence of loops over the tile's rows, one per op: the row maximum of
    every row, then the exponentials of every row, then their sums... Each
    pass streams the whole tile (tens of KB per array) through the cache.
    This pass fuses consecutive loops over the same rows (`scf.for` from 0
    to the same bound, step 1, inside an `scf.parallel`) into one, so that
    every op runs on one row before the next row starts and the row's
    intermediates stay in L1.

    Fusion is legal when every buffer either loop writes is accessed, in
    both loops, only at the loop's own row (first index = the induction
    variable, through one memref value); ops between the loops that do not
    touch memory (allocations, views) move above the first one, and a
    `memref.copy` of whole row buffers becomes a row loop first.

    Then, inside each row, consecutive loops over the same columns fuse
    the same way (upstream's `fuseIndependentSiblingForLoops`, after this
    pass's legality check): when every buffer either writes is accessed
    only at the loop's own column of one row, and the ops between them
    touch nothing the first one writes or reads-after-write. So the
    exponentials and their sum, or the add and the mean, are one loop; the
    row maximum and the exponentials are not (those read the maximum,
    stored after its loop).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Elementwise fusion that never fuses into a contraction";
  let description = [{
    Upstream's elementwise fusion (with its patterns for reshapes and
    constants), with one more rule: a producer is not fused into a
    contraction (matmul, linear). Fused there, its body would be recomputed
    for every step of the contraction (a layer_norm feeding a linear, once
    per output feature), and the contraction would no longer match the
    BLAS call. Fusion into other reductions (the sum of a softmax) stays.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnTileAndFuseRows : Pass<"kiln-tile-and-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Tile each output computation by rows and fuse its producers";
  let description = [{
    On tensors, after elementwise fusion: every linalg op whose results no
    other linalg op consumes (the end of a chain) is tiled along its
    outermost, parallel dim into an `scf.forall` over blocks of rows, and
    the linalg ops that produce its operands (reductions included) are
    fused into the tile: softmax, norms and the elementwise ops around them
    then run row block by row block, their intermediates in cache, instead
    of one pass over memory per op. Contractions are left whole (the BLAS
    call wants the whole matrix).
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"16",
           "Rows per tile">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnLowerReductions : Pass<"kiln-lower-reductions"> {
  let summary = "Lower reduction generics to loops that carry the accumulator";
  let description = [{
    On bufferized IR, rewrites each `linalg.generic` whose trailing loops
    reduce into an `scf.parallel` over its parallel dims around `scf.for`
    loops over the reduced dims that carry the accumulator as an
    `iter_args` value: the output element is loaded once and stored once.
    (Upstream's loop lowering reads and writes the output at every step,
    and since the output may alias an input, nothing can keep the
    accumulator in a register or vectorize the loop.) Float sums are built
    with `reassoc` (kiln-to-linalg marks them), so LLVM vectorizes them.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnMatmulToBlas : Pass<"kiln-matmul-to-blas", "ModuleOp"> {
  let summary = "Call the runtime's BLAS gemm for 2-d float matmuls";
  let description = [{
    On bufferized IR, replaces each `linalg.matmul` of f32 or f64 memrefs
    with a call to the runtime's `kiln_gemm_f32`/`kiln_gemm_f64` (C
    interface: three strided memref descriptors, C += A * B), and each
    contraction of `linear`'s form (y[..., o] += x[..., k] * w[o, k], the
    weight read transposed) with `kiln_linear_f32`/`kiln_linear_f64` (x
    and y as unranked memrefs of any rank), and each float
    `linalg.conv_2d_nchw_fchw` without dilation with `kiln_conv2d_f32`/
    `kiln_conv2d_f64` (input already padded, strides as arguments: the
    runtime lays the input out as columns and runs one gemm per image, as
    the eager conv2d does). The runtime calls OpenBLAS,
    which reads transposed operands in place. The ops around it,
    a bias and activation epilogue included, stay generated code and fuse
    among themselves. Chosen by measurement over the scalar loops of
    `convert-linalg-to-parallel-loops` (docs/pipelines.md).

    With `target=cuda` (the GPU pipeline, on device buffers) the products
    call `kiln_cuda_gemm_*`, `kiln_cuda_linear_*` and `kiln_cuda_bmm_*`,
    which run cuBLAS (loaded at run time) and return whether they did: the
    original op stays behind an `scf.if` and becomes the generated kernel
    that runs when cuBLAS is missing or an operand has no unit stride.
    conv2d stays generated code there.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu (OpenBLAS) or cuda (cuBLAS, with the generated kernel as fallback)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}


//===----------------------------------------------------------------------===//
// GPU code generation
//===----------------------------------------------------------------------===//

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
    Option<"cpuEmulation", "cpu-emulation", "bool", /*default=*/"false",
           "For running the grids as serial loops on the CPU: a row "
           "reduction's threads combine their partial values in a serial loop "
           "instead of gpu.all_reduce (which has no CPU lowering), and host "
           "code is not checked for device accesses">,
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

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
