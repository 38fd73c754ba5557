//===- SharedLibrary.cpp - Compiled graphs as a loadable library ----------===//
#include "kiln/Target/Host.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

FailureOr<std::string>
mlir::kiln::buildSharedLibrary(ModuleOp module, const CodegenOptions &options,
                               const std::string &workDir,
                               const std::string &linker) {
  if (llvm::sys::fs::create_directories(workDir))
    return module.emitError("kiln: cannot create ") << workDir, failure();
  std::string object = workDir + "/graphs.o", library = workDir + "/graphs.so";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec);
    if (ec)
      return module.emitError("kiln: cannot write ") << object, failure();
    if (failed(emitObject(module, options, os)))
      return failure();
  }
  auto program = llvm::sys::findProgramByName(linker);
  if (!program)
    return module.emitError("kiln: cannot find the linker ") << linker,
           failure();
  llvm::SmallVector<llvm::StringRef> args = {*program, "-shared", "-o", library,
                                             object};
  std::string message;
  if (llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return module.emitError("kiln: linking ")
               << library << " failed: " << message,
           failure();
  return library;
}
