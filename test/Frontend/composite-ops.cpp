// Tests the ops the runtime composes of elementwise ops (leaky_relu, elu,
// clamp with either bound, minimum/maximum with numbers, sign, the *_like
// factories, isnan, isinf, isfinite, the logical ops, masked_fill, lerp,
// the reductions var, std, logsumexp, norm, any, all, and linspace): traced
// into the same ops
// as free functions and as methods, in one graph, and compiled to what the
// eager build prints at sizes the source never names, NaN and infinities
// in the input included. masked_fill keeps an integer tensor's dtype; a
// lerp weight known only at run time picks its formula at run time.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 3 0.25
// RUN: env KILN_MIN_COMPILED_PERCENT=90 %matches_eager %s %t 11 0.75
#include <kiln/kiln.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using kiln::Tensor;

struct Activations {
  float slope = 0.2f;
  // CHECK-LABEL: Activations::forward (
  // CHECK-NOT: Graph breaks
  // CHECK: %[[LO:[0-9]+]] = from_scalar
  // CHECK: %[[HI:[0-9]+]] = from_scalar
  // CHECK: clamp(%0, %[[LO]], %[[HI]])
  // CHECK: %[[HALF:[0-9]+]] = from_scalar
  // CHECK: clamp(%0, _, %[[HALF]])
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor a = kiln::leaky_relu(x, slope) + x.elu(1.5) + kiln::leaky_relu(x);
    Tensor b = kiln::clamp(x, -1.0f, 2.0f) + x.clamp(std::nullopt, 0.5f) +
               kiln::clamp(x, 0);
    return a + b + kiln::maximum(x, 0.25f) + kiln::minimum(1, x);
  }
};

// CHECK-LABEL: checks (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor checks(const Tensor &x, const Tensor &ids) {
  Tensor finite = kiln::isfinite(x);
  Tensor special = kiln::logical_or(kiln::isnan(x), x.isinf());
  Tensor both = kiln::logical_and(finite, ids).logical_not();
  return finite.to(kiln::kInt64) * 100 + special.to(kiln::kInt64) * 10 +
         both.to(kiln::kInt64) + kiln::sign(ids) * 1000 +
         kiln::ones_like(ids) + kiln::full_like(ids, 2.7) +
         x.sign().to(kiln::kInt64) * 10000;
}

// CHECK-LABEL: fill (
// CHECK-NOT: Graph breaks
KILN_COMPILE()
Tensor fill(const Tensor &scores, const Tensor &mask, const Tensor &ids,
            const Tensor &a, const Tensor &b, double weight) {
  Tensor masked = kiln::masked_fill(scores, mask, -1e9f);
  Tensor kept = ids.masked_fill(mask, 2.7); // stays int64: 2
  return kiln::softmax(masked, -1) + kept.to(kiln::kFloat32) +
         kiln::zeros_like(a) + kiln::full_like(a, 0.5f) +
         kiln::lerp(a, b, weight) + a.lerp(b, 0.75);
}

// CHECK-LABEL: stats (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor stats(const Tensor &x, const Tensor &ids) {
  Tensor spread = kiln::var(x, {-1}, 1, true) + kiln::std(x, {-1}, 0, true) +
                  kiln::logsumexp(x, {-1}, true);
  Tensor norms = kiln::norm(x, 2, {-1}, true) + kiln::norm(x, 1, {-1}, true) +
                 kiln::norm(x, INFINITY, {-1}, true) +
                 kiln::norm(x, 3, {-1}, true) + kiln::norm(x, 0, {-1}, true);
  Tensor flags = kiln::any(ids, {-1}, true).to(kiln::kFloat32) +
                 kiln::all(ids + 2, {-1}, true).to(kiln::kFloat32);
  return spread + norms + flags + kiln::var(x) + kiln::norm(x);
}

// linspace with a host step count and end: a ramp over the last dim.
// CHECK-LABEL: ramps (
// CHECK-NOT: Graph breaks
KILN_COMPILE() Tensor ramps(const Tensor &x, double top) {
  return x * kiln::linspace(-1.0, top, x.size(-1)) +
         kiln::linspace(0, 1, 5).sum() +
         kiln::linspace(2.0, 2.0, 1, kiln::kFloat64).to(kiln::kFloat32);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  double weight = argc > 2 ? std::atof(argv[2]) : 0.5;
  Tensor x = kiln::randn({n, 6}, 1) * 2.0f;
  Activations act;
  std::printf("activations %.5f\n", kiln::sum(act.forward(x)).item<float>());
  std::cout << ramps(x, weight * 7) << "\n";
  // NaN and infinities, in the first row.
  std::vector<float> special(static_cast<size_t>(n * 6), 1.0f);
  special[0] = NAN;
  special[1] = INFINITY;
  special[2] = -INFINITY;
  special[3] = 0.0f;
  Tensor xs = kiln::from_vector(special, {n, 6}) * x;
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n * 6; ++i)
    values.push_back(i % 3 - 1);
  Tensor ids = kiln::from_vector(values, {n, 6});
  std::printf("checks %lld\n",
              static_cast<long long>(kiln::sum(checks(xs, ids)).item<int64_t>()));
  Tensor mask = kiln::arange(6) > 2;
  Tensor y = fill(x, mask, ids, x, x * 3.0f, weight);
  std::printf("fill %.5f\n", kiln::sum(y).item<float>());
  std::printf("stats %.4f\n", kiln::sum(stats(x, ids)).item<float>());
}
