//===- LinearAlgebra.cpp - matmul and linear ------------------------------===//
//
// matmul follows torch.matmul: dot, mv, mm, and batched products whose batch
// dims broadcast. Floating products go to OpenBLAS's gemm (single-threaded,
// rows of C split over the runtime's OpenMP threads), which also reads
// transposed operands in place; integer products use a plain loop that
// wraps on overflow like torch.
//
//===----------------------------------------------------------------------===//
#include "Core/Autocast.h"
#include "Core/Autograd.h"
#include "Core/CpuFeatures.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/Gemm.h"

#include <cblas.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln {
using namespace detail;

namespace detail {

/// How BLAS can read a row-major-indexed matrix with these strides without a
/// copy: transposed or not, and its leading dimension.
struct BlasMatrix {
  bool ok = false;
  bool transposed = false;
  int64_t ld = 1;
};

static BlasMatrix blasLayout(int64_t rows, int64_t cols, int64_t rowStride,
                             int64_t colStride) {
  BlasMatrix m;
  if ((colStride == 1 || cols == 1) &&
      (rowStride >= std::max<int64_t>(cols, 1) || rows == 1)) {
    m.ok = true;
    m.ld = std::max<int64_t>(rows == 1 ? cols : rowStride, 1);
  } else if ((rowStride == 1 || rows == 1) &&
             (colStride >= std::max<int64_t>(rows, 1) || cols == 1)) {
    m.ok = true;
    m.transposed = true;
    m.ld = std::max<int64_t>(cols == 1 ? rows : colStride, 1);
  }
  return m;
}

bool blasCanRead(int64_t rows, int64_t cols, int64_t rowStride,
                 int64_t colStride) {
  return blasLayout(rows, cols, rowStride, colStride).ok;
}

/// Products with at most this many rows of C (decoding, batch-1 and
/// small-batch inference) are skinny: they run Kiln's tiles below (see
/// tiledGemm), whose split of B's columns over the threads has each
/// thread stream its own share of B once, with no packing: split by rows
/// as BLAS is called, every thread would read all of B, and one row would
/// leave all of it to one thread. On the 2-core development machine they
/// beat OpenBLAS 0.3.21's sgemm at every size up to 64 rows of
/// [.., 1024] x [1024, 4096] and [.., 4096] x [4096, 1024] (1.3-5x):
/// docs/benchmarks.md. Larger products take them too where tilesBeatBlas.
constexpr int64_t kSkinnyRows = 64;
/// Columns of C per share: a whole number of every kernel's tile.
constexpr int64_t kColumnBlock = 64;

/// 64 bytes of T (one AVX-512 register, two AVX ones).
template <typename T> struct Simd;
template <> struct Simd<float> {
  typedef float V __attribute__((vector_size(64)));
  static constexpr int kLanes = 16;
};
template <> struct Simd<double> {
  typedef double V __attribute__((vector_size(64)));
  static constexpr int kLanes = 8;
};

template <typename T>
KILN_KERNEL_INLINE typename Simd<T>::V loadVec(const T *p) {
  typename Simd<T>::V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

/// c = s when beta is 0 (c may hold anything, NaN included), else
/// beta * c + s.
template <typename T> KILN_KERNEL_INLINE void storeScaled(T &c, T s, T beta) {
  c = beta == T(0) ? s : beta * c + s;
}

/// sums[j] = the sum of v[j]'s lanes, j < NJ. Four float vectors are
/// summed together by halving (each step adds the two halves of two
/// vectors into one, 16 lanes -> 4 sums in three steps of shuffles and
/// adds), where one vector after another would take 60 dependent scalar
/// adds: with a short k (a GRU step's 64) those sums cost more than the
/// tile's multiply-adds.
template <typename T, int NJ>
KILN_KERNEL_INLINE void sumLanes(const typename Simd<T>::V (&v)[NJ],
                                 T (&sums)[NJ]) {
#if defined(__clang__)
  if constexpr (std::is_same<T, float>::value && NJ == 4) {
    using V = typename Simd<T>::V;
    // [v0 lo+hi (8) | v1 lo+hi (8)], the same for v2, v3.
    V a = __builtin_shufflevector(v[0], v[1], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17,
                                  18, 19, 20, 21, 22, 23) +
          __builtin_shufflevector(v[0], v[1], 8, 9, 10, 11, 12, 13, 14, 15, 24,
                                  25, 26, 27, 28, 29, 30, 31);
    V b = __builtin_shufflevector(v[2], v[3], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17,
                                  18, 19, 20, 21, 22, 23) +
          __builtin_shufflevector(v[2], v[3], 8, 9, 10, 11, 12, 13, 14, 15, 24,
                                  25, 26, 27, 28, 29, 30, 31);
    // [v0 (4) | v1 (4) | v2 (4) | v3 (4)].
    V c = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18,
                                  19, 24, 25, 26, 27) +
          __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22,
                                  23, 28, 29, 30, 31);
    for (int j = 0; j < 4; ++j)
      sums[j] = (c[4 * j] + c[4 * j + 1]) + (c[4 * j + 2] + c[4 * j + 3]);
    return;
  }
#endif
  for (int j = 0; j < NJ; ++j) {
    T s = 0;
    for (int l = 0; l < Simd<T>::kLanes; ++l)
      s += v[j][l];
    sums[j] = s;
  }
}

