//===- FactoryTest.cpp - zeros, ones, full, arange, randn, from_vector ----===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

TEST_CASE("constant factories", "[factory]") {
  checkTensor(zeros({2}), {2}, kFloat32, {0, 0});
  checkTensor(ones({2}, kInt32), {2}, kInt32, {1, 1});
  checkTensor(full({2, 1}, 2.5, kFloat64), {2, 1}, kFloat64, {2.5, 2.5});
  checkTensor(full({}, true, kBool), {}, kBool, {1});
  CHECK(empty({3, 0}).numel() == 0);
  CHECK_KILN_ERROR(zeros({2, -1}), "negative size", "[2, -1]");
}

TEST_CASE("arange: integers give int64, floats give float32", "[factory]") {
  checkTensor(arange(4), {4}, kInt64, {0, 1, 2, 3});
  checkTensor(arange(1, 8, 3), {3}, kInt64, {1, 4, 7});
  checkTensor(arange(5, 0, -2), {3}, kInt64, {5, 3, 1});
  checkTensor(arange(0.0, 1.0, 0.25), {4}, kFloat32, {0, 0.25, 0.5, 0.75});
  CHECK(arange(0).numel() == 0);
  CHECK_KILN_ERROR(arange(0, 5, 0), "arange", "step");
  CHECK_KILN_ERROR(arange(5, 0, 1), "arange", "away");
}

TEST_CASE("from_vector checks the element count", "[factory]") {
  checkTensor(from_vector<double>({1, 2, 3, 4}, {2, 2}), {2, 2}, kFloat64,
              {1, 2, 3, 4});
  CHECK_KILN_ERROR(from_vector<float>({1, 2, 3}, {2, 2}), "from_vector", "3",
                   "[2, 2]");
}

TEST_CASE("randn is deterministic and standard normal", "[factory]") {
  Tensor a = randn({100000}, 42), b = randn({100000}, 42),
         c = randn({100000}, 43);
  CHECK(values(a) == values(b));
  CHECK(values(a) != values(c));
  // The same seed gives the same stream whatever the shape.
  std::vector<double> all = values(a);
  CHECK(values(randn({10}, 42)) ==
        std::vector<double>(all.begin(), all.begin() + 10));
  CHECK(mean(a).item<double>() == Approx(0).margin(0.01));
  CHECK(mean(a * a).item<double>() == Approx(1).epsilon(0.02));
  // Pinned values: the generator is part of the contract (docs/runtime.md).
  checkTensor(randn({4}, 0, kFloat64), {4}, kFloat64,
              {-1.8839083333524405, 0.8645068595575148, 0.22760793546360525,
               -0.04211268468683916},
              1e-14, 0);
}
