//===- Attention.cpp - scaled_dot_product_attention, fused ----------------===//
//
// softmax(q k^T * scale + mask) v as one kernel, the scores never in memory
// beyond one block: each task takes a block of queries of one (batch, head)
// and walks the keys in blocks, with the online softmax of FlashAttention
// (a running row maximum m and sum l; the output block rescaled by
// exp(m_old - m_new) as m grows). The block products are gemm calls small
// enough (m * n * k <= 2^18) that OpenBLAS runs each on the calling thread,
// so the tasks split over OpenMP threads without nested parallelism. With
// is_causal the key blocks past a query block's last row are skipped.
//
// Compiled graphs call the same function (lib/Runtime/CPU/
// AttentionEntryPoints.cpp), so compiled and eager agree exactly.
//
//===----------------------------------------------------------------------===//
#include "Ops/Attention.h"
#include "Core/Autocast.h"
#include "Core/Autograd.h"
#include "Core/Parallel.h"
#include "Core/Stats.h"
#include "Ops/Elementwise.h"
#include "Ops/Gemm.h"
#include "Ops/VecMath.h"
#include "kiln/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln {
namespace {

constexpr const char *kOp = "scaled_dot_product_attention";

#if defined(__x86_64__)
/// bfloat16 block products on AVX512-BF16 (VDPBF16PS: two bfloat16
/// products per float32 lane, summed in float32), for the bfloat16 kernel.
/// Called once per block from whichever loop body copy runs (only where
/// the CPU has the instructions: detail::bf16DotProducts), so out of line; the
/// namespace names them an AVX-512 copy to test/Runtime/isa-copies.test.
namespace avx512bf16 {
#define KILN_BF16_TARGET __attribute__((target(KILN_ISA_AVX512 ",avx512bf16")))

/// acc[i][j] += the products of pair p of A's row i and B's columns
/// 16 j.., each pair's elements masked by `keep`.
template <int MR, int NV>
KILN_BF16_TARGET inline __attribute__((always_inline)) void
pairStep(__m512 (&acc)[MR][NV], int64_t p, uint32_t keep, const uint16_t *a,
         int64_t lda, const uint16_t *b, int64_t ldb) {
  const __m512i low = _mm512_set1_epi32(static_cast<int>(keep));
  __m512i bv[NV];
  for (int j = 0; j < NV; ++j)
    bv[j] =
        _mm512_and_si512(_mm512_loadu_si512(b + (p * ldb + 16 * j) * 2), low);
  for (int i = 0; i < MR; ++i) {
    uint32_t pair;
    std::memcpy(&pair, a + i * lda + 2 * p, sizeof pair);
    const __m512i av = _mm512_set1_epi32(static_cast<int>(pair & keep));
    for (int j = 0; j < NV; ++j)
      acc[i][j] = _mm512_dpbf16_ps(acc[i][j], (__m512bh)av, (__m512bh)bv[j]);
  }
}

/// One tile of pairedGemm: MR rows by 16 * NV columns, the columns from n
/// on left unwritten.
template <int MR, int NV>
KILN_BF16_TARGET inline __attribute__((always_inline)) void
tile(int64_t k, const uint16_t *a, int64_t lda, const uint16_t *b, int64_t ldb,
     float *c, int64_t ldc, int64_t n, bool accumulate) {
  __m512 acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j)
      acc[i][j] = _mm512_setzero_ps();
  const int64_t pairs = k / 2;
  for (int64_t p = 0; p < pairs; ++p)
    pairStep<MR, NV>(acc, p, 0xffffffffu, a, lda, b, ldb);
  // An odd k: the last pair's second element (past A's row and B's
  // columns' keys) multiplies as zero, whatever it holds.
  if (k % 2)
    pairStep<MR, NV>(acc, pairs, 0xffffu, a, lda, b, ldb);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV && 16 * j < n; ++j) {
      const int64_t left = n - 16 * j;
      const __mmask16 lanes =
          left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
      float *cp = c + i * ldc + 16 * j;
      __m512 r = acc[i][j];
      if (accumulate)
        r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(lanes, cp));
      _mm512_mask_storeu_ps(cp, lanes, r);
    }
}

