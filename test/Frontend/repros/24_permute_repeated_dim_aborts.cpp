// Repro 24 (shared/repros): a permutation that repeats a dim is an error
// that says so, not an abort.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s
// CHECK: 24_permute_repeated_dim_aborts.cpp:[[@LINE+11]]:23: error: kiln could not compile 'f': kiln::permute at {{.*}}: permute's dims are not a permutation of the input's 4 dims
// CHECK-NOT: LLVM ERROR
// explain fails as compile does, with nothing on stdout:
// RUN: not kiln explain %s > %t.out 2> %t.err
// RUN: test ! -s %t.out
// RUN: FileCheck %s < %t.err
//
// A user error (a permutation that repeats a dim) aborts kiln compile with
// LLVM ERROR instead of a diagnostic; kiln explain accepts it (rc 0).
#include <kiln/kiln.h>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &a) { return a.permute({0, 2, 2, 1}); }
int main() { f(kiln::randn({2, 3, 4, 5}, 1)); }
