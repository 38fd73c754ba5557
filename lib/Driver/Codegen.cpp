//===- Codegen.cpp - `kiln codegen`: kiln graphs to object code -----------===//
#include "kiln/Driver/Codegen.h"
#include "kiln/Driver/Compile.h"

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Target/CUDA.h"
#include "kiln/Target/Host.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

namespace kiln::driver {

int runCodegen(const CodegenRequest &request) {
  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::MLIRContext context(registry);

  std::string error;
  auto input = mlir::openInputFile(request.input, &error);
  if (!input) {
    llvm::errs() << "kiln codegen: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  // file:line:col: error: ... with the source line and a caret.
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  if (!module)
    return 1;

  bool cuda = request.backend == mlir::kiln::Backend::Cuda;
  bool kernels = request.emit == Emit::Device || request.emit == Emit::PTX;
  if (kernels && !cuda) {
    llvm::errs() << "kiln codegen: --emit=" << emitName(request.emit)
                 << " needs --backend=cuda\n";
    return 2;
  }
  mlir::kiln::CompileOptions compile;
  compile.backend = request.backend;
  compile.gpu.chip = request.cudaArch;
  compile.gpu.format = request.emit == Emit::PTX
                           ? std::string("isa")
                           : gpuBinaryFormat(request.cudaFormat);
  auto output = mlir::openOutputFile(request.output, &error);
  if (!output) {
    llvm::errs() << "kiln codegen: " << error << "\n";
    return 1;
  }
  if (std::optional<mlir::kiln::Stage> stage = mlirStage(request.emit)) {
    if (mlir::failed(mlir::kiln::lowerModule(*module, compile, *stage)))
      return 1;
    module->print(output->os());
    output->keep();
    return 0;
  }
  mlir::kiln::ObjectOptions object;
  object.codegen.triple = request.target;
  object.codegen.cpu = request.cpu;
  object.codegen.features = request.features;
  object.llvmIR = request.emit == Emit::LLVM;
  if (kernels)
    object.imagePrefix = "kiln_image_";
  llvm::Expected<mlir::kiln::CompiledObject> compiled =
      mlir::kiln::compileModule(*module, compile, object);
  if (!compiled) {
    llvm::errs() << "kiln codegen: " << llvm::toString(compiled.takeError())
                 << "\n";
    return 1;
  }
  if (kernels) {
    // PTX as text, without the terminating NUL the loader needs.
    for (const mlir::kiln::DeviceImage &image : compiled->deviceImages)
      output->os() << (llvm::StringRef(image.description).starts_with("PTX")
                           ? llvm::StringRef(image.bytes).rtrim('\0')
                           : llvm::StringRef(image.bytes));
  } else {
    output->os() << compiled->bytes;
  }
  output->keep();
  return 0;
}

} // namespace kiln::driver
