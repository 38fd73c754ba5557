// Tests compiled training (kiln compile --autograd): a compiled function
// called on parameters that require grad runs its compiled training forward,
// which returns what the backward reads besides the results (here the first
// product: the min-cut partition saves it and recomputes the bias add and
// gelu from it), and its results' grad_fn is the graph's compiled backward,
// one autograd node that backward() runs (KILN_STATS: backward_compiled). The
// losses, every parameter's gradient and the input's match the uncompiled
// build through three SGD steps, on shapes the source never names, and
// through two more with the first layer frozen and an input that needs no
// gradient (the compiled backward skips what only their gradients read:
// kiln-skip-unneeded-gradients); the same functions run compiled under
// NoGradGuard. A graph whose backward
// cannot be built (an allow_in_graph call, which the recomputed forward
// would run again) runs eagerly when a gradient is needed, with a warning
// that says so, and compiled otherwise. kiln explain --autograd
// shows the backward, what the forward saves and what the backward computes
// again.
//
// RUN: kiln compile %s --autograd -o %t.cpp
// RUN: kiln explain %s --autograd | FileCheck %s --check-prefix=EXPLAIN
// RUN: FileCheck %s --check-prefix=STITCHED < %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 5 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 5 > %t.cpu.txt 2> %t.cpu.err
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
// RUN: %t.ref 3 > %t.ref3.txt
// RUN: %t.cpu 3 > %t.cpu3.txt 2> /dev/null
// RUN: %python %S/Inputs/compare.py %t.ref3.txt %t.cpu3.txt
// The same pairs run as printed runtime calls (--backend=aot_eager), with
// the same calls, fallback and warning.
// RUN: kiln compile %s --backend=aot_eager -o %t.aot.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.aot.cpp %t.aot.o -o %t.aot %kiln_link
// RUN: env KILN_STATS=1 %t.aot 5 > %t.aot.txt 2> %t.aot.err
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.aot.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.aot.err
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

struct Mlp {
  Tensor w1, b1, w2;
  // STITCHED: extern "C" void kiln_entry_kiln_Mlp__forward_[[G:[0-9]+]]_forward(void **);
  // STITCHED: extern "C" void kiln_entry_kiln_Mlp__forward_[[G]]_backward(void **);
  // STITCHED: GraphSite site("kiln_Mlp__forward_[[G]]", {{.*}}, kiln_cpu_features_, true, kiln::abi::AutocastSite::Eager);
  // STITCHED: .backward(kiln_entry_kiln_Mlp__forward_[[G]]_forward, kiln_entry_kiln_Mlp__forward_[[G]]_backward, {{[{][{]}}kiln::abi::SavedValue::input, 0}, {kiln::abi::SavedValue::input, 1}, {kiln::abi::SavedValue::input, 2}, {kiln::abi::SavedValue::input, 3}, {kiln::abi::SavedValue::extra, 0, 2, kiln::kFloat32}}, {{[{][{]}}kiln::abi::SavedValue::input, 0}, {kiln::abi::SavedValue::input, 1}, {kiln::abi::SavedValue::input, 3}})
  // (The second list: what eager autograd would keep, checked at backward
  // for in-place changes: x and w1 for the first product, w2 for the
  // second; the bias feeds no formula.)
  // EXPLAIN: backward kiln_Mlp__forward_[[G:[0-9]+]]_backward: the forward saves input x, input this->w1, input this->b1, input this->w2, extra f32[?,?], 65536 bytes beyond its inputs and results; the backward computes 2 ops of the forward again, 131072 bytes (each dynamic dim counted as 128); checked at backward for in-place changes (what eager saves): input x, input this->w1, input this->w2
  // EXPLAIN-NEXT: func.func @kiln_Mlp__forward_[[G]]_backward(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<?xf32>, %arg3: tensor<?x?xf32>, %arg4: tensor<?x?xf32>, %arg5: tensor<?x?xf32>, %arg6: i64, %arg7: i64 {kiln.gradient_need = 0 : i64}, %arg8: i64 {kiln.gradient_need = 1 : i64}, %arg9: i64 {kiln.gradient_need = 2 : i64}, %arg10: i64 {kiln.gradient_need = 3 : i64})
  // EXPLAIN: %0 = kiln.add %arg4, %arg2
  // EXPLAIN-NEXT: %1 = kiln.gelu %0
  // EXPLAIN-NOT: kiln.matmul %arg0, %arg1
  // EXPLAIN: no backward for kiln_peak_{{[0-9]+}}: 'kiln.opaque_call' op has effects that a recomputed forward would repeat
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::matmul(kiln::gelu(kiln::matmul(x, w1) + b1), w2);
  }
};

KILN_ALLOW_IN_GRAPH() Tensor twice(const Tensor &x) { return x * 2; }

// STITCHED: .noBackward("'kiln.opaque_call' op has effects that a recomputed forward would repeat")
// EXEC: kiln: warning: graph {{[A-Za-z_0-9]+}} (compiled-backward.cpp:[[# @LINE + 3]]) runs eagerly: an input requires grad and the graph has no compiled backward ('kiln.opaque_call' op has effects that a recomputed forward would repeat)
// EXEC-NOT: kiln: warning
KILN_COMPILE() Tensor peak(const Tensor &x) {
  return kiln::cumprod(twice(kiln::tanh(x)), 1).sum();
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.5f", flat.data<double>()[i]);
  std::printf("\n");
}

// EXEC: kiln-stats graph_calls=8 compiled=7 guard_misses=1 {{.*}} backward_compiled=5
int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? std::atoll(argv[1]) : 5;
  Mlp m{kiln::randn({4, 8}, 1), kiln::randn({8}, 2), kiln::randn({8, 3}, 3)};
  Tensor x = kiln::randn({batch, 4}, 4);
  std::vector<Tensor> params{m.w1, m.b1, m.w2};
  for (const Tensor &p : params)
    p.requires_grad_();
  x.requires_grad_();
  kiln::optim::SGD opt(params, kiln::optim::SGDOptions(0.05).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    x.mutable_grad() = Tensor();
    Tensor loss = kiln::mean(kiln::square(m.forward(x)));
    loss.backward();
    print("loss", loss);
    print("w1.grad", m.w1.grad());
    print("b1.grad", m.b1.grad());
    print("w2.grad", m.w2.grad());
    print("x.grad", x.grad());
    opt.step();
  }
  // A frozen first layer and data that needs no gradient: the backward is
  // told which gradients are needed and skips the two products that only
  // w1's and x's gradients read; those it computes are the same.
  m.w1.requires_grad_(false);
  Tensor data = x.detach() * 0.5;
  for (int step = 0; step < 2; ++step) {
    opt.zero_grad();
    Tensor loss = kiln::mean(kiln::square(m.forward(data)));
    loss.backward();
    print("frozen loss", loss);
    std::printf("frozen w1.grad defined: %d, data.grad defined: %d\n",
                m.w1.grad().defined(), data.grad().defined());
    print("frozen b1.grad", m.b1.grad());
    print("frozen w2.grad", m.w2.grad());
    opt.step();
  }
  m.w1.requires_grad_();
  Tensor p = peak(x);
  p.backward();
  print("peak", p);
  print("peak x.grad", x.grad());
  kiln::NoGradGuard noGrad;
  print("trained", m.forward(x));
  print("peak", peak(x));
}