/// C[NI, NJ] (+)= A[NI, k] * W[NJ, k]^T, rows of A and W contiguous: NJ
/// rows of W (the weight of a linear layer) read once, each dotted with NI
/// rows of A in vector accumulators, summed across lanes at the end. With
/// Prefetch, the next NJ rows of W are prefetched at the depth these are
/// read (see tileProduct).
template <typename T, int NI, int NJ, bool Prefetch>
KILN_KERNEL_INLINE void dotTile(int64_t k, const T *a, int64_t lda, const T *w,
                                int64_t ldw, T *c, int64_t ldc, T beta) {
  using V = typename Simd<T>::V;
  constexpr int L = Simd<T>::kLanes;
  V acc[NI][NJ] = {};
  int64_t p = 0;
  for (; p + L <= k; p += L) {
    V wv[NJ];
    for (int j = 0; j < NJ; ++j) {
      wv[j] = loadVec(w + j * ldw + p);
      if constexpr (Prefetch) // an address, past W's end at its last rows
        __builtin_prefetch(reinterpret_cast<const void *>(
            reinterpret_cast<uintptr_t>(w) +
            static_cast<uintptr_t>((NJ + j) * ldw + p) * sizeof(T)));
    }
    for (int i = 0; i < NI; ++i) {
      V av = loadVec(a + i * lda + p);
      for (int j = 0; j < NJ; ++j)
        acc[i][j] += av * wv[j];
    }
  }
  for (int i = 0; i < NI; ++i) {
    T sums[NJ];
    sumLanes<T, NJ>(acc[i], sums);
    for (int j = 0; j < NJ; ++j) {
      T s = sums[j];
      for (int64_t q = p; q < k; ++q)
        s += a[i * lda + q] * w[j * ldw + q];
      storeScaled(c[i * ldc + j], s, beta);
    }
  }
}

/// C[NI, NV * L] (+)= A[NI, k] * B[k, NV * L], B's rows contiguous: each
/// row segment of B read once and multiplied by NI broadcast elements of A.
template <typename T, int NI, int NV>
KILN_KERNEL_INLINE void axpyTile(int64_t k, const T *a, int64_t sar,
                                 int64_t sac, const T *b, int64_t ldb, T *c,
                                 int64_t ldc, T beta) {
  using V = typename Simd<T>::V;
  constexpr int L = Simd<T>::kLanes;
  V acc[NI][NV] = {};
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
    for (int v = 0; v < NV; ++v)
      bv[v] = loadVec(b + p * ldb + v * L);
    for (int i = 0; i < NI; ++i) {
      V av = V{} + a[i * sar + p * sac];
      for (int v = 0; v < NV; ++v)
        acc[i][v] += av * bv[v];
    }
  }
  for (int i = 0; i < NI; ++i)
    for (int v = 0; v < NV; ++v)
      for (int l = 0; l < L; ++l)
        storeScaled(c[i * ldc + v * L + l], acc[i][v][l], beta);
}

