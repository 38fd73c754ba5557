//===- LinearAlgebraTest.cpp - matmul and linear --------------------------===//
#include "TestUtil.h"

#include "ABI/Descriptors.h"
#include "Ops/Gemm.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

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

namespace {
/// detail::gemm (C[n, m] (+)= A[n, k] B[k, m]) at one layout against a plain
/// loop in double: A row- or column-major, B stored [k, m] or transposed
/// ([m, k], a linear layer's weight), leading dimensions with padding, C
/// holding NaN where it is overwritten and values where it accumulates. A
/// and B hold T, C the sums' type S (float for bfloat16).
template <typename T, typename S = T>
void checkGemmLayout(int64_t n, int64_t m, int64_t k, bool aColumns,
                     bool bTransposed, bool accumulate, double tolerance) {
  int64_t lda = (aColumns ? n : k) + 1, ldb = (bTransposed ? k : m) + 3;
  std::vector<T> a(static_cast<size_t>((aColumns ? k : n) * lda)),
      b(static_cast<size_t>((bTransposed ? m : k) * ldb));
  std::vector<S> c(static_cast<size_t>(n * m));
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(static_cast<int64_t>(state >> 40) % 2001 -
                               1000) /
           500.0;
  };
  for (T &v : a)
    v = static_cast<T>(static_cast<float>(next()));
  for (T &v : b)
    v = static_cast<T>(static_cast<float>(next()));
  for (S &v : c)
    v = accumulate ? static_cast<S>(next())
                   : std::numeric_limits<S>::quiet_NaN();
  std::vector<S> before = c;
  int64_t sar = aColumns ? 1 : lda, sac = aColumns ? lda : 1;
  int64_t sbr = bTransposed ? 1 : ldb, sbc = bTransposed ? ldb : 1;
  detail::gemm(n, m, k, a.data(), sar, sac, b.data(), sbr, sbc, c.data(),
               accumulate);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double want = accumulate ? double(before[i * m + j]) : 0.0;
      for (int64_t p = 0; p < k; ++p)
        want += double(a[i * sar + p * sac]) * double(b[p * sbr + j * sbc]);
      worst = std::max(worst, std::abs(double(c[i * m + j]) - want) /
                                  (1.0 + std::abs(want)));
    }
  INFO("n=" << n << " m=" << m << " k=" << k << " aColumns=" << aColumns
            << " bTransposed=" << bTransposed << " accumulate=" << accumulate);
  CHECK(worst < tolerance); // NaN fails too
}
} // namespace

TEST_CASE("products with few rows (skinny: B's columns split over threads) "
          "match a plain loop",
          "[matmul][skinny]") {
  // Rows up to the skinny limit (64) and one past it; columns that fill
  // whole tiles and ones that leave every kind of tail; k below, at and
  // above a vector's lanes.
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 64, 65})
    for (int64_t m : {64, 67, 131, 200})
      for (int64_t k : {1, 5, 16, 37})
        for (bool aColumns : {false, true})
          for (bool bTransposed : {false, true})
            for (bool accumulate : {false, true}) {
              checkGemmLayout<float>(n, m, k, aColumns, bTransposed, accumulate,
                                     1e-5);
              checkGemmLayout<double>(n, m, k, aColumns, bTransposed,
                                      accumulate, 1e-12);
            }
}

TEST_CASE("linear and matmul with few rows, as decoding calls them",
          "[matmul][skinny]") {
  // A weight far larger than a tile, x of one and of a few rows, against
  // the same product through a row-major copy of the weight's transpose
  // and a 1-row-at-a-time loop (each a different kernel path).
  Tensor w = randn({300, 1000}, 7), b = randn({300}, 8);
  for (int64_t rows : {1, 3, 5, 8, 16, 64}) {
    Tensor x = randn({rows, 1000}, 9);
    Tensor y = linear(x, w, b);
    Tensor viaCopy = matmul(x, w.transpose(0, 1).contiguous()) + b;
    CHECK(allclose(y, viaCopy, 1e-4, 1e-4));
    for (int64_t r = 0; r < rows; ++r)
      CHECK(allclose(y.slice(0, r, r + 1), linear(x.slice(0, r, r + 1), w, b),
                     1e-4, 1e-4));
  }
}

