//===- Passes.td - Kiln's CPU codegen passes ---------------*- tablegen -*-===//
//
// The codegen passes the host CPU's: row tiling, loop fusion, parallelization, OpenMP scheduling, prefetching, approximate math.
// All but kiln-attention-to-runtime and kiln-image-ops-to-runtime work on linalg, SCF and memrefs after
// the conversion from the kiln dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_CPU_PASSES_TD
#define KILN_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnAttentionToRuntime : Pass<"kiln-attention-to-runtime", "ModuleOp"> {
  let summary = "Run attention as the runtime's fused kernel";
  let description = [{
    Before the conversion to linalg: each
    `kiln.scaled_dot_product_attention` becomes a call of the runtime's
    fused kernel (`kiln_attention_f32` and friends, the kernel eager runs:
    blocks of queries against blocks of keys with an online softmax, so
    the `[..., L, S]` scores are never in memory). Its operands go as
    rank-4 tensors, its result is a buffer the graph owns, and sizes eager
    rejects fail the graph call, so that eager raises the error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnImageOpsToRuntime : Pass<"kiln-image-ops-to-runtime", "ModuleOp"> {
  let summary = "Run convolutions and the image ops' gradients as the "
                "runtime's functions";
  let description = [{
    Before the conversion to linalg: each batched `kiln.conv2d` becomes a
    call of the runtime's convolution (`kiln_conv2d_call_f32`/`_f64`, the
    one eager runs: one image's columns at a time, then a product per
    group), its strides, padding, dilation and groups as i64 values
    (attributes or run-time operands). The backward graphs' image ops call
    the functions eager autograd runs: each used result of
    `kiln.conv2d_backward` (`kiln_conv2d_input_grad_call_*`,
    `kiln_conv2d_weight_grad_call_*`), `kiln.pool2d_backward`
    (`kiln_max_pool2d_backward_call_*`, `kiln_avg_pool2d_backward_call_*`)
    and `kiln.adaptive_avg_pool2d_backward`. 16-bit floats compute in f32,
    as eager does. Each result is a buffer the graph owns, and parameters
    eager rejects fail the graph call, so that eager raises the error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnTileAndFuseRows : Pass<"kiln-tile-and-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Tile each output computation by rows and fuse its producers";
  let description = [{
    On tensors, after elementwise fusion: every linalg op whose results no
    other linalg op consumes (the end of a chain) is tiled into an
    `scf.forall` over blocks of rows (the last of its leading parallel
    loops, the innermost left whole; one index of each loop before it, so
    a [B, T, C] chain has B x T/rows tiles even when B is 1), and the
    linalg ops that produce its operands (reductions included) are fused
    into the tile: softmax, norms and the elementwise ops around them then
    run row block by row block, their intermediates in cache, instead of
    one pass over memory per op. Contractions and convolutions are left
    whole, before the tiles: a BLAS call on a block of 16 rows runs at
    about half the speed of one on the whole matrix, which the runtime
    splits over the threads itself.
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"16",
           "Rows per tile">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
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

def KilnParallelizeOuterLoop : Pass<"kiln-parallelize-outer-loop"> {
  let summary = "Keep one parallel dim per loop nest, run the rest in order";
  let description = [{
    `convert-linalg-to-parallel-loops` makes every parallel dim of a nest
    one `scf.parallel`; mapped to OpenMP, a multi-dim loop is collapsed
    into one index that each iteration divides back into coordinates, which
    costs a division per element and stops the inner loop from
    vectorizing. This pass keeps every dim but the innermost of each
    outermost element nest parallel (all dims of a nest whose body loops:
    a row tile, a reduction), and turns the rest, and any nested
    `scf.parallel`, into `scf.for` loops, so that threads split rows (of a
    [B, T, C] nest even when B is 1), a division per row at most, and the
    innermost loop stays a plain, vectorizable loop.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def KilnOpenMpSchedule : Pass<"kiln-openmp-schedule"> {
  let summary = "Hand out parallel loops' iterations to threads as they finish";
  let description = [{
    `convert-scf-to-openmp` makes each parallel loop an `omp.wsloop` with
    the static schedule: each thread gets one equal share up front, so a
    thread that the machine slows (another process on its core, a page
    fault) keeps the others waiting at the loop's end. This pass lets work
    move to whichever thread is free. A wsloop directly in its parallel
    region, over one induction variable and without clauses, becomes a
    loop in which each thread takes the next chunk of iterations from a
    counter in the function's frame (one atomic add; the counter zeroed
    before the region), 16 chunks per thread, then the wsloop's barrier.
    libomp's dynamic and guided schedules did the same, but Debian's
    libomp formats its debug trace strings on every `__kmpc_dispatch_next`
    (vsnprintf: a tenth of a compiled MoE's process on a Xeon). Other
    wsloops keep libomp's schedules: dynamic over row tiles (a step above
    1), four tiles at a time; guided over elements.
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::arith::ArithDialect"];
}

def KilnParallelWhereItPays : Pass<"kiln-parallel-where-it-pays"> {
  let summary = "Fork threads for a loop nest only when its work pays for it";
  let description = [{
    Every outermost `scf.parallel` would become an OpenMP parallel region,
    and forking a team costs microseconds whatever the loop's size: a
    64-element chain ran 3-5x slower than its single-threaded self. This
    pass estimates each loop nest's work at run time (its trip counts times
    the operations of its body, counted down the nest; a row tile's inner
    bound counts as its constant tile size) and runs it threaded only when
    the estimate reaches `min-work` and the loop has two iterations or
    more (a single one cannot use a second thread, and inside an OpenMP
    region the runtime's own calls, a BLAS product, would run on one
    thread); otherwise a serial copy of the nest
    (`scf.for` loops) runs, with no call into the OpenMP runtime. The
    threshold is measured (docs/benchmarks.md), as ATen's grain size is.
    In a function of more than `outline-above` nests (a graph of hundreds
    of ops), each nest is one private function of its outer loop's bounds
    instead: the serial branch calls it over the whole range, the threaded
    loop per iteration (rows, row tiles) or per chunk of elements, so
    that LLVM optimizes one body per nest, in functions of their own.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"1048576",
           "Estimated operations below which a loop nest runs serially">,
    Option<"outlineAbove", "outline-above", "int64_t", /*default=*/"8",
           "In a function with more loop nests than this, each nest becomes "
           "one function of its outer loop's bounds, never inlined, that "
           "the serial branch and the threaded loop both call">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def KilnSplitLargeFunctions : Pass<"kiln-split-large-functions", "ModuleOp"> {
  let summary = "Cut a function of many ops into a chain of calls to functions of fewer";
  let description = [{
    On tensors, after tiling, before bufferization. A graph of thousands
    of ops (a recurrence unrolled over its steps) is one function of tens
    of thousands of LLVM instructions: its glue (buffers, shapes, the
    dispatch of each loop nest) after the nests themselves are outlined. LLVM's optimizations and register allocation
    take time superlinear in a function's size (the GRU of
    benchmarks/compile_time.py: its graph function took 1.0 s of LLVM over
    4 steps, 2.2 s over 8, 6.0 s over 16). This pass cuts the top-level ops
    of each function of more than twice `ops` operations (nested ones
    counted), in order, into runs of about `ops`; each run but the last
    becomes a private function, never inlined, of the values it reads
    from before it (constants are cloned in), returning the values read
    after it, and a call takes its place; each cut is where the fewest
    values live across it. The arguments' dims and empty tensors of such
    sizes are recomputed in each part rather than passed (an empty tensor
    returned by a part may share its buffer with another of its results).
    Bufferized, each part frees its own buffers at its end. A function
    holding a `memref.alloca` is left whole (a stack buffer must not
    outlive the function that makes it).
  }];
  let options = [
    Option<"ops", "ops", "int64_t", /*default=*/"1500",
           "Operations per function, about">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
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

def KilnExpandBf16Conversions : Pass<"kiln-expand-bf16-conversions"> {
  let summary = "Expand bfloat16 extf/truncf into integer arithmetic, and nothing else";
  let description = [{
    Rewrites `arith.extf` from bf16 and `arith.truncf` to bf16 as integer
    arithmetic on their bits (upstream's bf16 expansion patterns), so that
    LLVM never legalizes them into calls of `__truncsfbf2`, which Debian
    12's libgcc (GCC 12) lacks. Upstream's `arith-expand` pass does this
    too, but it also expands every float maximum and minimum into compares
    and selects, which LLVM's vectorizer no longer recognises as a
    reduction: a softmax's row maximum then ran one element at a time.
    Runs after `arith-emulate-unsupported-floats` has moved bf16 arithmetic
    to f32, before the arith-to-LLVM conversion.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KilnRecognizeAttention : Pass<"kiln-recognize-attention"> {
  let summary = "Attention written out as matmul, softmax, matmul -> the fused op";
  let description = [{
    On kiln ops: `matmul(softmax(s, -1), v)` where `s` is `matmul(q,
    transpose(k, -2, -1))`, optionally times or divided by a scalar, and
    optionally `where(causal, s, -inf)` with `causal` the triangle
    `arange(T)[:, None] >= arange(S)[None, :]` (as GPT-2's and most
    reference code spell it), each intermediate read by the next alone,
    f32, f64, bf16 or f16 (the 16-bit scores and softmax then computed in
    f32), ranks 2 to 4, becomes one
    `kiln.scaled_dot_product_attention` (the triangle as its bool mask, so
    that sizes it does not fit fail as `where` would), marked
    `kiln.nan_when_unattended`: the fused kernel then gives NaN for a query
    that attends to no key, as the softmax did, where the op gives zeros.
    Other masks stay written out (only a row they mask whole tells the two
    apart; no row of the triangle is one). The CPU pipeline then runs the
    runtime's fused kernel (kiln-attention-to-runtime): the [..., L, S]
    scores are never in memory.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def KilnBroadcastCopies : Pass<"kiln-broadcast-copies"> {
  let summary = "Run each run-time broadcast copy as one strided memref.copy";
  let description = [{
    On bufferized IR, replaces each `linalg.generic` marked
    `kiln.broadcast_copy` (the copy that broadcasts an operand whose
    dynamic sizes turn out 1 at run time, made only then: see
    docs/pipelines.md) with a `memref.copy` from a view of the operand
    whose strides are 0 along the dims where its size differs from the
    copy's, which lowers to the runtime's `memrefCopy`. The copy runs only
    when a size is 1 at run time, yet as a generic it was a loop nest of
    its own, compiled threaded and serial: most of the loop nests of a
    graph whose elementwise ops mix dims of different values (a GRU step's
    input and hidden state), and most of its compile time.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def KilnMatmulToBlas : Pass<"kiln-matmul-to-blas", "ModuleOp"> {
  let summary = "Call the runtime's BLAS entry points for float products";
  let description = [{
    On bufferized IR, replaces each `linalg.matmul` of f32 or f64 memrefs
    with a call to the runtime's `kiln_gemm_f32`/`kiln_gemm_f64` (C
    interface: three strided memref descriptors, C += A * B), each
    contraction of `linear`'s form (y[..., o] += x[..., k] * w[o, k], the
    weight read transposed) with `kiln_linear_f32`/`kiln_linear_f64` (x
    and y as unranked memrefs of any rank), each batched product with
    `kiln_bmm_f32`/`kiln_bmm_f64`, and each float
    `linalg.conv_2d_nchw_fchw` without dilation with `kiln_conv2d_f32`/
    `kiln_conv2d_f64` (input already padded, strides as arguments: the
    runtime lays the input out as columns and runs one gemm per image, as
    the eager conv2d does). The runtime calls OpenBLAS,
    which reads transposed operands in place. A product whose output a
    zero fill set right before (nothing with a memory effect between)
    calls `kiln_assign_*` instead (C = A * B) and the fill is dropped. The
    ops around it,
    a bias and activation epilogue included, stay generated code and fuse
    among themselves. Chosen by measurement over the scalar loops of
    `convert-linalg-to-parallel-loops` (docs/pipelines.md). The matcher is
    shared with the GPU's kiln-gpu-matmul-to-cublas
    (kiln/Codegen/Common/BlasProducts.h).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // KILN_CODEGEN_CPU_PASSES_TD