/// Calls tile(rows, i) over n rows of A and C, tile(std::integral_constant<
/// int, 4>, i) four rows at a time, then once with the 1-3 rows left, so
/// that a tile's rows are a compile-time count (its accumulators live in
/// registers).
template <typename Tile>
KILN_KERNEL_INLINE void inRowsOfFour(int64_t n, const Tile &tile) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    tile(std::integral_constant<int, 4>{}, i);
  switch (n - i) {
  case 3:
    return tile(std::integral_constant<int, 3>{}, i);
  case 2:
    return tile(std::integral_constant<int, 2>{}, i);
  case 1:
    return tile(std::integral_constant<int, 1>{}, i);
  default:
    return;
  }
}

/// C[n, 0..width) (+)= A[n, k] * B[k, 0..width) for one tile of C (b at
/// B's element (0, 0), c at C's, leading dimensions ldb and ldc). B stored
/// transposed (a linear layer's weight [m, k], element (p, j) at
/// b[j * ldb + p]; A's rows contiguous) takes dot products of its rows
/// with A's; B stored [k, m] takes broadcasts of A's elements against B's
/// row segments, 4 vectors wide, then 1, then the last columns one by one.
/// Depth from which 4 to 8 rows take one tile of every row (tileProduct):
/// below it the tile's lane sums cost more than its single pass over W
/// saves (a GRU step's [8, 64] x [384, 64]^T: 1.6x slower).
constexpr int64_t kLongRows = 512;

template <typename T>
KILN_KERNEL_INLINE void tileProduct(int64_t n, int64_t width, int64_t k,
                                    const T *a, int64_t sar, int64_t sac,
                                    const T *b, int64_t ldb, bool bTransposed,
                                    T *c, int64_t ldc, T beta) {
  constexpr int L = Simd<T>::kLanes;
  int64_t j = 0;
  // NJ columns of C (rows of the stored B) by dot products.
  auto dots = [&](auto columns) KILN_KERNEL_LAMBDA {
    // (Fewer than 4 rows or more than 8.) The first group of four rows
    // reads W from memory and prefetches the next NJ rows of it as it
    // goes; the groups after it find W in cache.
    // Without the prefetches a tile waited on each row's start: 8 rows of
    // a linear streamed their weights at 31-33 GB/s where 1 row streams at
    // 52-58, now at 37-41 in the same runs. Fewer than four rows are bound
    // by the stream alone, which the hardware's prefetcher keeps up with:
    // there prefetches only took load slots (1 row: 58 -> 51 GB/s).
    // Prefetching in every group slowed deep products of many rows by 20%,
    // a share of the next rows per group helped 8 rows half as much.
    constexpr int NJ = decltype(columns)::value;
    inRowsOfFour(n, [&](auto rows, int64_t i) KILN_KERNEL_LAMBDA {
      constexpr int NI = decltype(rows)::value;
      if (NI == 4 && i == 0)
        dotTile<T, NI, NJ, true>(k, a + i * sar, sar, b + j * ldb, ldb,
                                 c + i * ldc + j, ldc, beta);
      else
        dotTile<T, NI, NJ, false>(k, a + i * sar, sar, b + j * ldb, ldb,
                                  c + i * ldc + j, ldc, beta);
    });
  };
  // NV vectors of columns of C by broadcasts.
  auto axpys = [&](auto vectors) KILN_KERNEL_LAMBDA {
    inRowsOfFour(n, [&](auto rows, int64_t i) KILN_KERNEL_LAMBDA {
      axpyTile<T, decltype(rows)::value, decltype(vectors)::value>(
          k, a + i * sar, sar, sac, b + j, ldb, c + i * ldc + j, ldc, beta);
    });
  };
  if (bTransposed) {
    if (n >= 4 && n <= 8 && k >= kLongRows) {
      // Every row in one tile, two rows of W at a time, the next two
      // prefetched: W streams from memory once, never waited on, while
      // the tile's 2 * n accumulators (16 at 8 rows) take its arithmetic.
      // Weights from memory, [n, 1024] x [4096, 1024]^T then [n, 4096] x
      // [1024, 4096]^T, alternating runs: 8 rows 0.76-0.83 -> 0.62-0.71
      // ms, 4 rows 0.61-0.64 -> 0.51-0.54 against the 4-row groups below;
      // with W in cache 3-5% slower or 6% faster by the run (a tile of
      // 8 x 2 loads more per multiply-add). Without the prefetch, 8 x 2
      // tiles lost to the groups everywhere; with 2-3 rows, more than 8,
      // or short rows (kLongRows) the groups win.
      auto tile = [&](auto rows) KILN_KERNEL_LAMBDA {
        constexpr int NI = decltype(rows)::value;
        for (; j + 2 <= width; j += 2)
          dotTile<T, NI, 2, true>(k, a, sar, b + j * ldb, ldb, c + j, ldc,
                                  beta);
        if (j < width)
          dotTile<T, NI, 1, false>(k, a, sar, b + j * ldb, ldb, c + j, ldc,
                                   beta);
      };
      switch (n) {
      case 4:
        return tile(std::integral_constant<int, 4>{});
      case 5:
        return tile(std::integral_constant<int, 5>{});
      case 6:
        return tile(std::integral_constant<int, 6>{});
      case 7:
        return tile(std::integral_constant<int, 7>{});
      default:
        return tile(std::integral_constant<int, 8>{});
      }
    }
    for (; j + 4 <= width; j += 4)
      dots(std::integral_constant<int, 4>{});
    for (; j < width; ++j)
      dots(std::integral_constant<int, 1>{});
    return;
  }
  for (; j + 4 * L <= width; j += 4 * L)
    axpys(std::integral_constant<int, 4>{});
  for (; j + L <= width; j += L)
    axpys(std::integral_constant<int, 1>{});
  for (; j < width; ++j)
    for (int64_t i = 0; i < n; ++i) {
      T s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += a[i * sar + p * sac] * b[p * ldb + j];
      storeScaled(c[i * ldc + j], s, beta);
    }
}