template <int MR>
KILN_BF16_TARGET inline __attribute__((always_inline)) void
rowTile(int nv, int64_t k, const uint16_t *a, int64_t lda, const uint16_t *b,
        int64_t ldb, float *c, int64_t ldc, int64_t n, bool accumulate) {
  switch (nv) {
  case 1:
    return tile<MR, 1>(k, a, lda, b, ldb, c, ldc, n, accumulate);
  case 2:
    return tile<MR, 2>(k, a, lda, b, ldb, c, ldc, n, accumulate);
  case 3:
    return tile<MR, 3>(k, a, lda, b, ldb, c, ldc, n, accumulate);
  default:
    return tile<MR, 4>(k, a, lda, b, ldb, c, ldc, n, accumulate);
  }
}

/// C[rows, n] (float32, rows ldc apart) = A B, or += with accumulate: A
/// [rows, k] bfloat16 (rows lda apart, lda even), B [k, n] bfloat16 packed
/// in pairs of rows, element (p, j) at b[(p / 2 * ldb + j) * 2 + p % 2],
/// ldb a multiple of 16 >= n. An odd k reads one element past each of A's
/// rows and B's last pair, and multiplies it as zero.
KILN_BF16_TARGET __attribute__((noinline)) void
pairedGemm(int64_t rows, int64_t n, int64_t k, const uint16_t *a, int64_t lda,
           const uint16_t *b, int64_t ldb, float *c, int64_t ldc,
           bool accumulate) {
  for (int64_t j0 = 0; j0 < n; j0 += 64) {
    const int64_t cols = std::min<int64_t>(64, n - j0);
    const int nv = static_cast<int>((cols + 15) / 16);
    const uint16_t *bj = b + j0 * 2;
    float *cj = c + j0;
    int64_t i = 0;
    for (; i + 4 <= rows; i += 4)
      rowTile<4>(nv, k, a + i * lda, lda, bj, ldb, cj + i * ldc, ldc, cols,
                 accumulate);
    for (; i < rows; ++i)
      rowTile<1>(nv, k, a + i * lda, lda, bj, ldb, cj + i * ldc, ldc, cols,
                 accumulate);
  }
}
#undef KILN_BF16_TARGET
} // namespace avx512bf16
#else
namespace avx512bf16 {
// Not defined: attention runs bfloat16 widened where there is no x86.
void pairedGemm(int64_t rows, int64_t n, int64_t k, const uint16_t *a,
                int64_t lda, const uint16_t *b, int64_t ldb, float *c,
                int64_t ldc, bool accumulate);
} // namespace avx512bf16
#endif

/// A tensor as [B, H, rows, cols]: leading size-1 dims added; a size-1 dim
/// reads with stride 0 (broadcast).
template <typename T> struct View4 {
  const T *data;
  int64_t sizes[4];
  int64_t strides[4];
  int64_t offset(int64_t b, int64_t h) const {
    return b * strides[0] + h * strides[1];
  }
};

template <typename T> View4<T> view4(const Tensor &t) {
  View4<T> v{t.data<T>(), {1, 1, 1, 1}, {0, 0, 0, 0}};
  int64_t pad = 4 - t.dim();
  for (int64_t i = 0; i < t.dim(); ++i) {
    v.sizes[pad + i] = t.size(i);
    v.strides[pad + i] = t.size(i) == 1 ? 0 : t.strides()[i];
  }
  return v;
}

/// What a kernel over T elements computes in: bfloat16 in float32.
template <typename T>
using AccOf = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

