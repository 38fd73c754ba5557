//===- LinearAlgebraTest.cpp - matmul and linear --------------------------===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

TEST_CASE("matmul follows torch's 1-d, 2-d and batched rules", "[matmul]") {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = F({1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor v = F({1, 1, 1}, {3});
  checkTensor(matmul(a, b), {2, 2}, kFloat32, {4, 5, 10, 11});
  checkTensor(matmul(a, v), {2}, kFloat32, {6, 15});
  checkTensor(matmul(F({1, 2}, {2}), a), {3}, kFloat32, {9, 12, 15});
  checkTensor(matmul(v, v), {}, kFloat32, {3});
  // Batched, with the batch of one side broadcast.
  Tensor batch = cat({a.unsqueeze(0), (a * 2).unsqueeze(0)}, 0); // [2, 2, 3]
  checkTensor(matmul(batch, b), {2, 2, 2}, kFloat32,
              {4, 5, 10, 11, 8, 10, 20, 22});
  checkTensor(matmul(b.transpose(0, 1).unsqueeze(0), batch.transpose(1, 2)),
              {2, 2, 2}, kFloat32, {4, 10, 5, 11, 8, 20, 10, 22});
  checkTensor(matmul(batch.unsqueeze(1), b.unsqueeze(0).expand({3, 3, 2})),
              {2, 3, 2, 2}, kFloat32,
              {4, 5,  10, 11, 4, 5,  10, 11, 4, 5,  10, 11,
               8, 10, 20, 22, 8, 10, 20, 22, 8, 10, 20, 22});
  checkTensor(matmul(v, batch.transpose(1, 2)), {2, 2}, kFloat32,
              {6, 15, 12, 30});
}

TEST_CASE("matmul reads transposed and sliced operands", "[matmul][views]") {
  Tensor x = randn({37, 19}, 1), y = randn({23, 19}, 2);
  Tensor want = matmul(x, y.transpose(0, 1).contiguous());
  CHECK(allclose(matmul(x, y.transpose(0, 1)), want, 1e-5, 1e-5));
  Tensor xs = randn({37, 40}, 3).slice(1, 3, 22); // row stride 40
  CHECK(allclose(matmul(xs, y.transpose(0, 1)),
                 matmul(xs.contiguous(), y.transpose(0, 1).contiguous()), 1e-5,
                 1e-5));
  Tensor odd = randn({19, 74}, 4).slice(1, 0, 74, 2); // column stride 2
  CHECK(allclose(matmul(x, odd), matmul(x, odd.contiguous()), 1e-5, 1e-5));
}

TEST_CASE("matmul of doubles and integers", "[matmul]") {
  checkTensor(matmul(arange(6).reshape({2, 3}), arange(3)), {2}, kInt64,
              {5, 14});
  checkTensor(
      matmul(F({1, 2}, {1, 2}).to(kFloat64), F({3, 4}, {2, 1}).to(kFloat64)),
      {1, 1}, kFloat64, {11});
}

TEST_CASE("linear is x @ w^T + b", "[matmul]") {
  Tensor x = F({1, 2, 3, 4}, {2, 2});
  Tensor w = F({1, 0, 1, 1, 0, 2}, {3, 2});
  Tensor b = F({10, 20, 30}, {3});
  checkTensor(linear(x, w, b), {2, 3}, kFloat32, {11, 23, 34, 13, 27, 38});
  checkTensor(linear(x, w), {2, 3}, kFloat32, {1, 3, 4, 3, 7, 8});
  checkTensor(linear(F({1, 2}, {2}), w, b), {3}, kFloat32, {11, 23, 34});
}

TEST_CASE("matmul and linear misuse is reported", "[matmul][errors]") {
  CHECK_KILN_ERROR(matmul(ones({2, 3}), ones({4, 5})), "matmul", "[2, 3]",
                   "[4, 5]", "size 3", "size 4");
  CHECK_KILN_ERROR(matmul(ones({2, 2, 3}), ones({3, 3, 2})), "matmul", "[2]",
                   "[3]");
  CHECK_KILN_ERROR(matmul(full({}, 1.0), ones({2})), "matmul",
                   "at least 1 dim");
  CHECK_KILN_ERROR(linear(ones({2, 3}), ones({4, 5})), "linear", "in_features",
                   "[4, 5]");
  CHECK_KILN_ERROR(linear(ones({2, 3}), ones({4, 3}), ones({5})), "linear",
                   "bias", "[4]");
  CHECK_KILN_ERROR(linear(ones({2, 3}), ones({3})), "linear", "2-d");
}
