//===- NormalizationTest.cpp - softmax, log_softmax, layer_norm, rms_norm -===//
#include "TestUtil.h"

#include <limits>

using namespace kiln;
using namespace kiln::test;

TEST_CASE("softmax and log_softmax, hand-computed", "[normalization]") {
  Tensor x = F({0, 1, 2, 3, 3, 3}, {2, 3});
  checkTensor(
      softmax(x, 1), {2, 3}, kFloat32,
      {0.0900305732, 0.2447284711, 0.6652409558, 1 / 3.0, 1 / 3.0, 1 / 3.0});
  checkTensor(log_softmax(x, -1), {2, 3}, kFloat32,
              {-2.4076059644, -1.4076059644, -0.4076059644, -1.0986122887,
               -1.0986122887, -1.0986122887});
  checkTensor(softmax(x, 0), {2, 3}, kFloat32,
              {0.0474258732, 0.1192029220, 0.2689414214, 0.9525741268,
               0.8807970780, 0.7310585786});
  checkTensor(softmax(full({}, 5.0), 0), {}, kFloat32, {1});
}

TEST_CASE("softmax is stable for large inputs and masks", "[normalization]") {
  const float inf = std::numeric_limits<float>::infinity();
  checkTensor(softmax(F({1000, 1000}, {2}), 0), {2}, kFloat32, {0.5, 0.5});
  checkTensor(softmax(F({0, -inf, 0}, {3}), 0), {3}, kFloat32, {0.5, 0, 0.5}, 0,
              0);
  checkTensor(log_softmax(F({-1000, 0}, {2}), 0), {2}, kFloat32, {-1000, 0});
  // A fully masked row is NaN, as in torch.
  checkTensor(softmax(F({-inf, -inf}, {2}), 0), {2}, kFloat32, {NAN, NAN});
}

TEST_CASE("layer_norm and rms_norm, hand-computed", "[normalization]") {
  Tensor x = F({1, 2, 3, 4, 2, 2, 2, 2}, {2, 4});
  Tensor w = F({1, 1, 2, 2}, {4}), b = F({0, 1, 0, 1}, {4});
  // Row 0: mean 2.5, variance 1.25.
  double s = 1 / std::sqrt(1.25 + 1e-5);
  checkTensor(layer_norm(x, w, b, 1e-5), {2, 4}, kFloat32,
              {-1.5 * s, -0.5 * s + 1, 1.0 * s, 3.0 * s + 1, 0, 1, 0, 1}, 1e-5);
  checkTensor(layer_norm(x, w, Tensor(), 1e-5), {2, 4}, kFloat32,
              {-1.5 * s, -0.5 * s, 1.0 * s, 3.0 * s, 0, 0, 0, 0}, 1e-5);
  double r = 1 / std::sqrt(7.5 + 1e-6);
  checkTensor(rms_norm(x, w, 1e-6), {2, 4}, kFloat32,
              {r, 2 * r, 6 * r, 8 * r, 1, 1, 2, 2}, 1e-5);
}

TEST_CASE("normalisation misuse is reported", "[normalization][errors]") {
  CHECK_KILN_ERROR(softmax(ones({2, 3}), 2), "softmax", "dim 2");
  CHECK_KILN_ERROR(layer_norm(ones({2, 3}), ones({4}), ones({4})), "layer_norm",
                   "[4]", "[2, 3]");
  CHECK_KILN_ERROR(layer_norm(ones({2, 3}), ones({3}), ones({2})), "layer_norm",
                   "bias", "[2]");
  CHECK_KILN_ERROR(rms_norm(ones({3}), ones({2, 3})), "rms_norm", "[2, 3]");
}
