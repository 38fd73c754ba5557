//===- DTypeTest.cpp - Promotion, casts, 16-bit floats --------------------===//
#include "TestUtil.h"

#include <cmath>
#include <limits>

using namespace kiln;
using namespace kiln::test;

TEST_CASE("promote_types follows torch's lattice", "[dtype]") {
  CHECK(promoteTypes(kBool, kInt32) == kInt32);
  CHECK(promoteTypes(kInt32, kInt64) == kInt64);
  CHECK(promoteTypes(kInt64, kFloat16) == kFloat16);
  CHECK(promoteTypes(kFloat16, kBFloat16) == kFloat32);
  CHECK(promoteTypes(kFloat16, kFloat32) == kFloat32);
  CHECK(promoteTypes(kFloat32, kFloat64) == kFloat64);
  CHECK(promoteTypes(kBool, kBool) == kBool);
}

TEST_CASE("binary ops promote like torch.result_type", "[dtype]") {
  Tensor i32 = ones({2}, kInt32), i64 = ones({2}, kInt64);
  Tensor f32 = ones({2}), f64 = ones({2}, kFloat64), b = ones({2}, kBool);
  Tensor h = ones({2}, kFloat16), bf = ones({2}, kBFloat16);
  CHECK((i32 + i64).dtype() == kInt64);
  CHECK((i32 + f32).dtype() == kFloat32);
  CHECK((f32 + f64).dtype() == kFloat64);
  CHECK((b + b).dtype() == kBool);
  CHECK((b + i32).dtype() == kInt32);
  CHECK((h + bf).dtype() == kFloat32);
  CHECK((h + h).dtype() == kFloat16);
  CHECK((h * i64).dtype() == kFloat16);
  // C++ scalars count less than tensors, unless they bring a higher category.
  CHECK((i32 + 2).dtype() == kInt32);
  CHECK((i32 * 2.5).dtype() == kFloat32);
  CHECK((f64 * 2.5f).dtype() == kFloat64);
  CHECK((h + 1.0).dtype() == kFloat16);
  CHECK((b + 1).dtype() == kInt64);
  CHECK((b * true).dtype() == kBool);
  // So do 0-d tensors.
  CHECK((i32 + full({}, 3, kInt64)).dtype() == kInt32);
  CHECK((i32 + full({}, 3.0, kFloat64)).dtype() == kFloat64);
  CHECK((f32 + full({}, 3.0, kFloat64)).dtype() == kFloat32);
  CHECK((full({}, 1, kInt32) + full({}, 1, kInt64)).dtype() == kInt64);
  // True division, comparisons, floating functions.
  CHECK((i64 / i64).dtype() == kFloat32);
  CHECK((i64 < 2.5).dtype() == kBool);
  CHECK(exp(i64).dtype() == kFloat32);
  CHECK(abs(i32).dtype() == kInt32);
  CHECK(sum(b).dtype() == kInt64);
  CHECK(sum(i32).dtype() == kInt64);
  CHECK(sum(h).dtype() == kFloat16);
  CHECK(where(b, i32, f64).dtype() == kFloat64);
  CHECK(cat({i32, f32}).dtype() == kFloat32);
}

TEST_CASE("integer arithmetic keeps integers and wraps", "[dtype]") {
  Tensor a =
      from_vector<int64_t>({7, -7, std::numeric_limits<int64_t>::max()}, {3});
  checkTensor(a * 2, {3}, kInt64, {14, -14, -2});
  checkTensor(a / 2, {3}, kFloat32, {3.5, -3.5, 4.611686e18}, 1e-6);
  checkTensor(pow(from_vector<int32_t>({2, 3}, {2}), 3), {2}, kInt32, {8, 27});
  CHECK_KILN_ERROR(pow(from_vector<int32_t>({2}, {1}), -1), "pow", "negative");
}

TEST_CASE("casts between every dtype", "[dtype]") {
  Tensor f = F({-1.5f, 0.0f, 2.75f, 1e6f}, {4});
  checkTensor(f.to(kInt32), {4}, kInt32, {-1, 0, 2, 1000000});
  checkTensor(f.to(kBool), {4}, kBool, {1, 0, 1, 1});
  checkTensor(f.to(kFloat64), {4}, kFloat64, {-1.5, 0, 2.75, 1e6});
  checkTensor(f.to(kFloat16), {4}, kFloat16, {-1.5, 0, 2.75, INFINITY});
  checkTensor(f.to(kBFloat16), {4}, kBFloat16, {-1.5, 0, 2.75, 999424});
  // Out-of-range and NaN float -> int conversions are defined (saturate, 0).
  Tensor odd = F({NAN, 1e20f, -1e20f}, {3});
  checkTensor(odd.to(kInt32), {3}, kInt32, {0, 2147483647.0, -2147483648.0});
  CHECK(f.to(kFloat32).shares_storage(f)); // same dtype: no copy
}