TEST_CASE("products of many rows and a deep k (row blocks, k in chunks) "
          "match a plain loop",
          "[matmul][skinny]") {
  // Rows of one tile (8) and more than one row block (64), k past one
  // and two chunks (512 for B stored [k, m], 1024 transposed), in both
  // layouts, accumulating or not.
  for (int64_t n : {3, 8, 130})
    for (int64_t m : {64, 201})
      for (int64_t k : {1100, 2100})
        for (bool bTransposed : {false, true})
          for (bool accumulate : {false, true}) {
            checkGemmLayout<float>(n, m, k, false, bTransposed, accumulate,
                                   1e-4);
            checkGemmLayout<double>(n, m, k, true, bTransposed, accumulate,
                                    1e-11);
          }
}

TEST_CASE("bfloat16 products multiply and sum in float32 at any layout",
          "[matmul][bf16]") {
  // Where the CPU has AMX or AVX512-BF16 these run through oneDNN (forced
  // off by KILN_CPU_CAPABILITY, they widen to float32): one row, one
  // column, k of 1, k past oneDNN's blocks; every layout, C overwritten
  // and accumulated. bfloat16 products are exact in float32: what differs
  // from the double loop is float32 summation, in the order each kernel
  // takes (AVX512-BF16's dot products add pairs first: 1.5e-5 at k = 300
  // on an AMD Zen 4). Summing in bfloat16 would be off by about 1e-2.
  for (int64_t n : {1, 5, 70})
    for (int64_t m : {1, 33})
      for (int64_t k : {1, 17, 300})
        for (bool aColumns : {false, true})
          for (bool bTransposed : {false, true})
            for (bool accumulate : {false, true})
              checkGemmLayout<BFloat16, float>(n, m, k, aColumns, bTransposed,
                                               accumulate,
                                               k > 32 ? 1e-4 : 1e-5);
  // The eager ops round the float32 sums once: the same as widening first.
  Tensor x = randn({3, 7, 40}, 3).to(kBFloat16), w = randn({24, 40}, 4);
  Tensor wb = w.to(kBFloat16);
  Tensor got = linear(x, wb, Tensor());
  CHECK(got.dtype() == kBFloat16);
  Tensor want = linear(x.to(kFloat32), wb.to(kFloat32), Tensor()).to(kBFloat16);
  CHECK(allclose(got.to(kFloat32), want.to(kFloat32), 8e-3, 1e-5));
  Tensor q = randn({2, 3, 5, 16}, 5).to(kBFloat16);
  Tensor kt = randn({3, 16, 9}, 6).to(kBFloat16);
  CHECK(allclose(matmul(q, kt).to(kFloat32),
                 matmul(q.to(kFloat32), kt.to(kFloat32)), 8e-3, 1e-2));
}

extern "C" void _mlir_ciface_kiln_gemm_f32(detail::Matrix<float> *a,
                                           detail::Matrix<float> *b,
                                           detail::Matrix<float> *c);
extern "C" void _mlir_ciface_kiln_assign_gemm_f32(detail::Matrix<float> *a,
                                                  detail::Matrix<float> *b,
                                                  detail::Matrix<float> *c);

