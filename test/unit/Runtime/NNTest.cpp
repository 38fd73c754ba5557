//===- NNTest.cpp - embedding, conv2d, cat, cross_entropy -----------------===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

TEST_CASE("embedding picks rows", "[nn]") {
  Tensor table = F({0, 1, 10, 11, 20, 21}, {3, 2});
  checkTensor(embedding(from_vector<int64_t>({2, 0, 2}, {3}), table), {3, 2},
              kFloat32, {20, 21, 0, 1, 20, 21});
  checkTensor(embedding(from_vector<int32_t>({1, 1, 0, 2}, {2, 2}), table),
              {2, 2, 2}, kFloat32, {10, 11, 10, 11, 0, 1, 20, 21});
  CHECK_KILN_ERROR(embedding(from_vector<int64_t>({3}, {1}), table),
                   "embedding", "index 3", "3 rows");
  CHECK_KILN_ERROR(embedding(from_vector<int64_t>({-1}, {1}), table),
                   "embedding", "-1");
  CHECK_KILN_ERROR(embedding(ones({2}), table), "embedding", "integer",
                   "float32");
}

TEST_CASE("conv2d, hand-computed", "[nn]") {
  // 1x1x3x3 input, a 2x2 kernel of ones: sums of 2x2 windows.
  Tensor x = arange(9).to(kFloat32).reshape({1, 1, 3, 3});
  Tensor w = ones({1, 1, 2, 2});
  checkTensor(conv2d(x, w), {1, 1, 2, 2}, kFloat32, {8, 12, 20, 24});
  checkTensor(conv2d(x, w, F({1}, {1}), 2, 1), {1, 1, 2, 2}, kFloat32,
              {1, 4, 10, 25});
  // Unbatched input, two output channels, stride {1, 2}.
  Tensor w2 = cat({ones({1, 1, 2, 2}), -ones({1, 1, 2, 2})}, 0);
  checkTensor(conv2d(x.squeeze(0), w2, Tensor(), Shape{1, 2}, Shape{0}),
              {2, 2, 1}, kFloat32, {8, 20, -8, -20});
}

TEST_CASE("conv2d misuse is reported", "[nn][errors]") {
  Tensor x = ones({1, 3, 5, 5});
  CHECK_KILN_ERROR(conv2d(x, ones({2, 4, 3, 3})), "conv2d", "3 channels",
                   "expects 4");
  CHECK_KILN_ERROR(conv2d(ones({5, 5}), ones({1, 1, 3, 3})), "conv2d",
                   "[5, 5]");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 7, 7})), "conv2d", "larger");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 3, 3}), Tensor(), 0, 0), "conv2d",
                   "stride");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 3, 3}), ones({2})), "conv2d", "bias");
}

TEST_CASE("cat along any dim", "[nn]") {
  Tensor a = F({1, 2, 3, 4}, {2, 2}), b = F({5, 6}, {2, 1});
  checkTensor(cat({a, b}, 1), {2, 3}, kFloat32, {1, 2, 5, 3, 4, 6});
  checkTensor(cat({a, b.transpose(0, 1)}, 0), {3, 2}, kFloat32,
              {1, 2, 3, 4, 5, 6});
  checkTensor(cat({a, a}, -1), {2, 4}, kFloat32, {1, 2, 1, 2, 3, 4, 3, 4});
  CHECK_KILN_ERROR(cat({a, b}, 0), "cat", "tensor 1", "[2, 1]", "[2, 2]");
  CHECK_KILN_ERROR(cat({}, 0), "cat", "non-empty");
  CHECK_KILN_ERROR(cat({a, a}, 2), "cat", "dim 2");
}

TEST_CASE("cross_entropy is the mean negative log-likelihood", "[nn]") {
  Tensor logits = F({0, 0, 0, 1, 2, 3}, {2, 3});
  Tensor targets = from_vector<int64_t>({1, 2}, {2});
  // Row 0: log 3. Row 1: -log_softmax[2] = 0.4076059644.
  checkTensor(cross_entropy(logits, targets), {}, kFloat32,
              {(std::log(3.0) + 0.4076059644) / 2}, 1e-6);
  checkTensor(cross_entropy(F({0, 0}, {2}), full({}, 0, kInt64)), {}, kFloat32,
              {std::log(2.0)}, 1e-6);
  CHECK_KILN_ERROR(cross_entropy(logits, from_vector<int64_t>({1, 3}, {2})),
                   "cross_entropy", "target 3", "3 rows");
  CHECK_KILN_ERROR(cross_entropy(logits, from_vector<int64_t>({1}, {1})),
                   "cross_entropy", "[1]", "[2, 3]");
  CHECK_KILN_ERROR(cross_entropy(logits, F({1, 2}, {2})), "cross_entropy",
                   "integer");
}
