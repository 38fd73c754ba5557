// Repro 13 (shared/repros): an if on a host bool guards the use of an
// optional tensor. The graph is compiled once per value of the flag; the
// variant for has_proj=false has no proj input, so the undefined tensor
// passes, and the graph runs compiled.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// RUN: kiln compile %s -o %t.cpp
// RUN: FileCheck %s --check-prefix=CPP < %t.cpp
// CHECK: variant kiln_Block__forward_0_v0 when this->has_proj=false (3 ops), inputs: x this->w
// CHECK: variant kiln_Block__forward_0_v1 when this->has_proj=true (4 ops), inputs: x this->proj this->w
// CPP: {{^\[\[maybe_unused\]\] static bool kiln_Block__forward_0\(kiln::Tensor &o0, const kiln::Tensor &i0, bool i1, const kiln::Tensor &i2, const kiln::Tensor &i3\) \{$}}
// CPP: {{^}}  switch (kiln::abi::chooseVersion(site, {
// CPP-NEXT: {{^}}      {!i1, {{[{][{]}}i0, 2, kiln::kFloat32}, {i2, -1, kiln::kFloat32}, {i3, 2, kiln::kFloat32{{[}][}]}}},
// CPP-NEXT: {{^}}      {i1, {{[{][{]}}i0, 2, kiln::kFloat32}, {i2, 2, kiln::kFloat32}, {i3, 2, kiln::kFloat32{{[}][}]}}}})) {
// CPP-NEXT: {{^}}  case 0:
// CPP-NEXT: {{^}}    return kiln_Block__forward_0_v0(o0, i0, i3);
// CPP-NEXT: {{^}}  case 1:
// CPP-NEXT: {{^}}    return kiln_Block__forward_0_v1(o0, i0, i2, i3);
//
// An if on a host bool that guards the use of an optional (undefined)
// tensor: both arms are traced, so the undefined tensor becomes a graph
// input and the guard rejects every call ("failed on input 1 (undefined)");
// the graph never runs compiled when has_proj is false.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

struct Block {
  Tensor w;
  bool has_proj = false;
  Tensor proj; // undefined unless has_proj

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor identity = x;
    if (has_proj)
      identity = kiln::matmul(x, proj);
    return kiln::relu(kiln::matmul(x, w) + identity);
  }
};

int main() {
  Block b{kiln::randn({4, 4}, 1), false, Tensor()};
  Tensor x = kiln::randn({2, 4}, 2);
  std::printf("%f\n", kiln::sum(b.forward(x)).item<float>());
}