TEST_CASE("float16 and bfloat16 round to nearest even", "[dtype]") {
  CHECK(Half(1.0f).bits == 0x3c00);
  CHECK(Half(65504.0f).bits == 0x7bff);
  CHECK(Half(65520.0f).bits == 0x7c00); // rounds up to inf
  CHECK(Half(5.96e-8f).bits == 0x0001); // smallest subnormal
  CHECK(Half(0.1f).bits == 0x2e66);
  CHECK(float(Half(0.1f)) == Approx(0.0999755859375));
  CHECK(std::isnan(float(Half(NAN))));
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(1.00390625f).bits == 0x3f80); // tie to even
  CHECK(BFloat16(1.01171875f).bits == 0x3f82); // tie to even, upwards
  CHECK(float(BFloat16(3.14159f)) == 3.140625f);
  CHECK(std::isnan(float(BFloat16(NAN))));
}

TEST_CASE("16-bit floats compute in float32 and round the result", "[dtype]") {
  Tensor h = F({1.0f, 2.0f, 3.0f}, {3}).to(kFloat16);
  Tensor r = exp(h);
  CHECK(r.dtype() == kFloat16);
  checkTensor(r, {3}, kFloat16, {2.71875, 7.390625, 20.078125}, 0, 0);
  checkTensor(sum(h), {}, kFloat16, {6});
  checkTensor(matmul(h, h), {}, kFloat16, {14});
  checkTensor(softmax(F({0, 0}, {2}).to(kBFloat16), 0), {2}, kBFloat16,
              {0.5, 0.5}, 0, 0);
}

TEST_CASE("unsupported dtypes are errors, not undefined behaviour", "[dtype]") {
  Tensor b = ones({2}, kBool), i = ones({2}, kInt64);
  CHECK_KILN_ERROR(-b, "neg", "bool");
  CHECK_KILN_ERROR(b - b, "sub", "bool");
  CHECK_KILN_ERROR(gelu(i), "gelu", "int64");
  CHECK_KILN_ERROR(mean(i), "mean", "int64");
  CHECK_KILN_ERROR(softmax(i, 0), "softmax", "int64");
  CHECK_KILN_ERROR(matmul(b, b), "matmul", "bool");
  CHECK_KILN_ERROR(matmul(ones({2}), ones({2}, kFloat64)), "matmul", "float32",
                   "float64");
  CHECK_KILN_ERROR(randn({2}, 1, kInt32), "randn", "int32");
  CHECK_KILN_ERROR(where(i, i, i), "where", "bool", "int64");
  // torch defines these activations on floating tensors only.
  CHECK_KILN_ERROR(softplus(i), "softplus", "int64");
  CHECK_KILN_ERROR(mish(i), "mish", "int64");
  CHECK_KILN_ERROR(hardswish(b), "hardswish", "bool");
  CHECK_KILN_ERROR(hardsigmoid(i), "hardsigmoid", "int64");
  CHECK_KILN_ERROR(floor(b), "floor", "bool");
  CHECK_KILN_ERROR(square(b), "square", "bool");
}

TEST_CASE("floating functions of integers give float32, rounding keeps them",
          "[dtype]") {
  Tensor i = arange(5) - 2;
  checkTensor(
      sin(i), {5}, kFloat32,
      {std::sin(-2.0), std::sin(-1.0), 0, std::sin(1.0), std::sin(2.0)});
  checkTensor(reciprocal(i + 3), {5}, kFloat32, {1, 0.5, 1.0 / 3, 0.25, 0.2});
  checkTensor(floor(i), {5}, kInt64, {-2, -1, 0, 1, 2});
  checkTensor(square(i), {5}, kInt64, {4, 1, 0, 1, 4});
  checkTensor(round(F({0.5f, 1.5f, 2.5f, -0.5f, -2.5f}, {5})), {5}, kFloat32,
              {0, 2, 2, -0.0, -2}, 0, 0);
}