/// out [B, H, L, Ev] (contiguous) = attention of q, k, v (and mask, whose
/// elements are added when M is T, attend flags when M is bool). A query
/// that attends to no key gives zeros, or NaN with nanWhenUnattended.
///
/// A task takes qb queries of one (batch, head); per block of kb keys it
/// packs K^T row-major (so that S = Q K^T runs as broadcasts against K^T's
/// rows, with no lane sums over a short E) and V's rows where they are not
/// contiguous, and runs both block products on its thread (blockGemm). A
/// thread's tasks are consecutive, so most share their (batch, head) with
/// the task before: the blocks of K^T it packed stay for them (packing
/// every query block's keys again was a sixth of the kernel at T = 1024).
/// The row maxima and sums are vector reductions: summed one element after
/// another they cost more than the products at E = 64.
///
/// bfloat16 (only where the CPU has AVX512-BF16: bf16DotProducts) reads
/// q, k and v as they are: K^T and V packed in pairs of rows for
/// avx512bf16::pairedGemm, the scores summed in float32 and scaled there,
/// softmax in float32, its probabilities rounded to bfloat16 for P V (as
/// ATen's flash attention rounds them), the output summed in float32 and
/// rounded once.
template <typename T, typename M>
void attend(const View4<T> &q, const View4<T> &k, const View4<T> &v,
            const View4<M> *mask, bool causal, AccOf<T> scale, T *out,
            int64_t B, int64_t H, bool nanWhenUnattended) {
  using Acc = AccOf<T>;
  constexpr bool paired = std::is_same_v<T, BFloat16>;
  const int64_t L = q.sizes[2], S = k.sizes[2], E = q.sizes[3], Ev = v.sizes[3];
  const Acc inf = std::numeric_limits<Acc>::infinity();
  const int64_t kb = std::clamp<int64_t>(S, 1, 128);
  const int64_t qb = std::clamp<int64_t>(
      (int64_t{1} << 19) / (kb * std::max<int64_t>({E, Ev, 1})), 4, 64);
  const int64_t qBlocks = (L + qb - 1) / qb;
  const int64_t tasks = B * H * qBlocks;
  const bool vRows = v.strides[3] == 1 || Ev == 1;
  int64_t work = B * H * L * std::max<int64_t>(S, 1) * (E + Ev + 8);
  // K^T of one (batch, head), block by block ([E, kb] each, rows kb
  // apart), kept across a thread's tasks when a head has several query
  // blocks to serve; with one (a decoding step's single query), or past
  // this many elements, one block at a time.
  const int64_t kBlocks = (S + kb - 1) / kb;
  const bool keepKt = qBlocks > 1 && kBlocks * kb * E <= (int64_t{1} << 20);
  // Paired blocks: K^T as [E / 2, ldk, 2], V as [kb / 2, ldv, 2] (rows
  // rounded up to even, columns to 16); Q and P rows of even length.
  const int64_t up2 = (E + 1) / 2 * 2, kb2 = (kb + 1) / 2 * 2;
  const int64_t ldk = paired ? (kb + 15) / 16 * 16 : kb;
  const int64_t ldv = (Ev + 15) / 16 * 16;
  const int64_t ktBlock = paired ? up2 * ldk : E * kb;
  const int64_t vBlock = paired ? kb2 * ldv : kb * Ev;
  const bool qInPlace = paired && q.strides[3] == 1 && E % 2 == 0;
  detail::parallelFor(tasks, work, [&](int64_t begin, int64_t end) {
    const int64_t keptBlocks = keepKt ? kBlocks : 1;
    std::vector<T> qs(static_cast<size_t>(qb * (paired ? up2 : E))),
        kt(static_cast<size_t>(ktBlock * keptBlocks)),
        vs(static_cast<size_t>(vBlock * (paired ? keptBlocks : 1))),
        ps(static_cast<size_t>(paired ? qb * kb2 : 0));
    std::vector<Acc> s(static_cast<size_t>(qb * kb)),
        o(static_cast<size_t>(qb * Ev)), m(static_cast<size_t>(qb)),
        l(static_cast<size_t>(qb));
    int64_t packedFor = -1, packedBlocks = 0; // (b, h) and blocks of kt
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / (H * qBlocks), h = task / qBlocks % H;
      const int64_t i0 = task % qBlocks * qb, rows = std::min(qb, L - i0);
      if (task / qBlocks != packedFor) {
        packedFor = task / qBlocks;
        packedBlocks = 0;
      }
      // The query block, scaled (paired: the scores are), row-major.
      const T *qp = q.data + q.offset(b, h) + i0 * q.strides[2];
      const int64_t qr = q.strides[2], qe = q.strides[3];
      const T *qa = qInPlace ? qp : qs.data();
      const int64_t lda = qInPlace ? qr : up2;
      for (int64_t r = 0; r < rows && !qInPlace; ++r) {
        T *qsr = qs.data() + r * (paired ? up2 : E);
        if constexpr (paired) {
          for (int64_t e = 0; e < E; ++e)
            qsr[e] = qp[r * qr + e * qe];
        } else if (qe == 1) {
#pragma omp simd
          for (int64_t e = 0; e < E; ++e)
            qsr[e] = qp[r * qr + e] * scale;
        } else {
          for (int64_t e = 0; e < E; ++e)
            qsr[e] = qp[r * qr + e * qe] * scale;
        }
      }
      std::fill(m.begin(), m.end(), -inf);
      std::fill(l.begin(), l.end(), Acc(0));
      std::fill(o.begin(), o.end(), Acc(0));
      // Causal: key j attends query i when j <= i.
      const int64_t keys = causal ? std::min(S, i0 + rows) : S;
      const T *kp0 = k.data + k.offset(b, h), *vp0 = v.data + v.offset(b, h);
      for (int64_t j0 = 0; j0 < keys; j0 += kb) {
        const int64_t cols = std::min(kb, keys - j0), block = j0 / kb;
        // K^T as an [E, kb] row-major matrix: each key's row read once,
        // written down a column; the whole block (its keys up to S), kept
        // for the (batch, head)'s later query blocks. Paired, V's block
        // too.
        T *ktb = kt.data() + (keepKt ? block * ktBlock : 0);
        T *vpb = vs.data() + (keepKt && paired ? block * vBlock : 0);
        if (!keepKt || block >= packedBlocks) {
          const int64_t width = std::min(kb, S - j0);
          const T *kp = kp0 + j0 * k.strides[2];
          const int64_t kr = k.strides[2], ke = k.strides[3];
          if constexpr (paired) {
            for (int64_t c = 0; c < width; ++c)
              for (int64_t e = 0; e < E; ++e)
                ktb[(e / 2 * ldk + c) * 2 + e % 2] = kp[c * kr + e * ke];
            const T *vp = vp0 + j0 * v.strides[2];
            for (int64_t c = 0; c < width; ++c)
              for (int64_t e = 0; e < Ev; ++e)
                vpb[(c / 2 * ldv + e) * 2 + c % 2] =
                    vp[c * v.strides[2] + e * v.strides[3]];
          } else {
            for (int64_t c = 0; c < width; ++c)
#pragma clang loop vectorize(disable)
              for (int64_t e = 0; e < E; ++e)
                ktb[e * kb + c] = kp[c * kr + e * ke];
          }
          if (keepKt)
            packedBlocks = block + 1;
        }
        if constexpr (paired)
          avx512bf16::pairedGemm(rows, cols, E,
                                 reinterpret_cast<const uint16_t *>(qa), lda,
                                 reinterpret_cast<const uint16_t *>(ktb), ldk,
                                 s.data(), cols, false);
        else
          detail::blockGemm<T>(rows, cols, E, qs.data(), E, 1, ktb, kb, 1,
                               s.data(), false);
        for (int64_t r = 0; r < rows; ++r) {
          Acc *sr = s.data() + r * cols;
          if constexpr (paired) {
#pragma omp simd
            for (int64_t c = 0; c < cols; ++c)
              sr[c] *= scale;
          }
          if (mask) {
            const M *mp = mask->data + mask->offset(b, h) +
                          (i0 + r) * mask->strides[2] + j0 * mask->strides[3];
            const int64_t ms = mask->strides[3];
            if constexpr (std::is_same_v<M, bool>) {
              for (int64_t c = 0; c < cols; ++c)
                sr[c] = mp[c * ms] ? sr[c] : -inf;
            } else {
              for (int64_t c = 0; c < cols; ++c)
                sr[c] += static_cast<Acc>(mp[c * ms]);
            }
          }
          // Causal: the keys past the row's diagonal take no part (their
          // probabilities 0, no exp computed for them).
          const int64_t live =
              causal ? std::clamp<int64_t>(i0 + r + 1 - j0, 0, cols) : cols;
          std::fill(sr + live, sr + cols, Acc(0));
          // A NaN score makes the maximum, the sum and so the row NaN, as
          // a softmax over it does.
          const Acc top = detail::rowMax(sr, live);
          const Acc next = top != top ? top : std::max(m[r], top);
          if (next == -inf) { // nothing attended yet
            std::fill(sr, sr + live, Acc(0));
          } else {
            const Acc alpha = detail::vexp(m[r] - next);
            Acc sum = 0;
#pragma omp simd reduction(+ : sum)
            for (int64_t c = 0; c < live; ++c) {
              sr[c] = detail::vexp(sr[c] - next);
              sum += sr[c];
            }
            l[r] = l[r] * alpha + sum;
            m[r] = next;
            if (alpha != Acc(1))
              for (int64_t e = 0; e < Ev; ++e)
                o[r * Ev + e] *= alpha;
          }
          if constexpr (paired) {
            T *pr = ps.data() + r * kb2;
#pragma omp simd
            for (int64_t c = 0; c < cols; ++c)
              pr[c] = T(sr[c]);
          }
        }
        // o += P V, V as a [cols, Ev] matrix, rows contiguous.
        if constexpr (paired) {
          avx512bf16::pairedGemm(
              rows, Ev, cols, reinterpret_cast<const uint16_t *>(ps.data()),
              kb2, reinterpret_cast<const uint16_t *>(vpb), ldv, o.data(), Ev,
              /*accumulate=*/true);
        } else {
          const T *vp = vp0 + j0 * v.strides[2];
          int64_t vr = v.strides[2];
          if (!vRows) {
            for (int64_t c = 0; c < cols; ++c)
              for (int64_t e = 0; e < Ev; ++e)
                vs[c * Ev + e] = vp[c * v.strides[2] + e * v.strides[3]];
            vp = vs.data();
            vr = Ev;
          }
          detail::blockGemm<T>(rows, Ev, cols, s.data(), cols, 1, vp, vr, 1,
                               o.data(), /*accumulate=*/true);
        }
      }
      T *op = out + ((b * H + h) * L + i0) * Ev;
      for (int64_t r = 0; r < rows; ++r) {
        // A query that attended to nothing gives zeros (torch >= 2.5), or
        // 0 / 0 as a softmax over nothing but -inf does; a NaN score made l
        // NaN, which gives NaN (a softmax's whole row) only then.
        if (nanWhenUnattended) {
          const Acc inv = Acc(1) / l[r];
          for (int64_t e = 0; e < Ev; ++e)
            op[r * Ev + e] = T(o[r * Ev + e] * inv);
          continue;
        }
        // (l is 0 exactly when no key was attended; NaN stays NaN.)
        const Acc inv = l[r] != Acc(0) ? Acc(1) / l[r] : Acc(0);
        for (int64_t e = 0; e < Ev; ++e)
          op[r * Ev + e] = T(l[r] != Acc(0) ? o[r * Ev + e] * inv : Acc(0));
      }
    }
  });
}

