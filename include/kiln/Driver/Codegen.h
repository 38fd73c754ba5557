//===- kiln/Driver/Codegen.h - `kiln codegen` -------------------*- C++ -*-===//
#ifndef KILN_DRIVER_CODEGEN_H
#define KILN_DRIVER_CODEGEN_H

#include <string>

namespace kiln::driver {

struct CodegenRequest {
  std::string input;  // a .mlir file of kiln-dialect graphs ("-": stdin)
  std::string output; // "-": stdout
  /// kiln | linalg | llvm-dialect | llvm | obj: the stage to write.
  std::string emit = "obj";
  std::string target, cpu, features;
};

/// Compiles kiln-dialect graphs for the CPU and writes the requested stage.
/// Returns the exit status (0 ok, 1 bad input, diagnostics on stderr).
int runCodegen(const CodegenRequest &request);

} // namespace kiln::driver

#endif
