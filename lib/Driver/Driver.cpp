//===- Driver.cpp - The kiln command line ---------------------------------===//
//
// Subcommands are added here as they are built (compile, explain).
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Driver.h"
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
  app.footer("Kiln has no subcommands yet: `compile` and `explain` are being "
             "built.\nSee docs/ in the Kiln sources.");
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
  std::cout << app.help();
  return 0;
}

} // namespace kiln::driver
