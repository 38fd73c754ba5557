// Tests --suppress-errors: a root whose graph cannot be compiled (here its
// input would need two ranks at once) is an error, exit status 1; with the
// flag it is a warning, that root stays host code and the file's other
// roots are still compiled.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: kiln compile %s -o %t.cpp --suppress-errors 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --check-prefix=CPP < %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes -c %t.cpp -o %t.o.unused

#include <kiln/kiln.h>

using kiln::Tensor;

// ERROR: suppress-errors.cpp:[[# @LINE + 3]]:{{[0-9]+}}: error: kiln could not compile 'bad': input 'x' needs rank 2 and at least 3
// WARN: suppress-errors.cpp:[[# @LINE + 2]]:{{[0-9]+}}: warning: kiln could not compile 'bad': input 'x' needs rank 2 and at least 3 (left as host code: --suppress-errors)
// WARN-NOT: error
KILN_COMPILE() Tensor bad(const Tensor &x) {
  return x.permute({1, 0}) * x.size(2);
}

// CPP-NOT: kiln_stitched::kiln_{{b}}ad
// CPP: ::kiln_stitched::kiln_good_{{[0-9]+}}(
KILN_COMPILE() Tensor good(const Tensor &x) { return kiln::exp(x) + 1; }