template <typename T>
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 const Tensor &mask, bool causal, double scale,
                 const Shape &outShape, bool nanWhenUnattended) {
  View4<T> vq = view4<T>(q), vk = view4<T>(k), vv = view4<T>(v);
  // The batch dims, broadcast (checked by the caller), as [B, H].
  const int64_t rank = static_cast<int64_t>(outShape.size());
  const int64_t B = rank == 4 ? outShape[0] : 1;
  const int64_t H = rank >= 3 ? outShape[static_cast<size_t>(rank - 3)] : 1;
  const int64_t L = vq.sizes[2], S = vk.sizes[2];
  if (mask.defined()) {
    const int64_t want[4] = {B, H, L, S};
    for (int64_t i = 0; i < mask.dim(); ++i) {
      int64_t d = 4 - mask.dim() + i;
      if (mask.size(i) != 1 && mask.size(i) != want[d])
        throw Error(std::string(kOp) + ": attn_mask of shape " +
                    shapeStr(mask.shape()) +
                    " does not broadcast to the scores' shape [" +
                    std::to_string(B) + ", " + std::to_string(H) + ", " +
                    std::to_string(L) + ", " + std::to_string(S) + "]");
    }
  }
  Tensor out = empty(outShape, q.dtype());
  T *o = out.data<T>();
  if (mask.defined() && mask.dtype() == kBool) {
    View4<bool> vm = view4<bool>(mask);
    attend<T, bool>(vq, vk, vv, &vm, causal, static_cast<AccOf<T>>(scale), o, B,
                    H, nanWhenUnattended);
  } else if (mask.defined()) {
    View4<T> vm = view4<T>(mask);
    attend<T, T>(vq, vk, vv, &vm, causal, static_cast<AccOf<T>>(scale), o, B, H,
                 nanWhenUnattended);
  } else {
    attend<T, T>(vq, vk, vv, nullptr, causal, static_cast<AccOf<T>>(scale), o,
                 B, H, nanWhenUnattended);
  }
  return out;
}

} // namespace

