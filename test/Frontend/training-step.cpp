// Tests a KILN_COMPILE() training step and in-place ops inside compiled
// functions. As torch.compile does without compiled autograd, the calls
// that modify tensors in place (zero_grad, loss.backward(), the optimizer's
// step) are host code between the root's graphs (graph
// breaks): the forward compiles (with --autograd, its backward too, run by
// loss.backward()), and the losses and every parameter after four AdamW
// steps match the uncompiled build on shapes the source never names. A
// graph reading a tensor host code changed reads it as changed.
//
// A tensor that eager autograd saves for the backward and an in-place op
// changes before backward makes eager's backward raise; the compiled
// backward raises the same error whether or not its partition saved that
// tensor (version counters of the inputs and results the gradient formulas
// read), and only then: an output or input no formula reads may change.
// (An input the partition saves to compute a value again from it is
// checked too, as torch.compile does: changing it raises where eager would
// not, never a gradient of other values; docs/training.md.)
//
// A root whose host code writes through a view of a tensor its graphs
// made stays host code (compiled graphs return views as tensors of their
// own).
//
// RUN: kiln compile %s --autograd -o %t.cpp 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: kiln explain %s --autograd | FileCheck %s --check-prefix=EXPLAIN
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref 6 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu 6 > %t.cpu.txt 2> %t.cpu.err
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
// RUN: FileCheck %s --check-prefix=OUT < %t.cpu.txt
// The same graphs as runtime calls (--backend=aot_eager).
// RUN: kiln compile %s --backend=aot_eager -o %t.aot.cpp 2> /dev/null
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.aot.cpp %t.aot.o -o %t.aot %kiln_link
// RUN: %t.aot 6 > %t.aot.txt 2> /dev/null
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.aot.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using kiln::Tensor;

struct Mlp {
  Tensor w1, b1, w2;
  Tensor operator()(const Tensor &x) const {
    return kiln::linear(kiln::gelu(kiln::linear(x, w1, b1)), w2);
  }
};

// EXPLAIN-LABEL: trainStep (
// EXPLAIN: Graph breaks:
// EXPLAIN-NEXT: 1. call to 'kiln::optim::Optimizer::zero_grad'
// EXPLAIN: 2. Tensor::backward is not traced yet
// EXPLAIN: 3. a virtual call
// EXPLAIN: 4. Tensor::item() (a value that depends on tensor data)
// EXPLAIN: Graph kiln_trainStep_{{[0-9]+}} (6 ops):
// EXPLAIN: %{{[0-9]+}} = linear(
// EXPLAIN: %{{[0-9]+}} = mean(
// COMPILE-NOT: could not compile 'trainStep'
KILN_COMPILE() float trainStep(Mlp &m, kiln::optim::AdamW &opt, const Tensor &x,
                               const Tensor &y) {
  opt.zero_grad();
  Tensor loss = kiln::mean(kiln::square(m(x) - y));
  loss.backward();
  opt.step();
  return loss.item<float>();
}

// An in-place op on a tensor the graph made, which nothing else sees, is
// traced as its functional op: one graph, without a backward.
// COMPILE-NOT: could not compile 'scaledBetween'
// EXPLAIN-LABEL: scaledBetween (
// EXPLAIN: no backward for kiln_scaledBetween_{{[0-9]+}}: Tensor::mul_ at training-step.cpp:[[# @LINE + 3]]:5 modifies a tensor in place, which eager autograd checks against what it saved
KILN_COMPILE() Tensor scaledBetween(const Tensor &x) {
  Tensor h = kiln::relu(x) + 1;
  h.mul_(3);
  return h * h;
}

// tanh's formula reads its result, which the root then changes: the graph
// runs eagerly when a gradient is needed, and eager's backward raises.
// EXPLAIN-LABEL: tanhThenScaled (
// EXPLAIN: no backward for kiln_tanhThenScaled_{{[0-9a-z_]+}}: Tensor::mul_
KILN_COMPILE() Tensor tanhThenScaled(const Tensor &x) {
  Tensor h = kiln::tanh(x);
  h.mul_(2);
  return (h * h).sum();
}

