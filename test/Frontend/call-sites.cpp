// Tests --call-sites: a compile root declared in a header, defined in the
// file compiled and called from another source (repro 29's layout) is
// typed from that source's calls (`types: x call site`), one graph and no
// type versions; without it the root's types are open and compiled in
// versions. A source that does not parse is an error.
//
// RUN: kiln explain %S/Inputs/repro29/model.cpp --call-sites %S/Inputs/repro29/main.cpp | FileCheck %s
// RUN: kiln explain %S/Inputs/repro29/model.cpp | FileCheck %s --check-prefix=ALONE
// RUN: not kiln explain %S/Inputs/repro29/model.cpp --call-sites %S/Inputs/syntax-error.cpp 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln explain %S/Inputs/repro29/model.cpp --call-sites %t.missing.cpp 2>&1 | FileCheck %s --check-prefix=MISSING
// CHECK: inputs: x (f32 tensor of rank 3) {{.*}}pad_mask (i1 tensor of rank 2)
// CHECK: types: x call site {{.*}}pad_mask call site
// CHECK-NOT: variant
// ALONE: types: x open
// ALONE: variant
// BAD: syntax-error.cpp:{{[0-9]+}}:{{[0-9]+}}: error:
// MISSING: call-sites.cpp.tmp.missing.cpp: no such file