/// C[n, m] (contiguous; += when beta is 1) = A[n, k] * B[k, m] in tiles of
/// kRowBlock x kColumnBlock over the threads, column blocks outermost (a
/// thread reads its share of B once, the column block's panel staying in
/// L2 while the row blocks pass), k in chunks of kDepthBlock (a
/// micro-tile's rows of A and B stay in L1; measured: 512 for broadcasts,
/// 1024 for dot products, whose lane sums cost per chunk). A's rows are made
/// contiguous first when B is stored transposed and they are not.
constexpr int64_t kRowBlock = 64;
constexpr int64_t kAxpyDepthBlock = 512;
constexpr int64_t kDotDepthBlock = 1024;

template <typename T>
static void tiledGemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar,
                      int64_t sac, const T *b, const BlasMatrix &lb, T beta,
                      T *c) {
  std::vector<T> aRows;
  if (lb.transposed && sac != 1) {
    aRows.resize(static_cast<size_t>(n * k));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t p = 0; p < k; ++p)
        aRows[i * k + p] = a[i * sar + p * sac];
    a = aRows.data();
    sar = k;
    sac = 1;
  }
  int64_t ldb = lb.ld;
  int64_t rowBlocks = (n + kRowBlock - 1) / kRowBlock;
  int64_t columnBlocks = (m + kColumnBlock - 1) / kColumnBlock;
  // Threads from about 2M multiply-adds on (kParallelThreshold x 64, some
  // 20 us on one core): below that, waking the team costs more than the
  // product (a GRU step's [8, 64] x [64, 384] takes 2 us).
  parallelFor(
      rowBlocks * columnBlocks, n * m * k / 64, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          int64_t i0 = (t % rowBlocks) * kRowBlock;
          int64_t j0 = (t / rowBlocks) * kColumnBlock;
          // B's element (p0, j0): b[j0 * ld + p0] stored transposed, else
          // b[p0 * ld + j0].
          const T *bj = b + (lb.transposed ? j0 * ldb : j0);
          int64_t depth = lb.transposed ? kDotDepthBlock : kAxpyDepthBlock;
          for (int64_t p0 = 0; p0 < k; p0 += depth)
            tileProduct(
                std::min(kRowBlock, n - i0), std::min(kColumnBlock, m - j0),
                std::min(depth, k - p0), a + i0 * sar + p0 * sac, sar, sac,
                bj + (lb.transposed ? p0 : p0 * ldb), ldb, lb.transposed,
                c + i0 * m + j0, m, p0 == 0 ? beta : T(1));
        }
      });
}

