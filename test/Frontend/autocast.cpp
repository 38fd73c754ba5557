// kiln::autocast around compiled code. A graph holding products autocast
// changes is compiled for the dtypes it was traced with, so under autocast
// (opened by the caller, or inside the root itself, where the scope's
// declaration is host code) it runs eagerly, where linear, matmul and
// cross_entropy cast: the same dtypes and values as the uncompiled build,
// with a one-time warning and each call counted as a guard miss. A graph
// of elementwise ops only is unchanged by autocast and stays compiled;
// outside autocast every graph runs compiled. With --autocast each such
// graph also has its autocast twin, which runs those calls compiled, in
// bfloat16 (values within bfloat16's rounding of eager's: the products'
// sums are ordered differently), and autocast(kFloat16) still runs them
// eagerly. Sizes the source never names come from the command line.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 5 24 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 5 24 > %t.cpu.txt 2> %t.cpu.err
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
//
// RUN: kiln compile --autocast %s -o %t.ac.cpp
// RUN: FileCheck %s --check-prefix=TWINS < %t.ac.cpp
// RUN: kiln compile --autocast --emit=kiln %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.ac.cpp %t.ac.o -o %t.ac %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t.ac 5 24 > %t.ac.txt 2> %t.ac.err
// RUN: %compare %t.ref.txt %t.ac.txt --rtol 2e-2 --atol 2e-3
// RUN: FileCheck %s --check-prefix=TWINEXEC < %t.ac.err
// RUN: env KILN_STATS=1 %t.ac 5 24 half > %t.half.txt 2> %t.half.err
// RUN: %t.ref 5 24 half > %t.half.ref.txt
// RUN: %compare %t.half.ref.txt %t.half.txt
// RUN: FileCheck %s --check-prefix=HALF < %t.half.err
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

// TWINS: GraphSite site("kiln_mlp_0", {{.*}}, false, kiln::abi::AutocastSite::BFloat16Twins);
// TWINS: chooseVersion(site, {
// TWINS-NEXT: {!kiln::is_autocast_enabled(), {{.*}}
// TWINS-NEXT: {kiln::is_autocast_enabled(), {{.*}}
// TWINS: return kiln_mlp_0_plain(
// TWINS: return kiln_mlp_0_plain_autocast(

// The twin computes as eager code does under autocast: float32 operands of
// the products cast to bfloat16, what follows in bfloat16.
// IR-LABEL: func.func @kiln_mlp_0_plain_autocast(
// IR: kiln.cast %arg0 : tensor<?x?xf32> to tensor<?x?xbf16>
// IR: kiln.cast %arg1 : tensor<?x?xf32> to tensor<?x?xbf16>
// IR: kiln.linear {{.*}} -> tensor<?x?xbf16>
// IR: kiln.gelu {{.*}} : tensor<?x?xbf16>
// IR: kiln.matmul {{.*}} -> tensor<?x?xbf16>
// IR: kiln.softmax {{.*}} : tensor<?x?xbf16>
// IR: return {{.*}} : tensor<?x?xbf16>
// cross_entropy widens the bfloat16 logits again.
// IR-LABEL: func.func @kiln_loss_1_plain_autocast(
// IR: kiln.linear {{.*}} -> tensor<?x?xbf16>
// IR: kiln.cast {{.*}} : tensor<?x?xbf16> to tensor<?x?xf32>
// IR: kiln.cross_entropy {{.*}} -> tensor<f32>

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
  // "half": the caller's scope in float16, which no twin was compiled for.
  kiln::DType low = argc > 3 ? kiln::kFloat16 : kiln::kBFloat16;
  // OUT: plain float32:
  print("plain", mlp(x, w1, w2));
  {
    kiln::autocast scope(low);
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
// With the twins every call runs compiled.
// TWINEXEC-NOT: kiln: warning
// TWINEXEC: kiln-stats graph_calls=5 compiled=5 guard_misses=0
// HALF: kiln: warning: graph kiln_mlp_0 (autocast.cpp:{{[0-9]+}}) runs eagerly: kiln::autocast is on (float16) and its autocast versions were compiled for bfloat16
// HALF-NOT: kiln: warning
// HALF: kiln-stats graph_calls=5 compiled=4 guard_misses=1
