//===- GpuMergeModules.cpp - One gpu.module per compiled module -----------===//
#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMERGEMODULES
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-gpu-merge-modules"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMergedName = "kiln_kernels";

struct KilnGpuMergeModulesPass
    : mlir::kiln::impl::KilnGpuMergeModulesBase<KilnGpuMergeModulesPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    gpu::GPUModuleOp merged = gpuModules.front();
    StringAttr originalFirst = merged.getSymNameAttr();
    StringAttr firstName = StringAttr::get(&getContext(), kMergedName);
    merged.setSymName(kMergedName);
    SymbolTable table(merged);
    // Where each kernel went: (old module, old name) -> new name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUFuncOp fn : merged.getOps<gpu::GPUFuncOp>())
      moved[{originalFirst, fn.getNameAttr()}] = fn.getNameAttr();
    for (gpu::GPUModuleOp other : llvm::drop_begin(gpuModules)) {
      StringAttr otherName = other.getSymNameAttr();
      for (Operation &op :
           llvm::make_early_inc_range(other.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol)
          continue;
        StringAttr old = symbol.getNameAttr();
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        // insert() renames the symbol when the name is taken.
        StringAttr name = table.insert(&op);
        moved[{otherName, old}] = name;
      }
      other.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it =
          moved.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == moved.end())
        return;
      launch.setKernelAttr(
          SymbolRefAttr::get(firstName, {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};

} // namespace