TEST_CASE("compiled products add to their output or overwrite it",
          "[matmul][abi]") {
  // C = A * B for kiln_assign_gemm_f32 (whatever C held, NaN included),
  // C += A * B for kiln_gemm_f32; C contiguous, then every other column of
  // a wider buffer (written through a copy).
  const int64_t n = 5, m = 7, k = 9;
  std::vector<float> a(n * k), b(k * m);
  for (int64_t i = 0; i < n * k; ++i)
    a[i] = static_cast<float>(i % 5) - 2.0f;
  for (int64_t i = 0; i < k * m; ++i)
    b[i] = static_cast<float>(i % 7) * 0.5f - 1.0f;
  auto want = [&](int64_t i, int64_t j) {
    float s = 0;
    for (int64_t p = 0; p < k; ++p)
      s += a[i * k + p] * b[p * m + j];
    return s;
  };
  detail::Matrix<float> ma{nullptr, a.data(), 0, {n, k}, {k, 1}};
  detail::Matrix<float> mb{nullptr, b.data(), 0, {k, m}, {m, 1}};
  for (int64_t colStride : {int64_t(1), int64_t(2)}) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> c(n * m * colStride, nan);
    detail::Matrix<float> mc{
        nullptr, c.data(), 0, {n, m}, {m * colStride, colStride}};
    _mlir_ciface_kiln_assign_gemm_f32(&ma, &mb, &mc);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        CHECK(c[i * m * colStride + j * colStride] ==
              Approx(want(i, j)).margin(1e-5));
    _mlir_ciface_kiln_gemm_f32(&ma, &mb, &mc);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        CHECK(c[i * m * colStride + j * colStride] ==
              Approx(2 * want(i, j)).margin(1e-5));
    if (colStride == 2) // the columns between are not C's: left alone
      CHECK(std::isnan(c[1]));
  }
}

extern "C" void _mlir_ciface_kiln_assign_bmm_f32(detail::UnrankedView *a,
                                                 detail::UnrankedView *b,
                                                 detail::UnrankedView *c);
extern "C" void _mlir_ciface_kiln_assign_bmm_bf16(detail::UnrankedView *a,
                                                  detail::UnrankedView *b,
                                                  detail::UnrankedView *c);

namespace {
/// A rank-3 memref descriptor over a contiguous [d0, d1, d2] buffer.
struct Descriptor3 {
  void *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
  Descriptor3(void *data, int64_t d0, int64_t d1, int64_t d2)
      : allocated(data), aligned(data),
        offset(0), sizes{d0, d1, d2}, strides{d1 * d2, d2, 1} {}
};

/// kiln_assign_bmm_T over a batch large enough that its matrices are split
/// over the threads, each with more rows than go to oneDNN (which must not
/// run inside the parallel region), against a loop in double.
template <typename T> void checkBatchedEntry() {
  const int64_t batch = 6, n = 40, k = 48, m = 70;
  std::vector<T> a(batch * n * k), b(batch * k * m);
  std::vector<float> c(batch * n * m, std::numeric_limits<float>::quiet_NaN());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = T(static_cast<float>(static_cast<int64_t>(i * 7 % 23) - 11) / 8);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = T(static_cast<float>(static_cast<int64_t>(i * 5 % 19) - 9) / 4);
  Descriptor3 da(a.data(), batch, n, k), db(b.data(), batch, k, m),
      dc(c.data(), batch, n, m);
  detail::UnrankedView va{3, &da}, vb{3, &db}, vc{3, &dc};
  if constexpr (std::is_same<T, float>::value)
    _mlir_ciface_kiln_assign_bmm_f32(&va, &vb, &vc);
  else
    _mlir_ciface_kiln_assign_bmm_bf16(&va, &vb, &vc);
  for (int64_t q = 0; q < batch; ++q)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += double(float(a[(q * n + i) * k + p])) *
                  double(float(b[(q * k + p) * m + j]));
        REQUIRE(c[(q * n + i) * m + j] == Approx(want).margin(1e-4));
      }
}
} // namespace

TEST_CASE("compiled batched products split over the threads compute every "
          "matrix whole",
          "[matmul][abi][bf16]") {
  checkBatchedEntry<float>();
  checkBatchedEntry<BFloat16>();
}
