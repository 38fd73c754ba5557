// Tests roots that modify a tensor in place. Eagerly a view shares its
// base's elements, so modifying one changes the other; compiled graphs
// return views as tensors of their own, which would lose that (a wrong
// result). An in-place call on a view, an input or a shared handle (an
// optimizer's step included) is host code between a root's graphs; a root whose graphs return a view that such a
// call, or a caller, could write through is left as host code: a warning
// naming the op at compile time, once at run time, each call counted.
// Roots without views compile (training-step.cpp runs such roots).
//
// RUN: kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: kiln explain %s | FileCheck %s --check-prefix=EXPLAIN
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_STATS=1 %t.cpu > %t.cpu.txt 2> %t.cpu.err
// RUN: diff %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.cpu.err
#include <kiln/kiln.h>

#include <cstdio>
#include <vector>

using kiln::Tensor;

// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'viewOfResult': 'v' and 'a' may share elements, and it modifies a tensor in place (Tensor::mul_ at in-place.cpp:[[# @LINE + 4]]:3): compiled graphs return views as tensors of their own (left as host code: views and in-place ops run eagerly)
KILN_COMPILE() Tensor viewOfResult(const Tensor &x) {
  Tensor a = x * 2;
  Tensor v = a.transpose(0, 1);
  v.mul_(10); // a changes too
  return a + 1;
}

// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'viewOfInput': 'row' may be (a view of) an input, and it modifies a tensor in place (Tensor::zero_ at in-place.cpp:[[# @LINE + 4]]:3)
KILN_COMPILE() Tensor viewOfInput(const Tensor &x) {
  Tensor row = x.select(0, 1);
  Tensor y = x * 2;
  row.zero_(); // the caller's x changes
  return y + x;
}

// The compound assignments are in-place ops too (LibTorch's `x += y`).
// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'compoundOnView': 'col' and 'a' may share elements, and it modifies a tensor in place (Tensor::operator+= at in-place.cpp:[[# @LINE + 4]]:7)
KILN_COMPILE() Tensor compoundOnView(const Tensor &x) {
  Tensor a = x - 1;
  Tensor col = a.narrow(1, 0, 1);
  col += 5; // a's first column changes
  a *= 2;
  return a / 4;
}

// On a tensor the root made, with no view of it: traced as the functional
// op, one graph (test/Frontend/in-place-graph.cpp).
// COMPILE-NOT: could not compile 'compoundOnLocal'
// EXPLAIN-LABEL: compoundOnLocal (
// EXPLAIN-NOT: Graph breaks
// EXPLAIN: Graph kiln_compoundOnLocal_{{[0-9]+}} (4 ops):
KILN_COMPILE() Tensor compoundOnLocal(const Tensor &x) {
  Tensor h = x * 3;
  h += x;
  return h - 1;
}

static void scaleInPlace(const Tensor &t) { t.mul_(3); }

// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'throughHelper': 'flat' and 'a' may share elements, and it modifies a tensor in place (Tensor::mul_ at in-place.cpp:[[# @LINE - 2]]:{{[0-9]+}})
KILN_COMPILE() Tensor throughHelper(const Tensor &x) {
  Tensor a = x + 1;
  Tensor flat = a.reshape({-1});
  scaleInPlace(flat);
  return a - 1;
}

struct Trainer {
  Tensor w;
  kiln::optim::SGD *opt;
  // zero_grad, backward, detach and step are graph breaks; `view` is made
  // by host code (a real view of w, which step changes).
  // COMPILE-NOT: could not compile 'Trainer::step'
  KILN_COMPILE() Tensor step(const Tensor &x) {
    opt->zero_grad();
    Tensor loss = kiln::mean(kiln::square(x * w - 1));
    loss.backward();
    Tensor view = w.detach().narrow(0, 0, 1);
    opt->step(); // w (and its view) change
    return view * 1;
  }
};

// Roots without in-place ops whose results share elements eagerly: a view
// of an input, two views of one tensor. This file writes tensors in place,
// so a caller could write through one of them (main does).
// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'slot': the returned tensor may be (a view of) an input, and this file modifies tensors in place: compiled graphs return views as tensors of their own (left as host code: views and in-place ops run eagerly)
KILN_COMPILE() Tensor slot(const Tensor &cache, int64_t t) {
  return cache.narrow(1, t, 1);
}

