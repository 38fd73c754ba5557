//===- TestUtil.h - Helpers for the runtime's unit tests --------*- C++ -*-===//
#ifndef KILN_TEST_UNIT_TESTUTIL_H
#define KILN_TEST_UNIT_TESTUTIL_H

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace kiln::test {

/// A float32 tensor from values.
inline Tensor F(const std::vector<float> &values, const Shape &shape) {
  return from_vector(values, shape);
}

/// Every element of t, converted to double, in row-major order.
inline std::vector<double> values(const Tensor &t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double *p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Checks shape, dtype and values (|got - want| <= atol + rtol * |want|; NaN
/// matches NaN, infinities match exactly).
inline void checkTensor(const Tensor &t, const Shape &shape, DType dtype,
                        const std::vector<double> &want, double rtol = 1e-6,
                        double atol = 1e-6) {
  REQUIRE(t.defined());
  CHECK(t.shape() == shape);
  CHECK(dtypeName(t.dtype()) == std::string(dtypeName(dtype)));
  std::vector<double> got = values(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    if (std::isnan(want[i]))
      CHECK(std::isnan(got[i]));
    else if (std::isinf(want[i]))
      CHECK(got[i] == want[i]);
    else
      CHECK(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]));
  }
}

} // namespace kiln::test

/// Checks that expr throws kiln::Error whose message contains every string.
#define CHECK_KILN_ERROR(expr, ...)                                            \
  do {                                                                         \
    bool threw_ = false;                                                       \
    try {                                                                      \
      (void)(expr);                                                            \
    } catch (const kiln::Error &e_) {                                          \
      threw_ = true;                                                           \
      std::string msg_ = e_.what();                                            \
      for (const char *part_ : {__VA_ARGS__}) {                                \
        INFO("message: " << msg_);                                             \
        CHECK(msg_.find(part_) != std::string::npos);                          \
      }                                                                        \
    }                                                                          \
    CHECK(threw_);                                                             \
  } while (0)

#endif