namespace {
/// The scores' scale: given, or 1 / sqrt(E).
double scaleOf(const Tensor &query, std::optional<double> scale) {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
}

/// softmax(q k^T * scale + mask) v written out with the public ops: what
/// the backward differentiates (the fused forward keeps no probabilities;
/// they are recomputed, as FlashAttention's backward does). A query that
/// attends to no key gets zero probabilities.
Tensor attentionMath(const Tensor &q, const Tensor &k, const Tensor &v,
                     const Tensor &mask, bool causal, double scale) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor scores = matmul(q, k.transpose(-2, -1)) * scale;
  int64_t L = q.size(-2), S = k.size(-2);
  if (causal)
    scores = masked_fill(scores,
                         arange(S).unsqueeze(0) > arange(L).unsqueeze(1), -inf);
  else if (mask.defined() && mask.dtype() == kBool)
    scores = masked_fill(scores, logical_not(mask), -inf);
  else if (mask.defined())
    scores = scores + mask;
  // torch's _safe_softmax: a row with no key left (all -inf) gets zero
  // probabilities, and no NaN reaches the gradients through it.
  Tensor unattended = amax(scores, {-1}, true) == -inf;
  Tensor p = softmax(where(unattended, 0, scores).to(scores.dtype()), -1);
  p = where(unattended, 0, p).to(p.dtype());
  return matmul(p, v);
}
} // namespace

