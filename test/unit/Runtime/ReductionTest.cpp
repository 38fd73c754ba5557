//===- ReductionTest.cpp - sum, mean, amax, amin, argmax, argmin ----------===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

TEST_CASE("reductions over dims with keepdim, hand-computed", "[reduction]") {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  checkTensor(sum(a), {}, kFloat32, {21});
  checkTensor(sum(a, 0), {3}, kFloat32, {5, 7, 9});
  checkTensor(sum(a, -1, true), {2, 1}, kFloat32, {6, 15});
  checkTensor(sum(a, {0, 1}, true), {1, 1}, kFloat32, {21});
  checkTensor(mean(a, 1), {2}, kFloat32, {2, 5});
  checkTensor(mean(a, {-2}), {3}, kFloat32, {2.5, 3.5, 4.5});
  checkTensor(amax(a, 0), {3}, kFloat32, {4, 5, 6});
  checkTensor(amin(a, 1, true), {2, 1}, kFloat32, {1, 4});
  checkTensor(amax(a), {}, kFloat32, {6});
  // A reduction over a view and over the middle dim of a 3-d tensor.
  checkTensor(sum(a.transpose(0, 1), 1), {3}, kFloat32, {5, 7, 9});
  Tensor b = arange(24).reshape({2, 3, 4});
  checkTensor(sum(b, 1), {2, 4}, kInt64, {12, 15, 18, 21, 48, 51, 54, 57});
  checkTensor(amax(b, {0, 2}), {3}, kInt64, {15, 19, 23});
  // 0-d input.
  checkTensor(sum(full({}, 4.0)), {}, kFloat32, {4});
  checkTensor(sum(full({}, 4.0), 0), {}, kFloat32, {4});
}

TEST_CASE("integer and bool sums are int64 and wrap", "[reduction]") {
  checkTensor(sum(from_vector(std::vector<bool>{true, true, false}, {3})), {},
              kInt64, {2});
  checkTensor(sum(from_vector<int32_t>({2147483647, 1}, {2})), {}, kInt64,
              {2147483648.0});
  checkTensor(amin(from_vector<int32_t>({5, -3, 2}, {3})), {}, kInt32, {-3});
}

TEST_CASE("long reductions are accurate and threaded", "[reduction]") {
  // 4M elements of 0.1: a float accumulator would drift by ~1%.
  Tensor x = full({1 << 22}, 0.1);
  checkTensor(sum(x), {}, kFloat32, {0.1f * (1 << 22)}, 1e-6);
  checkTensor(mean(x.reshape({4, -1}), 1), {4}, kFloat32,
              {0.1f, 0.1f, 0.1f, 0.1f}, 1e-6);
  Tensor r = randn({3, 100000}, 3);
  checkTensor(amax(r, 1) >= amin(r, 1), {3}, kBool, {1, 1, 1});
}

TEST_CASE("NaN propagates through amax and amin", "[reduction]") {
  Tensor x = F({1, NAN, 3}, {3});
  CHECK(std::isnan(amax(x).item<float>()));
  CHECK(std::isnan(amin(x).item<float>()));
  CHECK(std::isnan(sum(x).item<float>()));
}

TEST_CASE("reduction misuse is reported", "[reduction][errors]") {
  Tensor a = ones({2, 3});
  CHECK_KILN_ERROR(sum(a, 2), "sum", "dim 2", "rank 2");
  CHECK_KILN_ERROR(mean(a, {0, 0}), "mean", "more than once");
  CHECK_KILN_ERROR(amax(zeros({0})), "amax", "size 0", "[0]");
  checkTensor(sum(zeros({0})), {}, kFloat32, {0});
  CHECK(std::isnan(mean(zeros({0})).item<float>()));
}

TEST_CASE("argmax and argmin report misuse", "[reduction][errors]") {
  CHECK_KILN_ERROR(argmax(ones({3}) > 0), "argmax", "bool");
  CHECK_KILN_ERROR(argmin(ones({3, 0}), 1), "argmin", "empty dim");
  CHECK_KILN_ERROR(argmax(ones({3}), 1), "argmax", "dim 1");
  // Ties keep the first; an empty tensor's other dim is fine.
  checkTensor(argmax(F({1, 3, 3, 2}, {4})), {}, kInt64, {1});
  checkTensor(argmin(ones({0, 3}), 1), {0}, kInt64, {});
}