struct Pair {
  Tensor a, b;
};
// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'both': {{.*}} may share elements
KILN_COMPILE() Pair both(const Tensor &x) {
  Tensor a = x * 2;
  return {a, a.transpose(0, 1)};
}

// A local that only the root's graphs declare, read and write (a sum a
// host loop carries): it holds tensors graphs made, so returning it returns
// no caller's tensor, and the root compiles.
// COMPILE-NOT: warning: kiln could not compile 'carried'
struct Scale {
  Tensor w;
};
KILN_COMPILE() Pair carried(const Tensor &x, const std::vector<Scale> &ws) {
  Tensor y = x * 0;
  for (size_t i = 0; i < ws.size(); ++i)
    y = y + x * ws[i].w;
  return {y, y.sum()};
}

// The same local read by host code, which keeps a handle to it: the caller
// writing to the result writes to what host code kept.
static std::vector<Tensor> kept;
KILN_DISABLE() static void keep(const Tensor &t) { kept.push_back(t); }
// COMPILE: in-place.cpp:[[# @LINE + 1]]:{{[0-9]+}}: warning: kiln could not compile 'leaked': the returned tensor may be (a view of) an input
KILN_COMPILE() Tensor leaked(const Tensor &x) {
  Tensor y = x * 2;
  keep(y);
  return y.reshape({-1});
}

// COMPILE-NOT: warning: kiln could not compile 'pure'
KILN_COMPILE() Tensor pure(const Tensor &x) { return (x * 2).transpose(0, 1) + 1; }

// EXEC-DAG: kiln: warning: graph viewOfResult ({{.*}}) runs eagerly
// EXEC-DAG: kiln: warning: graph viewOfInput ({{.*}}) runs eagerly
// EXEC-DAG: kiln: warning: graph compoundOnView ({{.*}}) runs eagerly
// EXEC-DAG: kiln: warning: graph throughHelper ({{.*}}) runs eagerly
// (Trainer::step's loss graph, without --autograd, runs eagerly to record.)
// EXEC-DAG: kiln: warning: graph kiln_Trainer__step_{{[0-9]+}} ({{.*}}) runs eagerly: input 1 (this->w) requires grad
// EXEC-DAG: kiln: warning: graph leaked ({{.*}}) runs eagerly
// EXEC-NOT: graph pure
// EXEC-NOT: graph carried
// EXEC-NOT: graph kiln_compoundOnLocal
// (scaleInPlace, a callee that breaks, is a root of its own: also eager.
// carried's 4 calls: before the loop, twice in it, the return; Trainer::step
// calls two graphs; compoundOnLocal one.)
// EXEC: kiln-stats graph_calls=17 compiled=8 guard_misses=9
int main() {
  Tensor x = kiln::arange(6).to(kiln::kFloat32).reshape({2, 3});
  std::printf("%s\n", kiln::toString(viewOfResult(x)).c_str());
  Tensor x2 = x.clone();
  std::printf("%s\n", kiln::toString(viewOfInput(x2)).c_str());
  std::printf("%s\n", kiln::toString(x2).c_str());
  std::printf("%s\n", kiln::toString(compoundOnView(x)).c_str());
  std::printf("%s\n", kiln::toString(compoundOnLocal(x)).c_str());
  std::printf("%s\n", kiln::toString(throughHelper(x)).c_str());
  std::printf("%s\n", kiln::toString(pure(x)).c_str());
  Tensor cache = kiln::zeros({2, 4});
  slot(cache, 2).copy_(kiln::ones({2, 1})); // writes cache's column 2
  std::printf("%s\n", kiln::toString(cache).c_str());
  Pair p = both(x);
  p.b.mul_(0); // zeroes p.a too
  std::printf("%s\n", kiln::toString(p.a).c_str());
  Pair c = carried(x, {{kiln::full({3}, 2.0)}, {kiln::full({3}, -0.5)}});
  c.a.add_(1);
  std::printf("%s %s\n", kiln::toString(c.a).c_str(),
              kiln::toString(c.b).c_str());
  leaked(x).mul_(0); // zeroes kept[0]
  std::printf("%s\n", kiln::toString(kept[0]).c_str());
  Tensor w = kiln::ones({3}).requires_grad_();
  kiln::optim::SGD opt({w}, kiln::optim::SGDOptions(0.1));
  Trainer t{w, &opt};
  for (int i = 0; i < 2; ++i)
    std::printf("%s\n", kiln::toString(t.step(kiln::full({3}, 2.0))).c_str());
}
