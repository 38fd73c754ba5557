//===- Emit.cpp - What --emit writes
//---------------------------------------===//
#include "kiln/Driver/Emit.h"

namespace kiln::driver {

const std::vector<EmitName> &emitNames() {
  static const std::vector<EmitName> names = {
      {"cpp", Emit::Cpp,
       "the stitched source, the compiled graphs beside it as an object; "
       "kiln compile only"},
      {"kiln", Emit::Kiln, "the kiln dialect, as traced"},
      {"linalg", Emit::Linalg, "after the conversion to linalg"},
      {"llvm-dialect", Emit::LLVMDialect, "after the backend's whole pipeline"},
      {"llvm", Emit::LLVM, "optimized LLVM IR"},
      {"obj", Emit::Object, "the object file"},
      {"device", Emit::Device, "the cuda kernels' binary, in --cuda-format"},
      {"ptx", Emit::PTX, "the cuda kernels as PTX text"},
  };
  return names;
}

const char *emitName(Emit emit) {
  for (const EmitName &n : emitNames())
    if (n.emit == emit)
      return n.name;
  return "?";
}

std::optional<mlir::kiln::Stage> mlirStage(Emit emit) {
  switch (emit) {
  case Emit::Kiln:
    return mlir::kiln::Stage::Kiln;
  case Emit::Linalg:
    return mlir::kiln::Stage::Linalg;
  case Emit::LLVMDialect:
    return mlir::kiln::Stage::LLVMDialect;
  default:
    return std::nullopt;
  }
}

} // namespace kiln::driver
