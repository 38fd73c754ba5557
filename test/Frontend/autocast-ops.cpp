// Every op kiln::autocast changes, compiled with --autocast and called
// under autocast(kBFloat16): each graph's twin gives the dtypes eager code
// gives under autocast (the products' float32 operands cast to bfloat16,
// their results bfloat16; cross_entropy's bfloat16 logits widened, its loss
// float32), and its values within bfloat16's rounding, so that the
// compiler's list of autocast ops (GraphBody.cpp's autocastOf) and the
// runtime's (each op's detail::AutocastOp) cannot drift apart unnoticed.
// An op off the list (softmax) and a float64 product stay as they are; the
// calls outside autocast run the plain graphs, float32. Sizes the source
// never names come from the command line.
//
// RUN: kiln compile --autocast %s -o %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 3 5 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 3 5 > %t.cpu.txt 2> %t.cpu.err
// RUN: %compare %t.ref.txt %t.cpu.txt --rtol 2e-2 --atol 2e-2
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_COMPILE()
Tensor products(const Tensor &a, const Tensor &b, const Tensor &c) {
  return kiln::matmul(a, b) + kiln::linear(a, b.transpose(0, 1), c);
}

KILN_COMPILE()
Tensor batched(const Tensor &x, const Tensor &y, const Tensor &bias) {
  return kiln::bmm(x, y) + kiln::baddbmm(bias, x, y, 0.5, 2.0);
}

KILN_COMPILE()
Tensor affine(const Tensor &bias, const Tensor &a, const Tensor &b) {
  return kiln::addmm(bias, a, b, 1.0, 0.5);
}

KILN_COMPILE()
Tensor contract(const Tensor &x, const Tensor &y) {
  return kiln::einsum("bij,bjk->bik", {x, y});
}

KILN_COMPILE()
Tensor convolutions(const Tensor &img, const Tensor &w, const Tensor &wt,
                    const Tensor &seq, const Tensor &w1) {
  Tensor y = kiln::conv2d(img, w, Tensor(), 1, 1);
  Tensor up = kiln::conv_transpose2d(y, wt, Tensor(), 2, 1, 1);
  return up.sum({1, 2, 3}) + kiln::conv1d(seq, w1, Tensor(), 1, 1).sum({1, 2});
}

KILN_COMPILE()
Tensor attend(const Tensor &q, const Tensor &k, const Tensor &v) {
  return kiln::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
}

KILN_COMPILE()
Tensor loss(const Tensor &a, const Tensor &b, const Tensor &ids) {
  return kiln::cross_entropy(kiln::matmul(a, b), ids);
}

// Off the list: softmax of a float32 tensor, and a float64 product.
KILN_COMPILE()
Tensor unchanged(const Tensor &a, const Tensor &d) {
  return kiln::softmax(a, -1).sum() + kiln::matmul(d, d).sum().to(kiln::kFloat32);
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s %s:", what, kiln::dtypeName(t.dtype()));
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6g", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2;
  int64_t m = argc > 2 ? std::atoll(argv[2]) : 4;
  Tensor a = kiln::randn({n, m}, 1), b = kiln::randn({m, m}, 2).mul_(0.5);
  Tensor c = kiln::randn({m}, 3);
  Tensor x = kiln::randn({2, n, m}, 4), y = kiln::randn({2, m, m}, 5);
  Tensor img = kiln::randn({1, 2, m + 1, m + 1}, 6);
  Tensor w = kiln::randn({3, 2, 3, 3}, 7).mul_(0.3);
  Tensor wt = kiln::randn({3, 2, 3, 3}, 8).mul_(0.3);
  Tensor seq = kiln::randn({2, 2, m + 3}, 9), w1 = kiln::randn({4, 2, 3}, 10);
  Tensor q = kiln::randn({1, 2, n + 3, 8}, 11), k = kiln::randn({1, 2, n + 3, 8}, 12),
         v = kiln::randn({1, 2, n + 3, 8}, 13);
  Tensor ids = kiln::randint(m, {n}, 14);
  Tensor d = kiln::randn({m, m}, 15, kiln::kFloat64);
  for (bool on : {true, false}) {
    kiln::autocast scope(kiln::kBFloat16, on);
    const char *when = on ? "autocast" : "plain";
    std::printf("%s\n", when);
    print("products", products(a, b, c));
    print("batched", batched(x, y, x));
    print("affine", affine(c, a, b));
    print("contract", contract(x, y));
    print("convolutions", convolutions(img, w, wt, seq, w1));
    print("attend", attend(q, k, v));
    print("loss", loss(a, b, ids));
    print("unchanged", unchanged(a, d));
  }
}
// OUT: autocast
// OUT-NEXT: products bfloat16:
// OUT-NEXT: batched bfloat16:
// OUT-NEXT: affine bfloat16:
// OUT-NEXT: contract bfloat16:
// OUT-NEXT: convolutions bfloat16:
// OUT-NEXT: attend bfloat16:
// OUT-NEXT: loss float32:
// OUT-NEXT: unchanged float32:
// OUT-NEXT: plain
// OUT-NEXT: products float32:
// OUT-NEXT: batched float32:
// OUT-NEXT: affine float32:
// OUT-NEXT: contract float32:
// OUT-NEXT: convolutions float32:
// OUT-NEXT: attend float32:
// OUT-NEXT: loss float32:
// OUT-NEXT: unchanged float32:
// Every call compiled: under autocast the twins, outside the plain graphs.
// EXEC-NOT: kiln: warning
// EXEC: kiln-stats graph_calls=16 compiled=16 guard_misses=0