Tensor scaled_dot_product_attention(const Tensor &query0, const Tensor &key0,
                                    const Tensor &value0,
                                    const Tensor &attn_mask0, double dropout_p,
                                    bool is_causal,
                                    std::optional<double> scale) {
  detail::CountedOp counted;
  detail::AutocastOp autocast(detail::CastPolicy::LowerPrecision);
  const Tensor query = autocast(query0), key = autocast(key0),
               value = autocast(value0), attn_mask = autocast(attn_mask0);
  autograd::Recorder grad("ScaledDotProductAttentionBackward0", query, key,
                          value, attn_mask);
  Tensor out = detail::scaledDotProductAttention(
      query, key, value, attn_mask, dropout_p, is_causal, scale, false);
  if (!grad)
    return out;
  double s = scaleOf(query, scale);
  grad.record(out, [sq = grad.save(query), sk = grad.save(key),
                    sv = grad.save(value), sm = grad.save(attn_mask), is_causal,
                    s](const autograd::Grads &g, const autograd::Needs &n) {
    // Recompute the forward with the public ops under grad mode and take
    // its gradients with respect to the inputs that need them.
    AutoGradMode enable(true);
    std::vector<Tensor> inputs{sq.get(), sk.get(), sv.get(), sm.get()};
    std::vector<Tensor> wanted;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined())
        continue;
      inputs[i] = inputs[i].detach();
      if (n[i]) {
        inputs[i].requires_grad_();
        wanted.push_back(inputs[i]);
      }
    }
    Tensor recomputed =
        attentionMath(inputs[0], inputs[1], inputs[2], inputs[3], is_causal, s);
    std::vector<Tensor> grads = autograd::grad({recomputed}, wanted, {g[0]});
    autograd::Grads out(4);
    for (size_t i = 0, w = 0; i < 4; ++i)
      if (n[i])
        out[i] = grads[w++];
    return out;
  });
  return out;
}

