//===- ElementwiseTest.cpp - Arithmetic, comparisons, functions -----------===//
#include "TestUtil.h"

#include <limits>

using namespace kiln;
using namespace kiln::test;

TEST_CASE("arithmetic with broadcasting, hand-computed", "[elementwise]") {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor row = F({10, 20, 30}, {3});
  Tensor col = F({100, 200}, {2, 1});
  checkTensor(a + row, {2, 3}, kFloat32, {11, 22, 33, 14, 25, 36});
  checkTensor(a - col, {2, 3}, kFloat32, {-99, -98, -97, -196, -195, -194});
  checkTensor(row * col, {2, 3}, kFloat32,
              {1000, 2000, 3000, 2000, 4000, 6000});
  checkTensor(a / row, {2, 3}, kFloat32, {0.1, 0.1, 0.1, 0.4, 0.25, 0.2});
  checkTensor(2 * a - 1, {2, 3}, kFloat32, {1, 3, 5, 7, 9, 11});
  checkTensor(1 / a.slice(1, 0, 1), {2, 1}, kFloat32, {1, 0.25});
  checkTensor(10 - a + 0.5, {2, 3}, kFloat32, {9.5, 8.5, 7.5, 6.5, 5.5, 4.5});
  checkTensor(-a, {2, 3}, kFloat32, {-1, -2, -3, -4, -5, -6});
  checkTensor(pow(a, 2), {2, 3}, kFloat32, {1, 4, 9, 16, 25, 36});
  checkTensor(pow(F({4, 9}, {2}), 0.5), {2}, kFloat32, {2, 3});
  checkTensor(maximum(a, F({3}, {1})), {2, 3}, kFloat32, {3, 3, 3, 4, 5, 6});
  checkTensor(minimum(a, F({3}, {1})), {2, 3}, kFloat32, {1, 2, 3, 3, 3, 3});
  // Broadcasting to a higher rank and between two size-1 dims.
  checkTensor(F({1, 2}, {2, 1, 1}) + F({10, 20, 30}, {1, 3}), {2, 1, 3},
              kFloat32, {11, 21, 31, 12, 22, 32});
}

TEST_CASE("operands that are strided views", "[elementwise][views]") {
  Tensor a = arange(12).to(kFloat32).reshape({3, 4});
  Tensor t = a.transpose(0, 1); // [4, 3], strides [1, 4]
  checkTensor(t + t, {4, 3}, kFloat32,
              {0, 8, 16, 2, 10, 18, 4, 12, 20, 6, 14, 22});
  Tensor s = a.slice(1, 1, 4, 2); // columns 1 and 3
  checkTensor(s * s.transpose(0, 1).transpose(0, 1), {3, 2}, kFloat32,
              {1, 9, 25, 49, 81, 121});
  checkTensor(exp(a.slice(0, 0, 1).slice(1, 0, 2)), {1, 2}, kFloat32,
              {1, 2.718281828}, 1e-6);
}

TEST_CASE("large tensors take the threaded path and agree", "[elementwise]") {
  Tensor x = randn({257, 1031}, 7);
  Tensor y = x * 2 + 1;
  std::vector<double> xv = values(x), yv = values(y);
  for (size_t i = 0; i < xv.size(); i += 997)
    CHECK(yv[i] == Approx(2 * xv[i] + 1));
  // A broadcast over a transposed operand, compared with the small path.
  Tensor b = randn({1031, 1}, 8);
  Tensor big = x + b.transpose(0, 1);
  Tensor small = x.slice(0, 0, 2) + b.transpose(0, 1);
  CHECK(allclose(big.slice(0, 0, 2), small));
}

TEST_CASE("comparisons give bool tensors", "[elementwise]") {
  Tensor a = F({1, 2, 3}, {3});
  checkTensor(a < 2, {3}, kBool, {1, 0, 0});
  checkTensor(a <= 2, {3}, kBool, {1, 1, 0});
  checkTensor(a > F({0, 5}, {2, 1}), {2, 3}, kBool, {1, 1, 1, 0, 0, 0});
  checkTensor(a >= 2, {3}, kBool, {0, 1, 1});
  checkTensor(a == 2, {3}, kBool, {0, 1, 0});
  checkTensor(a != 2, {3}, kBool, {1, 0, 1});
  checkTensor(F({NAN}, {1}) == F({NAN}, {1}), {1}, kBool, {0});
  checkTensor(arange(3) == F({0, 1.5, 2}, {3}), {3}, kBool, {1, 0, 1});
}

TEST_CASE("where broadcasts all three operands", "[elementwise]") {
  Tensor c = from_vector(std::vector<bool>{true, false, true}, {3});
  checkTensor(where(c, F({1, 2, 3}, {3}), F({-1}, {1})), {3}, kFloat32,
              {1, -1, 3});
  checkTensor(where(c.reshape({3, 1}), 1.0, F({7, 8}, {2})), {3, 2}, kFloat32,
              {1, 1, 7, 8, 1, 1});
  checkTensor(where(c, arange(3), 9), {3}, kInt64, {0, 9, 2});
  CHECK_KILN_ERROR(where(c, ones({2}), ones({3})), "where", "[3]", "[2]");
}

