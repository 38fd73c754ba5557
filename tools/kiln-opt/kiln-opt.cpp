//===- kiln-opt.cpp - mlir-opt with Kiln's dialect and passes -------------===//
//
// Every pass of Kiln is testable alone through this driver. Upstream
// dialects and passes are registered so that lit tests can build inputs and
// pipelines from them, and so are the test-only passes of test/lib.
//
//===----------------------------------------------------------------------===//
#include "TestPasses.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::kiln::test::registerTestPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