Tensor detail::scaledDotProductAttention(const Tensor &query, const Tensor &key,
                                         const Tensor &value,
                                         const Tensor &attn_mask,
                                         double dropout_p, bool is_causal,
                                         std::optional<double> scale,
                                         bool nanWhenUnattended) {
  detail::CountedOp counted;
  for (const Tensor *t : {&query, &key, &value})
    detail::checkCpu(*t, kOp);
  if (attn_mask.defined())
    detail::checkCpu(attn_mask, kOp);
  if (dropout_p != 0.0)
    throw Error(std::string(kOp) +
                ": dropout_p must be 0 (kiln computes at inference), got " +
                std::to_string(dropout_p));
  if (is_causal && attn_mask.defined())
    throw Error(std::string(kOp) +
                ": attn_mask must be undefined when is_causal is set");
  for (const Tensor *t : {&query, &key, &value})
    if (t->dim() < 2 || t->dim() > 4)
      throw Error(std::string(kOp) +
                  ": query, key and value must have 2 to 4 dims, got shapes " +
                  shapeStr(query.shape()) + ", " + shapeStr(key.shape()) +
                  " and " + shapeStr(value.shape()));
  DType dt = query.dtype();
  if (!isFloating(dt))
    throw detail::unsupportedDType(kOp, dt);
  if (key.dtype() != dt || value.dtype() != dt)
    throw Error(std::string(kOp) +
                ": query, key and value must have the same dtype, got " +
                dtypeName(dt) + ", " + dtypeName(key.dtype()) + " and " +
                dtypeName(value.dtype()));
  if (attn_mask.defined() && attn_mask.dtype() != kBool &&
      attn_mask.dtype() != dt)
    throw Error(std::string(kOp) + ": attn_mask must be bool or " +
                dtypeName(dt) + " (the query's dtype), got " +
                dtypeName(attn_mask.dtype()));
  if (attn_mask.defined() && attn_mask.dim() > 4)
    throw Error(std::string(kOp) + ": attn_mask of shape " +
                shapeStr(attn_mask.shape()) + " has more than 4 dims");
  if (query.size(-1) != key.size(-1))
    throw Error(std::string(kOp) + ": query of shape " +
                shapeStr(query.shape()) + " and key of shape " +
                shapeStr(key.shape()) + " differ in the last dim");
  if (key.size(-2) != value.size(-2))
    throw Error(std::string(kOp) + ": key of shape " + shapeStr(key.shape()) +
                " and value of shape " + shapeStr(value.shape()) +
                " differ in dim -2 (the number of keys)");
  // The result: q, k and v's batch dims broadcast, then [L, Ev].
  int64_t rank = std::max({query.dim(), key.dim(), value.dim()});
  Shape outShape(static_cast<size_t>(rank), 1);
  for (const Tensor *t : {&query, &key, &value})
    for (int64_t i = 0; i + 2 < t->dim(); ++i) {
      int64_t &d = outShape[static_cast<size_t>(rank - t->dim() + i)];
      int64_t s = t->size(i);
      if (s != 1 && d != 1 && s != d)
        throw Error(std::string(kOp) + ": the batch dims of query " +
                    shapeStr(query.shape()) + ", key " + shapeStr(key.shape()) +
                    " and value " + shapeStr(value.shape()) +
                    " do not broadcast");
      d = s == 1 ? d : s;
    }
  outShape[static_cast<size_t>(rank - 2)] = query.size(-2);
  outShape[static_cast<size_t>(rank - 1)] = value.size(-1);
  if (attn_mask.defined() && attn_mask.dim() > rank)
    throw Error(std::string(kOp) + ": attn_mask of shape " +
                shapeStr(attn_mask.shape()) +
                " has more dims than the scores (" + std::to_string(rank) +
                ")");
  double s = scaleOf(query, scale);
  if (dt == kBFloat16 && detail::bf16DotProducts())
    return attention<BFloat16>(query, key, value, attn_mask, is_causal, s,
                               outShape, nanWhenUnattended);
  if (dt == kFloat16 || dt == kBFloat16) {
    Tensor mask = attn_mask.defined() && attn_mask.dtype() != kBool
                      ? attn_mask.to(kFloat32)
                      : attn_mask;
    return attention<float>(query.to(kFloat32), key.to(kFloat32),
                            value.to(kFloat32), mask, is_causal, s, outShape,
                            nanWhenUnattended)
        .to(dt);
  }
  if (dt == kFloat64)
    return attention<double>(query, key, value, attn_mask, is_causal, s,
                             outShape, nanWhenUnattended);
  return attention<float>(query, key, value, attn_mask, is_causal, s, outShape,
                          nanWhenUnattended);
}

} // namespace kiln
