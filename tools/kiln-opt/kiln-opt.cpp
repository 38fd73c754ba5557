//===- kiln-opt.cpp - mlir-opt with Kiln's dialect and passes -------------===//
//
// Every pass of Kiln is testable alone through this driver. Upstream
// dialects and passes are registered so that lit tests can build inputs and
// pipelines from them.
//
//===----------------------------------------------------------------------===//
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::kiln::registerKilnConversionPasses();
  mlir::kiln::registerKilnTransformsPasses();
  mlir::kiln::registerKilnPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::kiln::KilnDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
