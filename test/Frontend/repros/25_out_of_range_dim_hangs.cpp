// Repro 25 (shared/repros): a dim far out of range is an error that says
// so, at once, not a rank-64 kernel that never finishes compiling.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s
// RUN: not kiln explain %s > %t.out 2> %t.err
// RUN: test ! -s %t.out
// RUN: FileCheck %s < %t.err
// CHECK: 25_out_of_range_dim_hangs.cpp:[[@LINE+7]]:23: error: kiln could not compile 'f': input 'a' would need rank 64 for the dims its uses index; kiln compiles tensors of rank up to 8
//
// A user error (transpose dim -64 of what is a rank-3 tensor): kiln explain
// takes it as evidence that a has rank 64 and answers at once (rc 0);
// kiln compile then builds rank-64 kernels and does not finish in 60 s.
#include <kiln/kiln.h>
using kiln::Tensor;
KILN_COMPILE() Tensor f(const Tensor &a) {
  return kiln::softmax(kiln::matmul(a, a.transpose(-64, -2)), -2);
}
int main() { f(kiln::randn({2, 3, 4}, 1)); }
