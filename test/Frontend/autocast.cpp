// kiln::autocast around compiled code: a graph holding products autocast
// changes was compiled for the dtypes it was traced with, so under
// autocast (opened by the caller, or inside the root itself, where the
// scope's declaration is host code) it runs eagerly, where linear, matmul
// and cross_entropy cast: the same dtypes and values as the uncompiled
// build, with a one-time warning and each call counted as a guard miss. A
// graph of elementwise ops only is unchanged by autocast and stays
// compiled; outside autocast every graph runs compiled. Sizes the source
// never names come from the command line.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 5 24 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 5 24 > %t.cpu.txt 2> %t.cpu.err
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

// EXEC: kiln: warning: graph {{[A-Za-z_0-9]+}} (autocast.cpp:[[# @LINE + 3]]) runs eagerly: kiln::autocast is on (bfloat16) and its products were compiled for the dtypes they were traced with
KILN_COMPILE()
Tensor mlp(const Tensor &x, const Tensor &w1, const Tensor &w2) {
  Tensor h = kiln::gelu(kiln::linear(x, w1));
  return kiln::softmax(kiln::matmul(h, w2.transpose(0, 1)), -1);
}

// EXEC: kiln: warning: graph {{[A-Za-z_0-9]+}} (autocast.cpp:[[# @LINE + 4]]) runs eagerly: kiln::autocast is on (bfloat16)
KILN_COMPILE()
Tensor loss(const Tensor &x, const Tensor &w1, const Tensor &ids) {
  kiln::autocast scope(kiln::kBFloat16);
  return kiln::cross_entropy(kiln::linear(x, w1), ids);
}

// No product: compiled under autocast too.
KILN_COMPILE()
Tensor chain(const Tensor &x) { return kiln::tanh(x * 2.0f + 1.0f) * x; }

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
  Tensor x = kiln::randn({n, c}, 1), w1 = kiln::randn({2 * c, c}, 2),
         w2 = kiln::randn({4, 2 * c}, 3);
  Tensor ids = kiln::randint(2 * c, {n}, 4);
  // OUT: plain float32:
  print("plain", mlp(x, w1, w2));
  {
    kiln::autocast scope;
    // OUT: autocast bfloat16:
    print("autocast", mlp(x, w1, w2));
    // OUT: chain float32:
    print("chain", chain(x));
  }
  // OUT: loss float32:
  print("loss", loss(x, w1, ids));
  // OUT: after float32:
  print("after", mlp(x, w1, w2));
}
// plain, chain and after compiled; both autocast calls and the loss eager.
// EXEC-NOT: kiln: warning
// EXEC: kiln-stats graph_calls=5 compiled=3 guard_misses=2
