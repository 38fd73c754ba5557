//===- SharedLibrary.cpp - Compiled graphs as a loadable library ----------===//
#include "kiln/Target/Host.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

llvm::Expected<std::string>
mlir::kiln::buildSharedLibrary(llvm::StringRef object,
                               const std::string &workDir,
                               const std::string &linker) {
  if (llvm::sys::fs::create_directories(workDir))
    return llvm::createStringError("kiln: cannot create " + workDir);
  std::string objectPath = workDir + "/graphs.o";
  std::string library = workDir + "/graphs.so";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec);
    if (ec)
      return llvm::createStringError("kiln: cannot write " + objectPath);
    os << object;
  }
  auto program = llvm::sys::findProgramByName(linker);
  if (!program)
    return llvm::createStringError("kiln: cannot find the linker " + linker);
  llvm::SmallVector<llvm::StringRef> args = {*program, "-shared", "-o", library,
                                             objectPath};
  std::string message;
  if (llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return llvm::createStringError("kiln: linking " + library +
                                   " failed: " + message);
  return library;
}
