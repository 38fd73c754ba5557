// Tests a GPT-2-style transformer block written as in DESIGN section 1 (a
// struct holding its weights; layer_norm, matmul, a causal softmax, gelu,
// residuals, heads split with reshape/transpose from x.size(...)): under
// KILN_COMPILE(fullgraph=true) it is one graph, and the program built with
// each backend prints what the uncompiled build prints, for batch, sequence
// and width the block's code never names.
//
// RUN: kiln explain %s | FileCheck %s --check-prefix=EXPLAIN
// RUN: kiln compile %s -o %t.cpu.cpp --time-report 2> %t.time
// RUN: FileCheck %s --check-prefix=TIME < %t.time
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -O1 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -O1 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -O1 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=graph_calls %t.eager > %t.eager.txt 2> %t.eager.log
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log

#include <kiln/kiln.h>

#include <cmath>
#include <cstdint>
#include <iostream>

using kiln::Tensor;

// EXPLAIN: Kiln produced 1 graph, with 0 graph breaks and {{[0-9]+}} ops.
// EXPLAIN: Block::forward ({{.*}}, backend cpu, fullgraph):
// EXPLAIN: inputs: x (f32 tensor of rank 3) this->ln1_w (f32 tensor of rank 1) this->ln1_b (f32 tensor of rank 1) this->n_head (int64) this->w_qkv (f32 tensor of rank 2)
// TIME: kiln: time report
// TIME: total
// CALLS: kiln: graph kiln_Block__forward_0: ran compiled
// CALLS: kiln: graph kiln_Block__forward_0: ran compiled
struct Block {
  Tensor ln1_w, ln1_b, w_qkv, b_qkv, w_proj, b_proj;
  Tensor ln2_w, ln2_b, w_fc, b_fc, w_out, b_out;
  int64_t n_head;

  Tensor attention(const Tensor &h) const {
    int64_t B = h.size(0), T = h.size(1), C = h.size(2);
    int64_t hd = C / n_head;
    Tensor qkv = kiln::matmul(h, w_qkv) + b_qkv;
    Tensor q = qkv.slice(2, 0, C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor k = qkv.slice(2, C, 2 * C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor v = qkv.slice(2, 2 * C, 3 * C).reshape({B, T, n_head, hd}).transpose(1, 2);
    Tensor att = kiln::matmul(q, k.transpose(-2, -1)) * (1.0f / std::sqrt(float(hd)));
    Tensor causal = kiln::arange(T).unsqueeze(1) >= kiln::arange(T).unsqueeze(0);
    att = kiln::softmax(kiln::where(causal, att, -INFINITY), -1);
    Tensor y = kiln::matmul(att, v).transpose(1, 2).reshape({B, T, C});
    return kiln::matmul(y, w_proj) + b_proj;
  }

  KILN_COMPILE(fullgraph = true) Tensor forward(const Tensor &x) const {
    Tensor x1 = x + attention(kiln::layer_norm(x, ln1_w, ln1_b, 1e-5));
    Tensor h = kiln::gelu(kiln::matmul(kiln::layer_norm(x1, ln2_w, ln2_b, 1e-5), w_fc) + b_fc);
    return x1 + kiln::matmul(h, w_out) + b_out;
  }
};

Block makeBlock(int64_t C, int64_t heads, uint64_t seed) {
  auto w = [&](kiln::Shape shape) { return kiln::randn(shape, seed++) * 0.2; };
  return Block{kiln::ones({C}) + w({C}) * 0.1, w({C}),       w({C, 3 * C}), w({3 * C}),
               w({C, C}),                      w({C}),       kiln::ones({C}), w({C}),
               w({C, 4 * C}),                  w({4 * C}),   w({4 * C, C}),  w({C}),
               heads};
}

int main() {
  Block block = makeBlock(24, 3, 11);
  std::cout << block.forward(kiln::randn({2, 5, 24}, 1)) << "\n";
  std::cout << block.forward(kiln::randn({1, 9, 24}, 2)) << "\n";
  return 0;
}
