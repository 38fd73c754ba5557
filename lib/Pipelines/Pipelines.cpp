//===- Pipelines.cpp - Kiln's compile sequence ----------------------------===//
#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Target/CUDA.h"

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

LogicalResult mlir::kiln::lowerModule(ModuleOp module,
                                      const CompileOptions &options,
                                      Stage stage) {
  if (stage == Stage::Kiln)
    return success();
  PassManager pm(module.getContext());
  if (stage == Stage::Linalg) {
    buildKilnToLinalgPipeline(pm);
  } else if (options.pipeline) {
    options.pipeline(pm);
  } else if (options.backend == Backend::Cuda) {
    GpuPipelineOptions gpu = options.gpu;
    if (gpu.toolkit.empty())
      gpu.toolkit = findCudaToolkit();
    buildGpuPipeline(pm, gpu);
  } else {
    buildCpuPipeline(pm, options.cpu);
  }
  if (options.afterEachPass) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        [](Pass *, Operation *) { return false; },
        [](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false, *options.afterEachPass);
  }
  return pm.run(module);
}

llvm::Expected<mlir::kiln::CompiledObject>
mlir::kiln::compileModules(ArrayRef<ModuleOp> modules,
                           ArrayRef<CompileOptions> options,
                           const ObjectOptions &object) {
  assert(modules.size() == options.size() && !modules.empty());
  auto step = [&](llvm::StringRef name) {
    if (object.beforeStep)
      object.beforeStep(name);
  };
  for (auto [module, opts] : llvm::zip(modules, options)) {
    step(opts.backend == Backend::Cuda ? "gpu pipeline (kiln -> NVVM, PTX)"
                                       : "cpu pipeline (kiln -> LLVM dialect)");
    if (failed(lowerModule(module, opts)))
      return llvm::createStringError(
          llvm::Twine("the ") + backendName(opts.backend) + " pipeline failed");
  }
  step("LLVM O3 and object emission");
  CompiledObject result;
  CodegenOptions codegen = object.codegen;
  if (object.imagePrefix)
    collectDeviceImages(codegen, result.deviceImages, *object.imagePrefix);
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  if (failed(emitObject(modules, codegen, os, object.llvmIR)))
    return llvm::createStringError("object emission failed");
  result.bytes.assign(bytes.begin(), bytes.end());
  return result;
}

llvm::Expected<mlir::kiln::CompiledObject>
mlir::kiln::compileModule(ModuleOp module, const CompileOptions &options,
                          const ObjectOptions &object) {
  return compileModules(module, options, object);
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
        options.toolkit = findCudaToolkit();
        buildGpuPipeline(pm, options);
      });
}

void mlir::kiln::registerKilnCompiler(DialectRegistry &registry) {
  registerAllPasses();
  registerKilnDialectTransformsPasses();
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
