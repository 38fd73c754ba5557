// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 31, root 93) that a compiled kiln::batch_norm in eval mode gives its
// running statistics no gradient, as eager (and torch, where they are
// buffers) does: the trace used them as plain operands, so a running mean
// and variance that required grad got one. The weight and bias take
// theirs, the input its own; built with --autograd, every call and its
// backward compiled, at sizes the source does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 6
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>

using kiln::Tensor;

KILN_COMPILE()
Tensor normalized(const Tensor &x, const Tensor &mean, const Tensor &var,
                  const Tensor &w, const Tensor &b) {
  return kiln::pow(kiln::batch_norm(x, mean, var.abs() + 0.5f, w, b), 2);
}

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t c = argc > 1 ? std::atoll(argv[1]) : 3;
  Tensor x = kiln::randn({2, c, 4}, 1), mean = kiln::randn({c}, 2),
         var = kiln::randn({c}, 3), w = kiln::randn({c}, 4),
         b = kiln::randn({c}, 5);
  for (Tensor *t : {&x, &mean, &var, &w, &b})
    t->requires_grad_();
  Tensor y = normalized(x, mean, var, w, b);
  print("y", y);
  y.sum().backward();
  for (const Tensor *t : {&x, &mean, &var, &w, &b})
    print("grad", t->grad().defined() ? t->grad() : kiln::zeros(t->shape()));
  return 0;
}
