// Tests --signature: stated parameter types win over guesses (explain says
// "stated"), a signature that contradicts the source or the declaration is
// an error at the parameter, a malformed one is bad usage (exit 2), and
// --require-known-types turns an open type into an error until a signature
// states it. The compiled program then runs with no guard miss.
//
// RUN: kiln explain %s | FileCheck %s --check-prefix=OPEN
// OPEN: inputs: a (f32 tensor of rank 2)
// OPEN-NEXT: outputs: return
// OPEN-NEXT: types: a open
//
// RUN: kiln explain %s --signature 'entry(f64[?])' | FileCheck %s --check-prefix=STATED
// STATED: inputs: mask (i1 tensor of rank 3) x (f32 tensor of rank 3) this->w (f32 tensor of rank 2)
// STATED-NEXT: outputs: return
// STATED-NEXT: types: mask call site x call site this->w source
// STATED: inputs: a (f64 tensor of rank 1)
// STATED-NEXT: outputs: return
// STATED-NEXT: types: a stated
//
// RUN: not kiln compile %s -o %t.bad.cpp --signature 'Model::forward(bool[?,?,?], f64[?,?,?])' 2>&1 | FileCheck %s --check-prefix=CONTRA
// CONTRA: signature.cpp:[[@LINE+23]]:67: error: --signature states 'x' of 'Model::forward' as f64 tensor of rank 3, but its callers pass f32 tensors
// RUN: not kiln compile %s -o %t.bad.cpp --signature 'entry(f32[?], _)' 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: signature.cpp:[[@LINE+27]]:23: error: --signature gives 2 parameter types for 'entry', which takes 1
// RUN: kiln explain %s --signature 'entyr(f32[?])' 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: signature.cpp:1:1: warning: --signature names 'entyr', which no function of this file is
// RUN: not kiln compile %s -o %t.bad.cpp --signature 'entry(f32[?,x])' 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: kiln: error: --signature 'entry(f32[?,x])': 'f32[?,x]': a dim is ? or a size, not 'x'
//
// RUN: not kiln compile %s -o %t.open.cpp --require-known-types 2>&1 | FileCheck %s --check-prefix=REQUIRE
// REQUIRE: error: kiln could not compile 'entry': no rank or dtype is stated or shown for a (--require-known-types; state them with --signature)
// RUN: kiln compile %s -o %t.cpp --require-known-types --signature 'entry(f64[?])'
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// OUT: model 40.0
// STATS: kiln-stats graph_calls=1 compiled=1 guard_misses=0
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

struct Model {
  Tensor w;
  KILN_COMPILE() Tensor forward(const Tensor &mask, const Tensor &x) const {
    return kiln::where(mask, kiln::matmul(x, w), 0.0f);
  }
};

// A library entry point: no caller in this file shows what it takes.
KILN_COMPILE() Tensor entry(const Tensor &a) { return kiln::exp(a * a); }

int main() {
  Model m{kiln::ones({4, 3})};
  Tensor x = kiln::full({2, 5, 4}, 0.5);
  Tensor mask = kiln::arange(3) > 0;
  std::printf("model %.1f\n", kiln::sum(m.forward(mask.reshape({1, 1, 3}) > 0, x)).item<float>());
}
