// Runs e2e files again with every graph function of more than 40 ops cut
// into functions of about 20 (kiln-e2e --split-ops=20; by default only
// graphs of thousands of ops are, kiln-split-large-functions): tensors,
// sizes and shape-check flags cross the cuts, dims of the arguments are
// recomputed in each part, and each result, failed checks included, must
// match eager. The second run threads every loop nest as well.
//
// RUN: kiln-e2e %S/elementwise.mlir --work %t/ew --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=EW
// RUN: kiln-e2e %S/transformer.mlir --work %t/tf --cxx %clangxx %e2e_flags --split-ops=20 --min-parallel-work=0 | FileCheck %s --check-prefix=TF
// RUN: kiln-e2e %S/data-movement.mlir --work %t/dm --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=DM
// RUN: kiln-e2e %S/linear.mlir --work %t/linear --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=LINEAR
// RUN: kiln-e2e %S/reductions.mlir --work %t/red --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=RED
// RUN: kiln-e2e %S/scans.mlir --work %t/scans --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=SCANS
// RUN: kiln-e2e %S/attention.mlir --work %t/att --cxx %clangxx %e2e_flags --split-ops=20 | FileCheck %s --check-prefix=ATT
// EW-NOT: FAIL
// EW: 34 passed, 0 failed
// TF-NOT: FAIL
// TF: 3 passed, 0 failed
// DM-NOT: FAIL
// DM: {{[1-9][0-9]*}} passed, 0 failed
// LINEAR-NOT: FAIL
// LINEAR: {{[1-9][0-9]*}} passed, 0 failed
// RED-NOT: FAIL
// RED: {{[1-9][0-9]*}} passed, 0 failed
// SCANS-NOT: FAIL
// SCANS: {{[1-9][0-9]*}} passed, 0 failed
// ATT-NOT: FAIL
// ATT: {{[1-9][0-9]*}} passed, 0 failed
