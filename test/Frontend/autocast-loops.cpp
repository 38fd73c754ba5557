// Values that autocast makes bfloat16 flowing between compiled graphs: an
// RNN's host loop (a graph per time step) carries its hidden state, which
// the first step's autocast twin returns in bfloat16, into the next steps,
// and a graph after the loop with no product (one autocast does not
// change) reads it. With --autocast the loop's graph gets a second twin
// typed for the bfloat16 state (`_autocast16`) and the graph after it a
// version for it (`_16`), so every call under autocast runs compiled, with
// eager's dtypes and values (within bfloat16's rounding: the products sum
// in another order); outside autocast the plain graphs run, float32. Built
// with --autograd as well, the same loop trains under autocast: the
// parameters' float32 gradients match eager's.
//
// RUN: kiln compile --autocast %s -o %t.cpp
// RUN: FileCheck %s --check-prefix=STITCHED < %t.cpp
// RUN: kiln explain --autocast %s | FileCheck %s --check-prefix=EXPLAIN
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 7 12 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 7 12 > %t.cpu.txt 2> %t.cpu.err
// RUN: %compare %t.ref.txt %t.cpu.txt --rtol 3e-2 --atol 3e-3
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
//
// RUN: kiln compile --autocast --autograd %s -o %t.train.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.train.cpp %t.train.o -o %t.train %kiln_link %kernel_link
// RUN: %t.ref 7 12 train > %t.ref.train.txt
// RUN: env KILN_STATS=1 %t.train 7 12 train > %t.train.txt 2> %t.train.err
// RUN: %compare %t.ref.train.txt %t.train.txt --rtol 3e-2 --atol 3e-3
// RUN: FileCheck %s --check-prefix=TRAIN < %t.train.err
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using kiln::Tensor;

KILN_COMPILE()
Tensor rnn(const Tensor &xs, const Tensor &h0, const Tensor &w, const Tensor &u) {
  Tensor h = h0;
  for (int64_t t = 0; t < xs.size(0); ++t)
    h = kiln::tanh(kiln::linear(xs.select(0, t), w) + kiln::linear(h, u));
  kiln::graph_break();
  return kiln::sigmoid(h) * 2.0f - h;
}

// The loop's graph: as traced, its twin, and its twin for a bfloat16 state;
// the graph after the loop: as traced and for a bfloat16 state.
// STITCHED: return kiln_rnn_0_plain(
// STITCHED: return kiln_rnn_0_plain_autocast(
// STITCHED: return kiln_rnn_0_plain_autocast16(
// STITCHED: return kiln_rnn_1_plain(
// STITCHED: return kiln_rnn_1_plain_16(
// EXPLAIN: variant kiln_rnn_0_plain_autocast (5 ops)
// EXPLAIN: variant kiln_rnn_0_plain_autocast16 for {{.*}}h bf16[?,?]{{.*}} (5 ops)
// EXPLAIN: variant kiln_rnn_1_plain_16 for h bf16[?,?] (3 ops)

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s %s:", what, kiln::dtypeName(t.dtype()));
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6g", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t steps = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t hidden = argc > 2 ? std::atoll(argv[2]) : 8;
  bool train = argc > 3 && std::strcmp(argv[3], "train") == 0;
  Tensor xs = kiln::randn({steps, 4, 6}, 1), h0 = kiln::zeros({4, hidden});
  Tensor w = kiln::randn({hidden, 6}, 2).mul_(0.3);
  Tensor u = kiln::randn({hidden, hidden}, 3).mul_(0.3);
  if (train) {
    w.requires_grad_();
    u.requires_grad_();
    for (int step = 0; step < 2; ++step) {
      Tensor out;
      {
        kiln::autocast scope(kiln::kBFloat16);
        out = rnn(xs, h0, w, u);
      }
      Tensor loss = out.to(kiln::kFloat32).pow(2).mean();
      loss.backward();
      print("loss", loss);
      print("w.grad", w.grad());
      print("u.grad", u.grad());
      kiln::NoGradGuard off;
      w.sub_(w.grad() * 0.5);
      u.sub_(u.grad() * 0.5);
      w.mutable_grad() = Tensor();
      u.mutable_grad() = Tensor();
    }
    return 0;
  }
  {
    kiln::autocast scope(kiln::kBFloat16);
    // OUT: autocast bfloat16:
    print("autocast", rnn(xs, h0, w, u));
  }
  // OUT: plain float32:
  print("plain", rnn(xs, h0, w, u));
}
// EXEC-NOT: kiln: warning
// EXEC: kiln-stats graph_calls=16 compiled=16 guard_misses=0
// TRAIN-NOT: kiln: warning
// TRAIN: kiln-stats graph_calls=16 compiled=16 guard_misses=0 {{.*}}backward_compiled=16
