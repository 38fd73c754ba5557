// Runs the main e2e files again with every loop nest threaded
// (kiln-e2e --min-parallel-work=0): at the sizes these files run, the CPU
// pipeline's default runs most loop nests serially (kiln-parallel-where-
// it-pays), so the threaded copies of the same nests are checked here,
// each against eager. The last two runs also make every nest one shared
// body (--outline-above=0), which the threaded loop calls per row tile or
// per chunk of elements.
//
// RUN: kiln-e2e %S/elementwise.mlir --work %t/ew --cxx %clangxx %e2e_flags --min-parallel-work=0 | FileCheck %s --check-prefix=EW
// RUN: kiln-e2e %S/reductions.mlir --work %t/red --cxx %clangxx %e2e_flags --min-parallel-work=0 | FileCheck %s --check-prefix=RED
// RUN: kiln-e2e %S/scans.mlir --work %t/scans --cxx %clangxx %e2e_flags --min-parallel-work=0 | FileCheck %s --check-prefix=SCANS
// RUN: kiln-e2e %S/long-rows.mlir --work %t/long --cxx %clangxx %e2e_flags --min-parallel-work=0 | FileCheck %s --check-prefix=LONG
// RUN: kiln-e2e %S/transformer.mlir --work %t/tf --cxx %clangxx %e2e_flags --min-parallel-work=0 | FileCheck %s --check-prefix=TF
// RUN: kiln-e2e %S/elementwise.mlir --work %t/ew1 --cxx %clangxx %e2e_flags --min-parallel-work=0 --outline-above=0 | FileCheck %s --check-prefix=EW
// RUN: kiln-e2e %S/transformer.mlir --work %t/tf1 --cxx %clangxx %e2e_flags --min-parallel-work=0 --outline-above=0 | FileCheck %s --check-prefix=TF
// EW-NOT: FAIL
// EW: 34 passed, 0 failed
// RED-NOT: FAIL
// RED: {{[1-9][0-9]*}} passed, 0 failed
// SCANS-NOT: FAIL
// SCANS: {{[1-9][0-9]*}} passed, 0 failed
// LONG-NOT: FAIL
// LONG: 8 passed, 0 failed
// TF-NOT: FAIL
// TF: 3 passed, 0 failed