TEST_CASE("masked_fill converts the value to the tensor's dtype",
          "[elementwise]") {
  Tensor c = from_vector(std::vector<bool>{true, false, true}, {3});
  // Integers never pass through float32: 2^40 + 1 stays exact.
  int64_t big = (int64_t(1) << 40) + 1;
  Tensor n = from_vector(std::vector<int64_t>{big, big, big}, {3});
  Tensor filled = masked_fill(n, c, 2.5);
  CHECK(filled.dtype() == kInt64);
  CHECK(filled.data<int64_t>()[0] == 2);
  CHECK(filled.data<int64_t>()[1] == big);
  // A 0-d tensor value, as torch's masked_fill.Tensor.
  checkTensor(masked_fill(F({1, 2, 3}, {3}), c, full({}, -1.0, kFloat64)), {3},
              kFloat32, {-1, 2, -1});
  CHECK_THROWS_WITH(masked_fill(F({1, 2, 3}, {3}), c, ones({1})),
                    "masked_fill only supports a 0-dimensional value tensor, "
                    "but got tensor with 1 dimension(s).");
}

TEST_CASE("elementwise functions, hand-computed", "[elementwise]") {
  Tensor x = F({-2, -0.5, 0, 1, 3}, {5});
  checkTensor(abs(x), {5}, kFloat32, {2, 0.5, 0, 1, 3});
  checkTensor(relu(x), {5}, kFloat32, {0, 0, 0, 1, 3});
  checkTensor(exp(x), {5}, kFloat32,
              {0.1353352832, 0.6065306597, 1, 2.7182818285, 20.0855369232});
  checkTensor(sigmoid(x), {5}, kFloat32,
              {0.1192029220, 0.3775406688, 0.5, 0.7310585786, 0.9525741268});
  checkTensor(tanh(x), {5}, kFloat32,
              {-0.9640275801, -0.4621171573, 0, 0.7615941560, 0.9950547537});
  checkTensor(silu(x), {5}, kFloat32,
              {-0.2384058440, -0.1887703344, 0, 0.7310585786, 2.8577223804});
  checkTensor(gelu(x), {5}, kFloat32,
              {-0.0455002639, -0.1542687213, 0, 0.8413447461, 2.9959502077});
  checkTensor(gelu(x, "tanh"), {5}, kFloat32,
              {-0.0454023, -0.1542859, 0, 0.8411920, 2.9963627}, 1e-5);
  Tensor p = F({0.25, 1, 4}, {3});
  checkTensor(log(p), {3}, kFloat32, {-1.3862943611, 0, 1.3862943611});
  checkTensor(sqrt(p), {3}, kFloat32, {0.5, 1, 2});
  checkTensor(rsqrt(p), {3}, kFloat32, {2, 1, 0.5});
  CHECK_KILN_ERROR(gelu(x, "fast"), "gelu", "fast");
}

TEST_CASE("special values: infinities, NaN, underflow", "[elementwise]") {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = F({-inf, -200, -100, 89, 200, inf, NAN}, {7});
  checkTensor(exp(x), {7}, kFloat32,
              {0, 0, 3.720075976e-44, inf, inf, inf, NAN}, 0.05, 0);
  checkTensor(sigmoid(x), {7}, kFloat32, {0, 0, 3.720075976e-44, 1, 1, 1, NAN},
              0.05, 0);
  checkTensor(relu(x), {7}, kFloat32, {0, 0, 0, 89, 200, inf, NAN});
  checkTensor(maximum(F({NAN, 1}, {2}), F({0, NAN}, {2})), {2}, kFloat32,
              {NAN, NAN});
  checkTensor(log(F({0, -1}, {2})), {2}, kFloat32, {-inf, NAN});
  checkTensor(gelu(F({inf, 10, -10}, {3})), {3}, kFloat32, {inf, 10, 0});
  checkTensor(F({1, -1, 0}, {3}) / 0, {3}, kFloat32, {inf, -inf, NAN});
}

TEST_CASE("exp is within 2 ulp over the float range", "[elementwise]") {
  std::vector<float> xs;
  for (float v = -103.0f; v < 88.5f; v += 0.0137f)
    xs.push_back(v);
  Tensor got = exp(F(xs, {static_cast<int64_t>(xs.size())}));
  const float *g = got.data<float>();
  for (size_t i = 0; i < xs.size(); ++i) {
    double want = std::exp(static_cast<double>(xs[i]));
    double ulp = std::nextafter(static_cast<float>(want), INFINITY) -
                 static_cast<float>(want);
    if (want < 1.17549435e-38) // subnormal results: an absolute bound
      ulp = 1.4e-45;
    INFO("x = " << xs[i]);
    CHECK(std::fabs(g[i] - want) <= 2 * ulp);
  }
}

TEST_CASE("broadcast mismatches name the op, the shapes and the dim",
          "[elementwise][errors]") {
  CHECK_KILN_ERROR(ones({2, 3}) + ones({4}), "add", "[2, 3]", "[4]", "dim -1",
                   "3 and 4");
  CHECK_KILN_ERROR(ones({2, 3}) * ones({3, 3}), "mul", "[2, 3]", "[3, 3]",
                   "dim -2");
  CHECK_KILN_ERROR(ones({2}) < ones({3}), "lt", "[2]", "[3]");
  CHECK_KILN_ERROR(maximum(ones({2}), ones({3})), "maximum");
  CHECK_KILN_ERROR(Tensor() + ones({1}), "add", "undefined");
}
