//===- kiln/Driver/Codegen.h - `kiln codegen` -------------------*- C++ -*-===//
#ifndef KILN_DRIVER_CODEGEN_H
#define KILN_DRIVER_CODEGEN_H

#include "kiln/Driver/Emit.h"
#include "kiln/Pipelines/Backend.h"

#include <string>

namespace kiln::driver {

struct CodegenRequest {
  std::string input;  // a .mlir file of kiln-dialect graphs ("-": stdin)
  std::string output; // "-": stdout
  /// The stage to write (any but Emit::Cpp).
  Emit emit = Emit::Object;
  std::string target, cpu, features;
  mlir::kiln::Backend backend = mlir::kiln::Backend::Cpu; // cpu | cuda
  std::string cudaArch = "sm_90";
  std::string cudaFormat; // ptx | cubin | fatbin; empty: see gpuBinaryFormat
};

/// Compiles kiln-dialect graphs for the CPU or a GPU and writes the
/// requested stage.
/// Returns the exit status (0 ok, 1 bad input, diagnostics on stderr).
int runCodegen(const CodegenRequest &request);

} // namespace kiln::driver

#endif
