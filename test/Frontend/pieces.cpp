// Tests chunk, split and unflatten as model code uses them: GPT-2's
// c_attn(x).split(C, 2) read at constant indices, a SwiGLU's chunk(2, -1),
// a range-for over chunks, cat of chunks, split by a list of sizes, a
// piece picked straight from the call, heads made with unflatten (a size
// known only at run time, and -1). Each graph compiles and matches eager,
// element by element, at sizes the source never names. A dim whose size
// makes fewer pieces than the code reads fails the graph call, and the
// statements rerun eagerly (the FEW runs: eager's result, printed the same
// by both builds). The eager backend spells each op as the runtime does.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 2
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 5 4
// RUN: %t/ref 2 1 few > %t/few.ref.txt
// RUN: %t/cpu 2 1 few > %t/few.cpu.txt
// RUN: diff %t/few.ref.txt %t/few.cpu.txt
// RUN: kiln compile %s -o %t/eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t/eager.cpp -o %t/eager %kiln_link
// RUN: %t/eager 3 2 > %t/eager.txt
// RUN: %t/ref 3 2 > %t/ref2.txt
// RUN: diff %t/ref2.txt %t/eager.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct CausalSelfAttention {
  Tensor w_attn, b_attn;
  int64_t n_head = 2;
  // CHECK-LABEL: CausalSelfAttention::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    auto qkv = kiln::linear(x, w_attn, b_attn).split(C, 2);
    Tensor q = qkv[0].unflatten(2, {n_head, C / n_head}).transpose(1, 2);
    Tensor k = qkv[1].unflatten(-1, {n_head, -1}).transpose(1, 2);
    Tensor v = qkv[2].view({B, T, n_head, C / n_head}).transpose(1, 2);
    Tensor y = kiln::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    return y.transpose(1, 2).reshape({B, T, C});
  }
};

// CHECK-LABEL: swiglu (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor swiglu(const Tensor &h) {
  std::vector<Tensor> gates = h.chunk(2, -1);
  return kiln::silu(gates[0]) * gates[1];
}

// CHECK-LABEL: pieces (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor pieces(const Tensor &x) {
  Tensor total = kiln::zeros({1});
  for (const Tensor &part : kiln::chunk(x, 3, 1))
    total = total + part.sum() * 2.0f;
  Tensor swapped = kiln::cat(x.chunk(2, 0), 1);
  auto sized = kiln::split(x, {1, 2, 3}, 1);
  Tensor middle = x.split(2, 1)[1];
  return total + swapped.sum({0}).sum() + sized[2].sum({1}) +
         sized[0].sum({1}) * 3.0f + middle.sum({1});
}

int main(int argc, char **argv) {
  int64_t B = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t T = argc > 2 ? std::atoll(argv[2]) : 2;
  const int64_t C = 8;
  CausalSelfAttention attn{kiln::randn({3 * C, C}, 1) * 0.3f,
                           kiln::randn({3 * C}, 2)};
  std::cout << attn.forward(kiln::randn({B, T, C}, 3)) << "\n";
  std::cout << swiglu(kiln::randn({B, 2 * T}, 4)) << "\n";
  // Six columns make the split and the three chunks; "few" gives five,
  // and chunk(3) of 5 makes 3 pieces still, but split {1, 2, 3} fails.
  int64_t columns = argc > 3 ? 5 : 6;
  try {
    std::cout << pieces(kiln::randn({2 * B, columns}, 5)) << "\n";
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