/// Whether Kiln's tiles run every product rather than only the skinny
/// ones: when they run their AVX-512 copy and OpenBLAS's gemm does not. A
/// DYNAMIC_ARCH OpenBLAS runs the kernels of the newest core it knows, so
/// Debian 12's 0.3.21 on an AMD Zen 4 or 5 runs its Haswell (AVX2) ones;
/// on the 2-core development machine (Zen 5) the tiles reach 360-480
/// GFLOP/s where those reach 210-250, and OpenBLAS's own AVX-512 kernels
/// (OPENBLAS_CORETYPE=SkylakeX) 320-480 (docs/benchmarks.md).
static bool tilesBeatBlas() {
#if defined(__x86_64__)
  static const bool beat = [] {
    if (kernelIsa() != KernelIsa::Avx512)
      return false;
    std::string core = openblas_get_corename();
    for (const char *wide : {"SkylakeX", "Cooperlake", "SapphireRapids"})
      if (core == wide)
        return false;
    return true;
  }();
  return beat;
#else
  return false;
#endif
}

/// Who runs the float32 products of more than kOneDnnRows rows.
enum class FloatProducts { Tiles, OpenBlas, OneDnn };

/// Products of at most this many rows stay with the tiles, which stream a
/// weight once for all rows: at 1-8 rows they beat oneDNN 1.3-1.9x on the
/// Xeon below, at 32 the two are level and at 64 oneDNN is 1.2x ahead.
constexpr int64_t kOneDnnRows = 32;

/// KILN_FLOAT_PRODUCTS=tiles|openblas|onednn forces the choice (to measure
/// each on a machine); by default oneDNN on CPUs with AVX-512, whose f32
/// kernels it picks from cpuid: on a 2-core Xeon with AMX, where Debian
/// 12's OpenBLAS 0.3.21 runs its Prescott kernels, 1.3-1.8x Kiln's tiles
/// from [128, 1024] x [1024, 4096] to [2048, 1024] x [1024, 1024]; on a
/// 2-core AMD Zen 4, 1.0-1.3x the tiles for products stored as nn.Linear
/// holds its weight (GPT-2's shapes at 256-2048 rows) and level for the
/// others (docs/benchmarks.md). Elsewhere the tiles where tilesBeatBlas(),
/// else OpenBLAS.
static FloatProducts floatProducts() {
  static const FloatProducts who = [] {
    switch (productsChoice("KILN_FLOAT_PRODUCTS",
                           {"tiles", "openblas", "onednn"})) {
    case 0:
      return FloatProducts::Tiles;
    case 1:
      return FloatProducts::OpenBlas;
    case 2:
      return FloatProducts::OneDnn;
    default:
      break;
    }
#if defined(__x86_64__)
    if (cpuFeature("avx512f") == CpuFeature::Usable)
      return FloatProducts::OneDnn;
#endif
    return tilesBeatBlas() ? FloatProducts::Tiles : FloatProducts::OpenBlas;
  }();
  return who;
}

int productsChoice(const char *variable,
                   std::initializer_list<const char *> names) {
  const char *env = std::getenv(variable);
  if (!env)
    return -1;
  std::string listed;
  int index = 0;
  for (const char *name : names) {
    if (std::strcmp(env, name) == 0)
      return index;
    listed += (index++ ? ", " : "") + std::string(name);
  }
  std::fprintf(stderr, "kiln: warning: %s=%s is none of %s: ignored\n",
               variable, env, listed.c_str());
  return -1;
}