// The same change by the caller, after the graph: its backward checks the
// result it reads.
// EXPLAIN-LABEL: squashed (
// EXPLAIN: backward kiln_squashed_{{[0-9a-z_]+}}_backward: {{.*}}; checked at backward for in-place changes (what eager saves): result 0
KILN_COMPILE() Tensor squashed(const Tensor &x) { return kiln::tanh(x * 3); }
KILN_COMPILE() Tensor affine(const Tensor &x, const Tensor &w) {
  return x * w + 1;
}

// A view of a tensor a graph made, written by the root's own host code.
// COMPILE: training-step.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'localView': 'v' and 'a' may share elements, and it modifies a tensor in place (Tensor::mul_ at training-step.cpp:[[# @LINE + 4]]:{{[0-9]+}}): compiled graphs return views as tensors of their own
KILN_COMPILE() Tensor localView(const Tensor &x) {
  Tensor a = x * 2;
  Tensor v = a.narrow(0, 0, 1);
  v.mul_(10); // a changes too
  return a + 1;
}

static void print(const char *what, const Tensor &t) {
  std::printf("%s %s\n", what, kiln::toString(t).c_str());
}

/// Runs f, then backward; prints the gradient or that backward raised
/// eager's version-counter error (its text names the node, which differs).
template <typename F> static void backwardOf(const char *what, F f) {
  Tensor x = kiln::randn({3, 4}, 7).requires_grad_();
  try {
    f(x).sum().backward();
    print(what, x.grad());
  } catch (const kiln::Error &e) {
    std::string m = e.what();
    std::printf("%s raises: %s\n", what,
                m.find("modified by an inplace operation") != std::string::npos
                    ? "modified by an inplace operation"
                    : m.c_str());
  }
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 5;
  Mlp m{(kiln::randn({2 * n, n}, 1) * 0.3).requires_grad_(),
        kiln::zeros({2 * n}).requires_grad_(),
        (kiln::randn({3, 2 * n}, 2) * 0.3).requires_grad_()};
  kiln::optim::AdamW opt({m.w1, m.b1, m.w2}, kiln::optim::AdamWOptions(1e-2));
  Tensor x = kiln::randn({7, n}, 3), y = kiln::randn({7, 3}, 4);
  for (int i = 0; i < 4; ++i)
    std::printf("loss %d %.6f\n", i, trainStep(m, opt, x, y));
  print("w1", m.w1);
  print("b1", m.b1);
  print("w2", m.w2);
  print("scaledBetween", scaledBetween(kiln::randn({2, n}, 5)));
  // OUT: tanhThenScaled raises: modified by an inplace operation
  backwardOf("tanhThenScaled", [](const Tensor &x) { return tanhThenScaled(x); });
  // OUT: squashed raises: modified by an inplace operation
  backwardOf("squashed", [](const Tensor &x) {
    Tensor h = squashed(x);
    h.mul_(2);
    return h;
  });
  // x * w keeps w for x's gradient.
  // OUT: affineWeightChanged raises: modified by an inplace operation
  backwardOf("affineWeightChanged", [](const Tensor &x) {
    Tensor w = kiln::randn({3, 4}, 8);
    Tensor h = affine(x, w);
    w.add_(1);
    return h;
  });
  // Its result feeds no formula: changing it is allowed.
  // OUT: affineResultChanged tensor(
  backwardOf("affineResultChanged", [](const Tensor &x) {
    Tensor h = affine(x, kiln::randn({3, 4}, 8));
    h.mul_(2);
    return h;
  });
  print("localView", localView(kiln::randn({2, n}, 6)));
}

// trainStep: 4 forwards and their backwards; scaledBetween 1 graph;
// tanhThenScaled 1, eagerly (a gradient is needed: eager's backward
// raises); squashed 1 (its backward raises); affine 2, one backward (the
// other raises); localView 1, eagerly.
// EXEC: kiln: warning: graph kiln_tanhThenScaled_{{[0-9a-z_]+}} ({{.*}}) runs eagerly: an input requires grad and the graph has no compiled backward (Tensor::mul_
// EXEC: kiln: warning: graph localView ({{.*}}) runs eagerly
// EXEC: kiln-stats graph_calls=10 compiled=8 guard_misses=2 {{.*}} backward_compiled=5
