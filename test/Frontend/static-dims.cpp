// Tests graphs that mix dims known at compile time with dynamic ones: a
// host bool choosing between arms whose static sizes differ (the select
// takes both at the sizes neither promises), a dtype cast and a slice of
// static dims, and results that keep static dims. Every graph runs
// compiled with the eager results, at sizes the source never names.
//
// RUN: %matches_eager %s %t 6
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
using kiln::Tensor;

KILN_COMPILE() Tensor pick(const Tensor &x, bool wide) {
  Tensor y = x.reshape({-1, 8});
  if (wide)
    y = x.reshape({x.size(0), -1});
  return y * 2.0f;
}

KILN_COMPILE() Tensor halves(const Tensor &x) {
  Tensor h = x.reshape({x.size(0), 2, 8}).to(kiln::kFloat64);
  return h.slice(1, 1, 2) - kiln::sum(h.slice(2, 0, 4), {2}, true) * 0.5;
}

static void show(const char *tag, const Tensor &t) {
  std::printf("%s dim=%lld", tag, (long long)t.dim());
  for (int64_t s : t.shape())
    std::printf(" %lld", (long long)s);
  std::printf(" sum=%f\n", kiln::sum(t.to(kiln::kFloat64)).item<double>());
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Tensor x = kiln::randn({n, 16}, 1);
  show("narrow", pick(x, false));
  show("wide", pick(x, true));
  show("halves", halves(x));
}
