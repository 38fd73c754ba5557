// Tests a root that kiln compile leaves as host code (here with
// --suppress-errors: its input would need two ranks at once). Never
// silently: a warning at compile time, and when the program runs a
// warning once, with the reason, and each call counted as a graph call
// that ran eagerly (KILN_STATS). The calls raise what eager raises.
//
// RUN: kiln compile %s -o %t.cpp --suppress-errors 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=CPP < %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu > %t.cpu.txt 2> %t.cpu.err
// RUN: diff %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

// COMPILE: left-on-host.cpp:[[# @LINE + 4]]:{{[0-9]+}}: warning: kiln could not compile 'bad': input 'x' needs rank 2 and at least 3 (left as host code: --suppress-errors)
// CPP: kiln::abi::uncompiledCall(kiln::abi::GraphSite("bad", "left-on-host.cpp:[[# @LINE + 3]]"), "kiln could not compile 'bad': input 'x' needs rank 2 and at least 3 (left as host code: --suppress-errors)");
// EXEC: kiln: warning: graph bad (left-on-host.cpp:[[# @LINE + 2]]) runs eagerly: kiln could not compile 'bad': input 'x' needs rank 2 and at least 3 (left as host code: --suppress-errors)
// EXEC-NOT: kiln: warning
KILN_COMPILE() Tensor bad(const Tensor &x) {
  return x.permute({1, 0}) * x.size(2);
}

// EXEC: kiln-stats graph_calls=2 compiled=0 guard_misses=2
int main() {
  for (int i = 0; i < 2; ++i) {
    try {
      bad(kiln::randn({2, 3, 4}, 1));
    } catch (const kiln::Error &e) {
      std::printf("%s\n", e.what());
    }
  }
}