/// C[n, m] (contiguous) = A[n, k] * B[k, m] for one matrix of a batch.
template <typename T>
void gemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar, int64_t sac,
          const T *b, int64_t sbr, int64_t sbc, T *c, bool accumulate) {
  if (n == 0 || m == 0)
    return;
  if (k == 0) {
    if (!accumulate)
      std::fill(c, c + n * m, T(0));
    return;
  }
  if constexpr (std::is_same<T, float>::value ||
                std::is_same<T, double>::value) {
    BlasMatrix la = blasLayout(n, k, sar, sac), lb = blasLayout(k, m, sbr, sbc);
    auto ta = la.transposed ? CblasTrans : CblasNoTrans;
    auto tb = lb.transposed ? CblasTrans : CblasNoTrans;
    int ldc = static_cast<int>(std::max<int64_t>(m, 1));
    // OpenBLAS runs single-threaded inside the runtime's OpenMP team: rows
    // of C are split over the threads. A second thread pool (OpenBLAS's own)
    // would spin against OpenMP's on the same cores between calls.
    static const bool singleThreadedBlas = [] {
      openblas_set_num_threads(1);
      return true;
    }();
    (void)singleThreadedBlas;
    T beta = accumulate ? T(1) : T(0);
    bool tiles = tilesBeatBlas();
    if constexpr (std::is_same<T, float>::value) {
      FloatProducts who = floatProducts();
      if (who == FloatProducts::OneDnn && n > kOneDnnRows &&
          oneDnnGemm(n, m, k, a, sar, sac, b, sbr, sbc, c, accumulate))
        return;
      tiles = who == FloatProducts::Tiles ||
              (who == FloatProducts::OneDnn && tiles);
    }
    if ((n <= kSkinnyRows || tiles) && m >= kColumnBlock) {
      tiledGemm(n, m, k, a, sar, sac, b, lb, beta, c);
      return;
    }
    // A's rows r0.. start at a + r0 * (row stride), transposed or not.
    int64_t rowStep = la.transposed ? 1 : la.ld;
    parallelFor(n, n * m * k / 8, [&](int64_t r0, int64_t r1) {
      const T *ar = a + r0 * rowStep;
      T *cr = c + r0 * m;
      int rows = static_cast<int>(r1 - r0);
      if constexpr (std::is_same<T, float>::value)
        cblas_sgemm(CblasRowMajor, ta, tb, rows, m, k, 1.0f, ar, la.ld, b,
                    lb.ld, beta, cr, ldc);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, rows, m, k, 1.0, ar, la.ld, b, lb.ld,
                    beta, cr, ldc);
    });
  } else {
    using U = std::make_unsigned_t<T>;
    parallelFor(n, n * m * std::max<int64_t>(k, 1),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i)
                    for (int64_t j = 0; j < m; ++j) {
                      U acc = accumulate ? static_cast<U>(c[i * m + j]) : 0;
                      for (int64_t p = 0; p < k; ++p)
                        acc += static_cast<U>(a[i * sar + p * sac]) *
                               static_cast<U>(b[p * sbr + j * sbc]);
                      c[i * m + j] = static_cast<T>(acc);
                    }
                });
  }
}

template <typename T>
void blockGemm(int64_t n, int64_t m, int64_t k, const T *a, int64_t sar,
               int64_t sac, const T *b, int64_t sbr, int64_t sbc, T *c,
               bool accumulate) {
  BlasMatrix lb = blasLayout(k, m, sbr, sbc);
  if (n == 0 || m == 0 || k == 0 || !lb.ok)
    return gemm(n, m, k, a, sar, sac, b, sbr, sbc, c, accumulate);
  tiledGemm(n, m, k, a, sar, sac, b, lb, accumulate ? T(1) : T(0), c);
}

template void blockGemm<float>(int64_t, int64_t, int64_t, const float *,
                               int64_t, int64_t, const float *, int64_t,
                               int64_t, float *, bool);
template void blockGemm<double>(int64_t, int64_t, int64_t, const double *,
                                int64_t, int64_t, const double *, int64_t,
                                int64_t, double *, bool);

