// Tests (a training differential run's find, kiln_fuzz.py --train, seed
// 81, root 37) a graph result that reaches no loss: a layer loop left on
// the host splits the root, so the product `t2 @ b` is a result of the
// first graph that only dead code reads. Its gradient never arrives; the
// compiled backward got zeros for it and computed b's gradient as
// t2^T @ 0, NaN where t2 is inf (a masked_fill with -inf), where eager
// runs no formula and leaves b's gradient undefined. Built with
// --autograd, at sizes the source does not name.
//
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 3 5 4
// RUN: env KILN_COMPILE_FLAGS=--autograd %matches_eager %s %t 2 3 6
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Layer {
  Tensor w;
  Tensor operator()(const Tensor &x) const { return (x * w).tanh() + x; }
};

KILN_COMPILE()
Tensor step(const Tensor &a, const Tensor &b, const std::vector<Layer> &layers) {
  Tensor t0 = std::get<0>(a.topk(1, 0, false));
  Tensor t1 = t0.masked_fill(t0 > -1.5, -INFINITY);
  Tensor t2 = -1 - t1;
  Tensor t3 = kiln::matmul(t2, b);
  for (const Layer &layer : layers)
    t3 = layer(t3);
  Tensor unused = t3.transpose(0, 1);
  Tensor t6 = t0 * 2.0f;
  return t6.permute({1, 0});
}

static void print(const char *what, const Tensor &t) {
  if (!t.defined()) {
    std::printf("%s: undefined\n", what);
    return;
  }
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.6f", flat.data<double>()[i]);
  std::printf("\n");
}

int main(int argc, char **argv) {
  int64_t n0 = argc > 1 ? std::atoll(argv[1]) : 3;
  int64_t n1 = argc > 2 ? std::atoll(argv[2]) : 5;
  int64_t n2 = argc > 3 ? std::atoll(argv[3]) : 4;
  (void)n0;
  Tensor a = (kiln::randint(-32, 33, {n2, n1 + 2}, 1).to(kiln::kFloat64) *
              0.125).slice(-1, 1, n1 + 1);
  a.requires_grad_();
  Tensor b = kiln::randint(-32, 33, {n1, 2}, 2).to(kiln::kFloat64) * 0.125;
  b.requires_grad_();
  std::vector<Layer> layers{
      Layer{kiln::randint(-32, 33, {2}, 3).to(kiln::kFloat64) * 0.125}};
  Tensor r = step(a, b, layers);
  print("r", r);
  (r * kiln::randn(r.shape(), 4).to(kiln::kFloat64)).sum().backward();
  print("a.grad", a.grad());
  print("b.grad", b.grad());
}
