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
  if (request.emit == "device" && !cuda) {
    llvm::errs() << "kiln codegen: --emit=device needs --backend=cuda\n";
    return 2;
  }
  mlir::kiln::CompileOptions compile;
  compile.backend = request.backend;
  compile.gpu.chip = request.cudaArch;
  compile.gpu.format = gpuBinaryFormat(request.cudaFormat);
  mlir::kiln::Stage stage = request.emit == "kiln" ? mlir::kiln::Stage::Kiln
                            : request.emit == "linalg"
                                ? mlir::kiln::Stage::Linalg
                                : mlir::kiln::Stage::LLVMDialect;
  if (mlir::failed(mlir::kiln::lowerModule(*module, compile, stage)))
    return 1;

  auto output = mlir::openOutputFile(request.output, &error);
  if (!output) {
    llvm::errs() << "kiln codegen: " << error << "\n";
    return 1;
  }
  if (request.emit == "kiln" || request.emit == "linalg" ||
      request.emit == "llvm-dialect") {
    module->print(output->os());
  } else if (request.emit == "device") {
    std::vector<mlir::kiln::DeviceImage> images;
    mlir::kiln::CodegenOptions options;
    mlir::kiln::collectDeviceImages(options, images);
    llvm::SmallString<0> ignored;
    llvm::raw_svector_ostream sink(ignored);
    if (mlir::failed(mlir::kiln::emitObject(*module, options, sink, true)))
      return 1;
    // PTX as text, without the terminating NUL the loader needs.
    for (const mlir::kiln::DeviceImage &image : images)
      output->os() << (llvm::StringRef(image.description).starts_with("PTX")
                           ? llvm::StringRef(image.bytes).rtrim('\0')
                           : llvm::StringRef(image.bytes));
  } else {
    mlir::kiln::CodegenOptions options{request.target, request.cpu,
                                       request.features};
    if (mlir::failed(mlir::kiln::emitObject(*module, options, output->os(),
                                            request.emit == "llvm")))
      return 1;
  }
  output->keep();
  return 0;
}

} // namespace kiln::driver
