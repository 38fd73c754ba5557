//===- DeviceImages.cpp - gpu.binary images out of the host object --------===//
#include "kiln/Target/CUDA.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

using namespace mlir;

namespace {

/// Moves the image of each gpu.binary of `module` out of its translation
/// `llvm`: the global <NAME>_binary that upstream's translation fills
/// becomes an external declaration of prefix + NAME.
void externalizeImages(ModuleOp module, llvm::Module &llvm,
                       const std::string &prefix,
                       std::vector<kiln::DeviceImage> &images) {
  module.walk([&](gpu::BinaryOp binary) {
    std::string name = binary.getSymName().str();
    llvm::GlobalVariable *global =
        llvm.getGlobalVariable(name + "_binary", /*AllowInternal=*/true);
    auto *data =
        global && global->hasInitializer()
            ? dyn_cast<llvm::ConstantDataSequential>(global->getInitializer())
            : nullptr;
    if (!data || binary.getObjects().empty())
      return;
    kiln::DeviceImage image;
    image.symbol = prefix + name;
    image.bytes = data->getRawDataValues().str();
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    image.description =
        object.getFormat() == gpu::CompilationTarget::Assembly ? "PTX"
        : object.getFormat() == gpu::CompilationTarget::Fatbin ? "fatbin"
                                                               : "cubin";
    if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
      image.description += " for " + target.getChip().str();
    auto *decl = new llvm::GlobalVariable(
        llvm, global->getValueType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, nullptr, image.symbol);
    decl->setAlignment(llvm::Align(8));
    global->replaceAllUsesWith(decl);
    global->eraseFromParent();
    images.push_back(std::move(image));
  });
}

} // namespace

void mlir::kiln::collectDeviceImages(CodegenOptions &options,
                                     std::vector<DeviceImage> &images,
                                     std::string prefix) {
  options.afterTranslation = [&images, prefix](ModuleOp module,
                                               llvm::Module &llvm) {
    externalizeImages(module, llvm, prefix, images);
  };
}
