// Tests that every value a compiled graph assigns and code outside it can
// observe is a graph output (docs/frontend.md: every graph is a pure
// function of what is live into it, returning what is live out): the
// return value, Tensor& and scalar& out-parameters of the root, members
// assigned through `this` (explicitly or not), variables a lambda captures
// by reference, variables a host loop's body carries to the next
// iteration, globals, and what an inlined callee assigns through its
// reference parameters, and outputs that are the call's own inputs (a swap).
// A mutable lambda's by-copy capture is its own copy (the assignment stays
// host code). The program prints every one of them;
// compiled and eager must print the same, on shapes the source never
// names, with every graph call compiled.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 6
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %t.eager 6 > %t.eager.txt
// RUN: %compare %t/ref.txt %t.eager.txt

// CHECK-LABEL: out_param (
// CHECK: outputs: return aux
// CHECK-LABEL: scalar_out (
// CHECK: outputs: return rows
// CHECK-LABEL: Cache::forward (
// CHECK: outputs: return this->last this->count
// CHECK-LABEL: lambda_ref (
// CHECK: outputs: return
// CHECK-LABEL: loop_carried (
// CHECK: outputs: h
// CHECK-LABEL: global_write (
// CHECK: outputs: return g_last
// CHECK-LABEL: through_callee (
// CHECK: inputs: x (f32 tensor of rank 2){{$}}
// CHECK: outputs: return neg_out
// CHECK-LABEL: mutable_copy (
// CHECK: a lambda capturing by copy 'h', a variable that changes (the copy may differ from it)
// CHECK-LABEL: Swapper::swap (
// CHECK: outputs: this->a this->b this->c

#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

static void show(const char *tag, const Tensor &t) {
  if (!t.defined()) { std::printf("%s undefined\n", tag); return; }
  Tensor c = t.to(kiln::kFloat64).contiguous();
  std::printf("%s dtype=%s shape=[", tag, kiln::dtypeName(t.dtype()));
  for (int64_t s : t.shape()) std::printf("%lld,", (long long)s);
  std::printf("] sum=%.6f first=%.6f\n", kiln::sum(c).item<double>(), c.numel() ? c.data<double>()[0] : 0.0);
}

Tensor g_last; // a global the compiled code assigns

// 1. A Tensor& out-parameter of the root.
KILN_COMPILE() Tensor out_param(const Tensor &x, Tensor &aux) {
  Tensor y = kiln::relu(x);
  aux = kiln::sum(y * y, {1});
  return y * 2.0f;
}

// 2. A scalar out-parameter.
KILN_COMPILE() Tensor scalar_out(const Tensor &x, int64_t &rows) {
  rows = x.size(0) * 2;
  return x + 1.0f;
}

// 3. Members assigned through this, explicitly and implicitly.
struct Cache {
  Tensor w, last, count;
  KILN_COMPILE() Tensor forward(const Tensor &x) {
    Tensor h = kiln::matmul(x, w);
    this->last = h;
    count = kiln::sum(h > 0.0f, {1});
    return kiln::tanh(last);
  }
};

// 4. A variable captured by reference in a lambda.
KILN_COMPILE() Tensor lambda_ref(const Tensor &x) {
  Tensor acc = x * 0.5f;
  auto add = [&](const Tensor &t) { acc = acc + t; };
  add(x);
  add(kiln::exp(x));
  return acc;
}

// 5. An outer variable a host loop's body writes.
KILN_COMPILE() Tensor loop_carried(const Tensor &x, int n) {
  Tensor h = x;
  for (int i = 0; i < n; ++i) {
    h = h * 0.5f + 1.0f;
  }
  return h;
}

// 6. A global.
KILN_COMPILE() Tensor global_write(const Tensor &x) {
  g_last = kiln::sigmoid(x);
  return x - 1.0f;
}

// 7. An inlined callee's reference parameter.
static void split(const Tensor &x, Tensor &pos, Tensor &neg) {
  pos = kiln::relu(x);
  neg = kiln::relu(-x);
}
KILN_COMPILE() Tensor through_callee(const Tensor &x, Tensor &neg_out) {
  Tensor p = x, n = x;
  split(x, p, neg_out);
  split(x * 2.0f, n, n);
  return p + n;
}

// 8. A mutable lambda's copy is its own.
KILN_COMPILE() Tensor mutable_copy(const Tensor &x) {
  Tensor h = x + 1.0f;
  auto f = [h]() mutable { h = h * 3.0f; return h; };
  Tensor r = f();
  return r + h;
}

// 9. Outputs that are inputs of the same call: a swap of members.
struct Swapper {
  Tensor a, b, c;
  KILN_COMPILE() void swap() {
    Tensor t = a;
    a = b;
    b = t;
    c = c * 2.0f;
  }
};

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 5;
  Tensor x = kiln::randn({n, n + 2}, 3);
  Tensor aux;
  show("out_param", out_param(x, aux));
  show("aux", aux);
  int64_t rows = 0;
  show("scalar_out", scalar_out(x, rows));
  std::printf("rows=%lld\n", (long long)rows);
  Cache c{kiln::randn({n + 2, 4}, 4), Tensor(), Tensor()};
  show("forward", c.forward(x));
  show("last", c.last);
  show("count", c.count);
  show("lambda_ref", lambda_ref(x));
  show("loop_carried", loop_carried(x, 3));
  show("global_write", global_write(x));
  show("g_last", g_last);
  Tensor neg;
  show("through_callee", through_callee(x, neg));
  show("neg", neg);
  show("mutable_copy", mutable_copy(x));
  Swapper sw{kiln::exp(x), kiln::tanh(x), x * 3.0f};
  sw.swap();
  show("sw.a", sw.a);
  show("sw.b", sw.b);
  show("sw.c", sw.c);
}