template void gemm<float>(int64_t, int64_t, int64_t, const float *, int64_t,
                          int64_t, const float *, int64_t, int64_t, float *,
                          bool);
template void gemm<double>(int64_t, int64_t, int64_t, const double *, int64_t,
                           int64_t, const double *, int64_t, int64_t, double *,
                           bool);
template void gemm<int32_t>(int64_t, int64_t, int64_t, const int32_t *, int64_t,
                            int64_t, const int32_t *, int64_t, int64_t,
                            int32_t *, bool);
template void gemm<int64_t>(int64_t, int64_t, int64_t, const int64_t *, int64_t,
                            int64_t, const int64_t *, int64_t, int64_t,
                            int64_t *, bool);

} // namespace detail

namespace {

/// A view of t whose last two dims BLAS reads in place (t or a copy).
Tensor blasReadable(const Tensor &t) {
  int64_t r = t.dim();
  BlasMatrix l = blasLayout(t.shape()[r - 2], t.shape()[r - 1],
                            t.strides()[r - 2], t.strides()[r - 1]);
  return l.ok ? t : t.contiguous();
}

/// [..., n, k] x [..., k, m] with broadcast batch dims; both at least 2-d,
/// of type ct or bfloat16 (then ct is float32).
Tensor batchedMatmul(const Tensor &a, const Tensor &b, DType ct) {
  int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  // A batch of A against one B is one tall gemm.
  if (batchB.empty() && !batchA.empty()) {
    Tensor flat = a.reshape({shapeNumel(batchA) * n, k});
    Tensor out = batchedMatmul(flat, b, ct);
    Shape shape = batchA;
    shape.push_back(n);
    shape.push_back(m);
    return out.view(shape);
  }
  Shape batch = broadcastShapes(batchA, batchB, "matmul");
  Shape shapeA = batch, shapeB = batch, shapeC = batch;
  shapeA.insert(shapeA.end(), {n, k});
  shapeB.insert(shapeB.end(), {k, m});
  shapeC.insert(shapeC.end(), {n, m});
  Tensor ea = blasReadable(a.expand(shapeA));
  Tensor eb = blasReadable(b.expand(shapeB));
  Tensor out(shapeC, ct);
  int64_t batches = shapeNumel(batch);
  int64_t rank = static_cast<int64_t>(batch.size());
  // One gemm per matrix of the batch: In the operands' element type, Out
  // the sums'.
  auto products = [&](auto *pa, auto *pb, auto *pc) {
    for (int64_t i = 0; i < batches; ++i) {
      int64_t offA = 0, offB = 0, rem = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t idx = rem % batch[d];
        rem /= batch[d];
        offA += idx * ea.strides()[d];
        offB += idx * eb.strides()[d];
      }
      gemm(n, m, k, pa + offA, ea.strides()[rank], ea.strides()[rank + 1],
           pb + offB, eb.strides()[rank], eb.strides()[rank + 1],
           pc + i * n * m);
    }
  };
  if (ea.dtype() == DType::BF16 && ct == DType::F32) {
    products(ea.data<BFloat16>(), eb.data<BFloat16>(), out.data<float>());
    return out;
  }
  dispatchCompute(ct, "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, bool>::value)
      products(ea.data<T>(), eb.data<T>(), out.data<T>());
  });
  return out;
}

} // namespace

static Tensor matmulForward(const Tensor &a, const Tensor &b);

namespace {
/// matmul's gradients: g @ b^T and a^T @ g on the operands made at least
/// 2-d, summed over broadcast batch dims (a batch of rows against one
/// matrix contracts all the rows in one product).
autograd::Grads matmulBackward(const Tensor &g, const Tensor &a,
                               const Tensor &b, const autograd::Needs &needs) {
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b2 = b.dim() == 1 ? b.unsqueeze(-1) : b;
  Tensor g2 = g;
  if (a.dim() == 1)
    g2 = g2.unsqueeze(b.dim() == 1 ? 0 : -2);
  if (b.dim() == 1)
    g2 = g2.unsqueeze(-1);
  Tensor ga, gb;
  if (needs[0]) {
    ga = matmul(g2, b2.transpose(-1, -2));
    ga = autograd::sumTo(ga, a2.shape()).reshape(a.shape());
  }
  if (needs[1]) {
    if (b2.dim() == 2 && a2.dim() > 2) {
      int64_t k = a2.size(-1), m = g2.size(-1);
      gb = matmul(a2.reshape({-1, k}).transpose(0, 1), g2.reshape({-1, m}));
    } else {
      gb = matmul(a2.transpose(-1, -2), g2);
    }
    gb = autograd::sumTo(gb, b2.shape()).reshape(b.shape());
  }
  return {ga, gb};
}
} // namespace

