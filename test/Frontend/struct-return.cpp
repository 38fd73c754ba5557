// Tests roots that return braces: an aggregate (`return {logits, loss};`),
// one named (`return Stats{...}`) with a host scalar among its elements,
// and a braced std::pair. Each element is a graph output; the stitched code
// returns the same braces around the results, every graph runs compiled
// and the program prints what its eager build prints, at sizes the source
// never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 6
// CHECK: Kiln produced 3 graphs, with 0 graph breaks
// CHECK: outputs: return.0 return.1
// CHECK: outputs: return.0 return.1 return.2
// CHECK: outputs: return.0 return.1
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
using kiln::Tensor;

struct Output {
  Tensor logits;
  Tensor loss;
};

struct Head {
  Tensor w;
  KILN_COMPILE() Output forward(const Tensor &x, const Tensor &targets) const {
    Tensor logits = kiln::matmul(x, w);
    return {logits, kiln::cross_entropy(logits, targets)};
  }
};

struct Stats {
  Tensor mean;
  int64_t rows;
  Tensor spread;
};

KILN_COMPILE() Stats describe(const Tensor &x) {
  Tensor m = kiln::mean(x, {0}, false);
  return Stats{m, x.size(0), kiln::amax(x, {0}, false) - kiln::amin(x, {0}, false)};
}

KILN_COMPILE() std::pair<Tensor, Tensor> split_sign(const Tensor &x) {
  return {kiln::relu(x), kiln::relu(-x)};
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Head head{kiln::randn({5, 3}, 1)};
  Tensor x = kiln::randn({n, 5}, 2);
  std::vector<int64_t> t;
  for (int64_t i = 0; i < n; ++i)
    t.push_back(i % 3);
  Output out = head.forward(x, kiln::from_vector<int64_t>(t, {n}));
  std::printf("logits %f loss %f\n", kiln::sum(out.logits).item<float>(), out.loss.item<float>());
  Stats s = describe(x);
  std::printf("rows %lld mean %f spread %f\n", (long long)s.rows, kiln::sum(s.mean).item<float>(),
              kiln::sum(s.spread).item<float>());
  auto [pos, neg] = split_sign(x);
  std::printf("pos %f neg %f\n", kiln::sum(pos).item<float>(), kiln::sum(neg).item<float>());
}
