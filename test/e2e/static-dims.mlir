// Runs the main e2e files again with some dynamic dims of each run's inputs
// made static at the sizes the run passes (kiln-e2e --static-dims=SEED: a
// copy of the function per run, its kiln ops re-inferring their result
// types, casts back where an op does not infer). Traced graphs mix static
// and dynamic dims this way (a member built by kiln::ones({64}), a reshape
// to a literal); every mix must verify, compile and match eager. A fixed
// seed here; `kiln-e2e FILE --static-dims=N` fuzzes further by hand.
//
// RUN: kiln-e2e %S/data-movement.mlir --work %t/dm --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=DM
// RUN: kiln-e2e %S/linear.mlir --work %t/linear --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=LINEAR
// RUN: kiln-e2e %S/pooling.mlir --work %t/pool --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=POOL
// RUN: kiln-e2e %S/reductions.mlir --work %t/red --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=RED
// RUN: kiln-e2e %S/scans.mlir --work %t/scans --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=SCANS
// RUN: kiln-e2e %S/elementwise.mlir --work %t/ew --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=EW
// RUN: kiln-e2e %S/transformer.mlir --work %t/tf --cxx %clangxx %e2e_flags --static-dims=7 | FileCheck %s --check-prefix=TF
// DM-NOT: FAIL
// DM: {{[1-9][0-9]*}} passed, 0 failed
// LINEAR-NOT: FAIL
// LINEAR: {{[1-9][0-9]*}} passed, 0 failed
// POOL-NOT: FAIL
// POOL: {{[1-9][0-9]*}} passed, 0 failed
// RED-NOT: FAIL
// RED: {{[1-9][0-9]*}} passed, 0 failed
// SCANS-NOT: FAIL
// SCANS: {{[1-9][0-9]*}} passed, 0 failed
// EW-NOT: FAIL
// EW: 34 passed, 0 failed
// TF-NOT: FAIL
// TF: 3 passed, 0 failed