Tensor matmul(const Tensor &a0, const Tensor &b0) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor a = autocast(a0), b = autocast(b0);
  autograd::Recorder grad("MmBackward0", a, b);
  Tensor out = matmulForward(a, b);
  if (grad)
    grad.record(out, [sa = grad.save(a), sb = grad.save(b)](
                         const autograd::Grads &g, const autograd::Needs &n) {
      // g @ b^T needs b's values, a^T @ g a's; the other only its shape.
      return matmulBackward(g[0], n[1] ? sa.get() : sa.metadata(),
                            n[0] ? sb.get() : sb.metadata(), n);
    });
  return out;
}

static Tensor matmulForward(const Tensor &a, const Tensor &b) {
  checkCpu(a, "matmul");
  checkCpu(b, "matmul");
  if (a.dim() == 0 || b.dim() == 0)
    throw Error("matmul: both arguments need at least 1 dim, got shapes " +
                shapeStr(a.shape()) + " and " + shapeStr(b.shape()));
  if (a.dtype() != b.dtype())
    throw Error(std::string("matmul: both arguments must have the same dtype, "
                            "got ") +
                dtypeName(a.dtype()) + " and " + dtypeName(b.dtype()));
  if (a.dtype() == DType::Bool)
    throw Error("matmul: not supported for dtype bool");
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b2 = b.dim() == 1 ? b.unsqueeze(-1) : b;
  if (a2.size(-1) != b2.size(-2))
    throw Error("matmul: shapes " + shapeStr(a.shape()) + " and " +
                shapeStr(b.shape()) +
                " cannot be multiplied: the first's dim " +
                std::to_string(a.dim() - 1) + " has size " +
                std::to_string(a2.size(-1)) + " but the second's dim " +
                std::to_string(b.dim() == 1 ? 0 : b.dim() - 2) + " has size " +
                std::to_string(b2.size(-2)));
  DType ct = computeType(a.dtype());
  // bfloat16 operands go to the product as they are: it multiplies them in
  // float32 (on AMX tiles where the CPU has them) and leaves float32 sums.
  Tensor out = a.dtype() == DType::BF16
                   ? batchedMatmul(a2, b2, ct)
                   : batchedMatmul(a2.to(ct), b2.to(ct), ct);
  if (a.dim() == 1)
    out = out.squeeze(-2);
  if (b.dim() == 1)
    out = out.squeeze(-1);
  return out.to(a.dtype());
}

Tensor linear(const Tensor &x0, const Tensor &w0, const Tensor &b0) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor x = autocast(x0), w = autocast(w0), b = autocast(b0);
  checkCpu(x, "linear");
  checkCpu(w, "linear");
  if (w.dim() != 2)
    throw Error("linear: the weight must be 2-d [out_features, in_features], "
                "got shape " +
                shapeStr(w.shape()));
  if (x.dim() == 0 || x.size(-1) != w.size(1))
    throw Error("linear: the input's last dim (shape " + shapeStr(x.shape()) +
                ") does not match the weight's in_features " +
                std::to_string(w.size(1)) + " (weight shape " +
                shapeStr(w.shape()) + ")");
  Tensor out = matmul(x, w.transpose(0, 1));
  if (!b.defined())
    return out;
  if (b.dim() > 1 || (b.dim() == 1 && b.size(0) != w.size(0)))
    throw Error("linear: the bias must have shape [" +
                std::to_string(w.size(0)) + "], got " + shapeStr(b.shape()));
  return out + b;
}

} // namespace kiln
