//===- PrintTest.cpp - torch-style printing -------------------------------===//
#include "TestUtil.h"

#include <sstream>

using namespace kiln;
using namespace kiln::test;

// Expected strings are what torch 2.x prints for the same tensors.
TEST_CASE("prints like torch", "[print]") {
  CHECK(toString(full({3}, 7.0)) == "tensor([7., 7., 7.])");
  CHECK(toString(F({1, 2, 3, 4}, {2, 2})) ==
        "tensor([[1., 2.],\n        [3., 4.]])");
  CHECK(toString(F({1.5, -2.25}, {2})) == "tensor([ 1.5000, -2.2500])");
  CHECK(toString(F({1e-5, 1}, {2})) == "tensor([1.0000e-05, 1.0000e+00])");
  CHECK(toString(F({1e9, 1}, {2})) == "tensor([1.0000e+09, 1.0000e+00])");
  CHECK(toString(full({}, 3.5)) == "tensor(3.5000)");
  CHECK(toString(arange(3)) == "tensor([0, 1, 2])");
  CHECK(toString(arange(3).to(kInt32)) ==
        "tensor([0, 1, 2], dtype=kiln.int32)");
  CHECK(toString(F({1, 2}, {2}).to(kFloat64)) ==
        "tensor([1., 2.], dtype=kiln.float64)");
  CHECK(toString(F({0, 1}, {2}) > 0.5) == "tensor([False,  True])");
  CHECK(toString(F({NAN, INFINITY, 1}, {3})) == "tensor([nan, inf, 1.])");
  CHECK(toString(zeros({0})) == "tensor([])");
  CHECK(toString(zeros({2, 0})) == "tensor([], size=(2, 0))");
  CHECK(toString(arange(8).reshape({2, 2, 2})) ==
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, "
        "7]]])");
  std::ostringstream os;
  os << F({0.5}, {1});
  CHECK(os.str() == "tensor([0.5000])");
}

TEST_CASE("long rows wrap at 80 columns", "[print]") {
  CHECK(toString(arange(30)) ==
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, "
        "15, 16, 17,\n"
        "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])");
}

TEST_CASE("large tensors are summarised", "[print]") {
  CHECK(toString(arange(2000)) ==
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  CHECK(toString(arange(2000).reshape({40, 50})) ==
        "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
        "        [  50,   51,   52,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
        "        ...,\n"
        "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
        "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
        "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])");
}
