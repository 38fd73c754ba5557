//===- Pipelines.cpp - Kiln's pass pipelines ------------------------------===//
//
// The order of the lowering passes matters (docs/pipelines.md):
// finalize-memref-to-llvm runs before convert-scf-to-cf (OpenMP regions),
// lower-affine after expand-strided-metadata, and the C wrappers are
// requested while functions are still func.func.
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

namespace {
/// Appends a textual pipeline of upstream passes (with their options).
void appendPipeline(OpPassManager &pm, const std::string &text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("kiln: bad built-in pipeline: ") + text);
}
} // namespace

void mlir::kiln::buildKilnToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertKilnToLinalg());
  appendPipeline(pm, "canonicalize,cse");
  pm.addPass(createKilnLowerShapeAsserts());
}

void mlir::kiln::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  buildKilnToLinalgPipeline(pm);
  // Fusion on tensors, then bufferization: inputs arrive as strided
  // memrefs (any Tensor view), results are buffers the caller owns.
  pm.addNestedPass<func::FuncOp>(createKilnFuseElementwise());
  appendPipeline(pm, "canonicalize,cse");
  // (Row tiles are the CPU's threads; the GPU mapping has its own grid.)
  if (!options.emulateGpuMapping)
    pm.addNestedPass<func::FuncOp>(createKilnTileAndFuseRows());
  appendPipeline(pm, "canonicalize,cse,eliminate-empty-tensors,"
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=fully-dynamic-layout-map},"
                     "func.func(llvm-request-c-wrappers),scf-forall-to-parallel,"
                     "canonicalize,buffer-deallocation-pipeline,"
                     "convert-bufferization-to-memref,canonicalize");
  pm.addPass(createKilnMatmulToBlas());
  pm.addPass(createKilnLowerReductions());
  if (options.emulateGpuMapping) {
    // As the GPU pipeline: cse only, the one-iteration loops kept.
    appendPipeline(pm, "func.func(convert-linalg-to-parallel-loops),cse");
    KilnGpuMapParallelLoopsOptions mapping;
    mapping.cpuEmulation = true;
    pm.addNestedPass<func::FuncOp>(createKilnGpuMapParallelLoops(mapping));
  } else {
    appendPipeline(pm, "func.func(convert-linalg-to-parallel-loops),canonicalize");
    pm.addPass(createKilnParallelizeOuterLoop());
    pm.addPass(createKilnFuseRowLoops());
    pm.addPass(createKilnPrefetchNextRow());
    if (options.openmp) {
      appendPipeline(pm, "convert-scf-to-openmp");
      pm.addPass(createKilnOpenMpSchedule());
    }
  }
  pm.addPass(createKilnApproximateMath());
  appendPipeline(pm, "expand-strided-metadata,lower-affine,"
                     "finalize-memref-to-llvm{use-generic-functions},convert-scf-to-cf,"
                     "convert-vector-to-llvm,convert-math-to-llvm,"
                     // What has no LLVM intrinsic (float64 erf, tanh...)
                     // calls libm; after math-to-llvm, so that floor, fma
                     // and friends stay intrinsics that vectorize.
                     "convert-math-to-libm,convert-arith-to-llvm,"
                     "convert-openmp-to-llvm,convert-func-to-llvm,"
                     "convert-cf-to-llvm,convert-ub-to-llvm,"
                     "reconcile-unrealized-casts");
}

