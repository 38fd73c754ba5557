// Tests a compiled function called on parameters that require grad, as a
// training loop calls it: compiled graphs record no autograd yet, so the
// call runs eagerly (every op recorded, backward() reaches the parameters),
// with a one-time warning naming the input and each call counted as a
// guard miss; the same function runs compiled under NoGradGuard and before
// the parameters require grad. Losses and gradients match the uncompiled
// build.
//
// RUN: kiln compile %s -o %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu > %t.cpu.txt 2> %t.cpu.err
// RUN: diff %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

struct Mlp {
  Tensor w1, b1, w2;
  // EXEC: kiln: warning: graph {{[A-Za-z_0-9]+}} (grad-inputs.cpp:[[# @LINE + 3]]) runs eagerly: input {{[0-9]+}} ({{.*}}w1) requires grad and the graph was compiled without its backward (kiln compile --autograd compiles it)
  // EXEC-NOT: kiln: warning
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::matmul(kiln::gelu(kiln::matmul(x, w1) + b1), w2);
  }
};

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.5f", flat.data<double>()[i]);
  std::printf("\n");
}

// EXEC: kiln-stats graph_calls=5 compiled=2 guard_misses=3
int main() {
  Mlp m{kiln::randn({4, 8}, 1), kiln::randn({8}, 2), kiln::randn({8, 3}, 3)};
  Tensor x = kiln::randn({5, 4}, 4);
  print("inference", m.forward(x));
  std::vector<Tensor> params{m.w1, m.b1, m.w2};
  for (const Tensor &p : params)
    p.requires_grad_();
  kiln::optim::SGD opt(params, kiln::optim::SGDOptions(0.05).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    Tensor loss = kiln::mean(kiln::square(m.forward(x)));
    loss.backward();
    // OUT: loss: [[L0:[0-9.]+]]
    // OUT: w1.grad:
    // OUT: loss: [[L1:[0-9.]+]]
    // OUT-NOT: loss: [[L0]]
    print("loss", loss);
    print("w1.grad", m.w1.grad());
    opt.step();
  }
  kiln::NoGradGuard noGrad;
  print("trained", m.forward(x));
}
