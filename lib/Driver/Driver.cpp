//===- Driver.cpp - The kiln command line ---------------------------------===//
//
// Subcommands are added here as they are built (compile, explain).
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Codegen.h"
#include "kiln/version.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace kiln::driver {

int run(int argc, char **argv) {
  CLI::App app{"kiln: an ahead-of-time compiler for C++ tensor code "
               "(the C++ counterpart of torch.compile)",
               "kiln"};
  app.set_version_flag("--version",
                       std::string("kiln version ") + KILN_VERSION_STRING +
                           " (LLVM, Clang and MLIR " + KILN_LLVM_VERSION + ")");
  app.require_subcommand(0, 1);

  CodegenRequest codegen;
  CLI::App *codegenCmd = app.add_subcommand(
      "codegen", "Compile kiln-dialect graphs (.mlir) for the CPU: an object "
                 "file with a kiln_entry_NAME entry point per graph, or an "
                 "earlier stage");
  codegenCmd->add_option("input", codegen.input, "The .mlir file (- for stdin)")
      ->required();
  codegenCmd->add_option("-o,--output", codegen.output, "Where to write (- for stdout)")
      ->required();
  codegenCmd->add_option("--emit", codegen.emit, "The stage to write")
      ->check(CLI::IsMember({"kiln", "linalg", "llvm-dialect", "llvm", "obj"}))
      ->capture_default_str();
  codegenCmd->add_option("--target", codegen.target,
                         "Target triple (default: the host's)");
  codegenCmd->add_option("--cpu", codegen.cpu,
                         "Target CPU (default: the host CPU and its features)");
  codegenCmd->add_option("--features", codegen.features,
                         "Extra target features, e.g. +avx2,-avx512f");

  app.footer("`compile` (C++ sources) and `explain` are being built; see "
             "docs/ in the Kiln sources.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2; // bad usage
  }
  if (codegenCmd->parsed())
    return runCodegen(codegen);
  std::cout << app.help();
  return 0;
}

} // namespace kiln::driver
