//===- kiln-tblgen.cpp - mlir-tblgen with Kiln's backends -----------------===//
//
// mlir-tblgen's driver; Kiln's generators register themselves
// (RuntimeCallsGen.cpp: -gen-kiln-runtime-calls; TracedCallsGen.cpp:
// -gen-kiln-traced-calls).
//
//===----------------------------------------------------------------------===//
#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
