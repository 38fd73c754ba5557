// Mixed-precision training compiled: with --autograd --autocast each graph
// holding products gets its bfloat16 twin and the twin its own backward
// (built from the twin's body, casts included, as eager autograd records
// them under autocast), so a training step under kiln::autocast runs the
// twin's training forward and records its compiled backward. Losses, the
// bfloat16 logits a graph returns, and every float32 parameter's gradient
// (float32, as eager's) match the uncompiled build under autocast within
// bfloat16's rounding through four AdamW steps, on shapes the source never
// names; the same binary's steps outside autocast run the plain pair and
// match eager to float32 rounding. kiln explain shows the twin's backward.
//
// RUN: kiln compile --autograd --autocast %s -o %t.cpp
// RUN: FileCheck %s --check-prefix=STITCHED < %t.cpp
// RUN: kiln explain --autograd --autocast %s | FileCheck %s --check-prefix=EXPLAIN
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 6 20 autocast > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 6 20 autocast > %t.cpu.txt 2> %t.cpu.err
// RUN: %compare %t.ref.txt %t.cpu.txt --rtol 3e-2 --atol 3e-3
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
// RUN: %t.ref 6 20 > %t.ref32.txt
// RUN: env KILN_STATS=1 %t.cpu 6 20 > %t.cpu32.txt 2> %t.cpu32.err
// RUN: %compare %t.ref32.txt %t.cpu32.txt
// RUN: FileCheck %s --check-prefix=OUT32 < %t.cpu32.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu32.err
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using kiln::Tensor;

// The hidden layer and a cross_entropy loss: cross_entropy widens the
// twin's bfloat16 logits, so the loss is float32.
KILN_COMPILE()
Tensor classify(const Tensor &x, const Tensor &w1, const Tensor &b1,
                const Tensor &w2, const Tensor &ids) {
  Tensor h = kiln::gelu(kiln::linear(x, w1, b1));
  return kiln::cross_entropy(kiln::matmul(h, w2), ids);
}

// A head whose result is bfloat16 under autocast: its backward receives a
// bfloat16 gradient from the host code's loss.
KILN_COMPILE()
Tensor head(const Tensor &x, const Tensor &w1, const Tensor &w3) {
  return kiln::matmul(kiln::tanh(kiln::linear(x, w1)), w3);
}

// STITCHED: GraphSite site("kiln_classify_0", {{.*}}, true, kiln::abi::AutocastSite::BFloat16Twins);
// STITCHED: {kiln::is_autocast_enabled(), {{.*}}
// STITCHED: kiln_classify_0_plain_autocast_forward
// STITCHED: kiln_classify_0_plain_autocast_backward
// STITCHED: GraphSite site("kiln_head_1", {{.*}}, true, kiln::abi::AutocastSite::BFloat16Twins);
// STITCHED: kiln_head_1_plain_autocast_backward

// EXPLAIN: backward kiln_classify_0_plain_backward: the forward saves
// EXPLAIN: func.func @kiln_classify_0_plain_backward({{.*}}tensor<?x?xf32>
// EXPLAIN: backward kiln_classify_0_plain_autocast_backward: the forward saves {{.*}}extra bf16[?,?]
// EXPLAIN: func.func @kiln_classify_0_plain_autocast_backward({{.*}}tensor<?x?xbf16>
// EXPLAIN-SAME: -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>)
// EXPLAIN: backward kiln_head_1_plain_autocast_backward:

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s %s:", what, kiln::dtypeName(t.dtype()));
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6g", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t c = argc > 2 ? std::atoll(argv[2]) : 8;
  bool mixed = argc > 3 && std::strcmp(argv[3], "autocast") == 0;
  Tensor x = kiln::randn({n, c}, 1);
  Tensor w1 = kiln::randn({2 * c, c}, 2).mul_(0.3).requires_grad_();
  Tensor b1 = kiln::zeros({2 * c}).requires_grad_();
  Tensor w2 = kiln::randn({2 * c, 5}, 3).mul_(0.3).requires_grad_();
  Tensor w3 = kiln::randn({2 * c, 3}, 5).mul_(0.3).requires_grad_();
  Tensor ids = kiln::randint(5, {n}, 4);
  Tensor target = kiln::randn({n, 3}, 6);
  kiln::optim::AdamW opt({w1, b1, w2, w3},
                         kiln::optim::AdamWOptions(1e-2).weight_decay(0.01));
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    kiln::autocast scope(kiln::kBFloat16, mixed);
    Tensor loss = classify(x, w1, b1, w2, ids);
    Tensor out = head(x, w1, w3);
    Tensor fit = (out.to(kiln::kFloat32) - target).pow(2).mean();
    (loss + fit).backward();
    print("loss", loss);
    print("out", out);
    print("fit", fit);
    print("w1.grad", w1.grad());
    print("b1.grad", b1.grad());
    print("w2.grad", w2.grad());
    print("w3.grad", w3.grad());
    opt.step();
  }
  print("w1", w1);
}
// OUT: loss float32:
// OUT: out bfloat16:
// OUT: w1.grad float32:
// OUT: w3.grad float32:
// OUT32: out float32:
// Every call runs compiled, each with its compiled backward.
// EXEC-NOT: kiln: warning
// EXEC: kiln-stats graph_calls=8 compiled=8 guard_misses=0 {{.*}}backward_compiled=8