void mlir::kiln::buildGpuPipeline(OpPassManager &pm,
                                  const GpuPipelineOptions &options) {
  buildKilnToLinalgPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createKilnFuseElementwise());
  // Function arguments and results are device buffers; so is every
  // buffer bufferization allocates (kiln-gpu-device-buffers).
  appendPipeline(pm, "canonicalize,cse,eliminate-empty-tensors,"
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=fully-dynamic-layout-map},"
                     "func.func(llvm-request-c-wrappers),canonicalize,"
                     "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
                     "canonicalize");
  pm.addPass(createKilnGpuDeviceBuffers());
  // Products through cuBLAS where it loads, the generated kernel otherwise.
  pm.addPass(createKilnMatmulToBlas({"cuda"}));
  pm.addPass(createKilnLowerReductions());
  // No canonicalize before the mapping: it would inline the one-iteration
  // loops that make kernels of serial ops.
  appendPipeline(pm, "func.func(convert-linalg-to-parallel-loops),cse");
  KilnGpuMapParallelLoopsOptions mapping;
  mapping.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createKilnGpuMapParallelLoops(mapping));
  appendPipeline(pm, "func.func(convert-parallel-loops-to-gpu),canonicalize,"
                     "gpu-kernel-outlining,func.func(gpu-async-region)");
  pm.addPass(createKilnGpuMergeModules());
  appendPipeline(pm, "lower-affine,canonicalize,cse");
  // Upstream's GPU-to-NVVM lowering (the passes and order of
  // gpu-lower-to-nvvm-pipeline, spelled out to name the CUDA toolkit):
  // kernels to NVVM with math through libdevice, host code to the LLVM
  // dialect with launches through the mgpu* functions the runtime provides
  // (lib/Runtime/CudaLauncher.cpp), kernels serialized into a gpu.binary.
  // PTX ISA 8.0 (CUDA 12) is what sm_90 needs at least; sm_80 accepts it.
  std::string toolkit = options.toolkit.empty() ? findCudaToolkit() : options.toolkit;
  appendPipeline(pm, "convert-nvgpu-to-nvvm,convert-vector-to-scf,"
                     "convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,"
                     "expand-strided-metadata,nvvm-attach-target{chip=" +
                         options.chip + " features=+ptx80 O=3},"
                     "lower-affine,convert-arith-to-llvm,convert-index-to-llvm,"
                     "canonicalize,cse,"
                     "gpu.module(strip-debuginfo,convert-gpu-to-nvvm,"
                     "llvm-optimize-for-nvvm-target,canonicalize,cse,"
                     "reconcile-unrealized-casts),"
                     // Host memref ops gpu-to-llvm leaves (reshapes with
                     // a shape buffer, which stays in host memory).
                     "gpu-to-llvm,finalize-memref-to-llvm{use-generic-functions},"
                     "gpu-module-to-binary{format=" +
                         options.format +
                         (toolkit.empty() ? std::string() : " toolkit=" + toolkit) +
                         "},convert-math-to-llvm,canonicalize,cse,"
                         "reconcile-unrealized-casts");
}

std::string mlir::kiln::findCudaToolkit() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *dir = std::getenv(var))
      if (*dir && llvm::sys::fs::is_directory(dir))
        return dir;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  // The toolkit whose ptxas is on PATH.
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas)).str();
  return "";
}

LogicalResult mlir::kiln::lowerModule(ModuleOp module, const CompileOptions &options,
                                      Stage stage) {
  if (stage == Stage::Kiln)
    return success();
  PassManager pm(module.getContext());
  if (stage == Stage::Linalg)
    buildKilnToLinalgPipeline(pm);
  else if (options.backend == Backend::Cuda)
    buildGpuPipeline(pm, options.gpu);
  else
    buildCpuPipeline(pm, options.cpu);
  if (options.afterEachPass) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
                        /*printAfterOnlyOnFailure=*/false, *options.afterEachPass);
  }
  return pm.run(module);
}

namespace {
struct GpuPipelineCliOptions : PassPipelineOptions<GpuPipelineCliOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture"),
                           llvm::cl::init("sm_90")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("isa (PTX), bin (cubin) or fatbin"),
                             llvm::cl::init("fatbin")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
};
} // namespace

void mlir::kiln::registerKilnPipelines() {
  PassPipelineRegistration<>("kiln-to-linalg-pipeline",
                             "Lower kiln to linalg on tensors",
                             buildKilnToLinalgPipeline);
  PassPipelineRegistration<>("kiln-cpu-pipeline",
                             "Lower kiln to the LLVM dialect for the host CPU",
                             [](OpPassManager &pm) { buildCpuPipeline(pm); });
  PassPipelineRegistration<GpuPipelineCliOptions>(
      "kiln-gpu-pipeline",
      "Lower kiln to host code that launches NVVM kernels, and their binary",
      [](OpPassManager &pm, const GpuPipelineCliOptions &cli) {
        GpuPipelineOptions options;
        options.chip = cli.chip;
        options.format = cli.format;
        options.blockSize = cli.blockSize;
        buildGpuPipeline(pm, options);
      });
}

void mlir::kiln::registerKilnCompiler(DialectRegistry &registry) {
  registerAllPasses();
  registerKilnConversionPasses();
  registerKilnCodegenCommonPasses();
  registerKilnCodegenCPUPasses();
  registerKilnCodegenGPUPasses();
  registerKilnPipelines();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<KilnDialect>();
  // gpu-module-to-binary: the NVVM target and LLVM IR translations.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerAllToLLVMIRTranslations(registry);
}
