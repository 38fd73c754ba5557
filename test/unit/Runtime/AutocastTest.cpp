//===- AutocastTest.cpp - kiln::autocast, as torch.autocast("cpu") --------===//
//
// Under autocast the listed products compute in the scope's dtype on their
// float32 arguments cast, bit for bit what casting by hand gives; the
// float32 ops (cross_entropy) widen 16-bit arguments; other ops, float64
// arguments and code outside the scope are untouched; casts are recorded
// for autograd. The dtypes are the ones torch 2.15 gives for the same
// calls.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "kiln/Autocast.h"

using namespace kiln;
using namespace kiln::test;

namespace {
Tensor bf(const Tensor &t) { return t.to(kBFloat16); }

/// Same dtype, same shape, same values bit for bit (as doubles).
void checkSame(const Tensor &got, const Tensor &want) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  CHECK(values(got) == values(want));
}
} // namespace

TEST_CASE("autocast runs products in bfloat16 and leaves other ops alone",
          "[autocast]") {
  Tensor x = randn({5, 8}, 1), w = randn({3, 8}, 2), b = randn({3}, 3);
  Tensor a3 = randn({2, 5, 8}, 4), b3 = randn({2, 8, 4}, 5);
  Tensor in = randn({2, 5, 4}, 6), m1 = randn({5, 8}, 7), m2 = randn({8, 4}, 8);
  Tensor img = randn({1, 2, 6, 6}, 9), k = randn({3, 2, 3, 3}, 10);
  Tensor q = randn({1, 2, 4, 8}, 11), kk = randn({1, 2, 4, 8}, 12),
         v = randn({1, 2, 4, 8}, 13);
  Tensor ids = from_vector<int64_t>({0, 2, 1, 1, 0}, {5});
  Tensor lin, mm, bm, am, bb, es, cv, c1, ct, at, sum, soft, wide, ce, plain;
  CHECK_FALSE(is_autocast_enabled());
  {
    autocast scope(kBFloat16);
    CHECK(is_autocast_enabled());
    CHECK(get_autocast_dtype() == kBFloat16);
    lin = linear(x, w, b);
    mm = matmul(x, w.transpose(0, 1));
    bm = bmm(a3, b3);
    am = addmm(in.select(0, 0), m1, m2);
    bb = baddbmm(in, a3, b3);
    es = einsum("bij,bjk->bik", {a3, b3});
    cv = conv2d(img, k, b);
    c1 = conv1d(img.select(0, 0).select(1, 0), k.select(3, 0));
    ct = conv_transpose2d(img, k.transpose(0, 1), Tensor(), 2);
    at = scaled_dot_product_attention(q, kk, v, Tensor(), 0.0, true);
    // Off the lists: float32 stays float32, bfloat16 stays bfloat16.
    sum = x + x;
    soft = softmax(lin, -1);
    // float64 arguments are not cast.
    wide = linear(x.to(kFloat64), w.to(kFloat64));
    // cross_entropy widens its bfloat16 logits to float32.
    ce = cross_entropy(lin, ids);
    {
      autocast off(kBFloat16, false);
      CHECK_FALSE(is_autocast_enabled());
      plain = linear(x, w, b);
    }
    CHECK(is_autocast_enabled());
  }
  CHECK_FALSE(is_autocast_enabled());
  // The references, outside the scope: the ops on arguments cast by hand.
  checkSame(lin, linear(bf(x), bf(w), bf(b)));
  checkSame(mm, matmul(bf(x), bf(w).transpose(0, 1)));
  checkSame(bm, bmm(bf(a3), bf(b3)));
  checkSame(am, addmm(bf(in.select(0, 0)), bf(m1), bf(m2)));
  checkSame(bb, baddbmm(bf(in), bf(a3), bf(b3)));
  checkSame(es, einsum("bij,bjk->bik", {bf(a3), bf(b3)}));
  checkSame(cv, conv2d(bf(img), bf(k), bf(b)));
  checkSame(c1, conv1d(bf(img.select(0, 0).select(1, 0)), bf(k.select(3, 0))));
  checkSame(ct, conv_transpose2d(bf(img), bf(k.transpose(0, 1)), Tensor(), 2));
  checkSame(at, scaled_dot_product_attention(bf(q), bf(kk), bf(v), Tensor(),
                                             0.0, true));
  CHECK(sum.dtype() == kFloat32);
  CHECK(soft.dtype() == kBFloat16);
  checkSame(wide, linear(x.to(kFloat64), w.to(kFloat64)));
  checkSame(ce, cross_entropy(lin.to(kFloat32), ids));
  checkSame(plain, linear(x, w, b));
}

TEST_CASE("autocast's casts are recorded: float32 parameters get float32 "
          "gradients",
          "[autocast]") {
  Tensor x = randn({4, 6}, 21), w = randn({3, 6}, 22).requires_grad_(),
         b = randn({3}, 23).requires_grad_();
  Tensor ids = from_vector<int64_t>({2, 0, 1, 2}, {4});
  {
    autocast scope;
    Tensor loss = cross_entropy(linear(x, w, b), ids);
    CHECK(loss.dtype() == kFloat32);
    loss.backward();
  }
  REQUIRE(w.grad().defined());
  CHECK(w.grad().dtype() == kFloat32);
  CHECK(b.grad().dtype() == kFloat32);
  // The same computation with the casts written out.
  Tensor w2 = w.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  cross_entropy(linear(bf(x), bf(w2), bf(b2)).to(kFloat32), ids).backward();
  checkSame(w.grad(), w2.grad());
  checkSame(b.grad(), b2.grad());
}

TEST_CASE("autocast takes bfloat16 and float16 only", "[autocast]") {
  Tensor x = randn({2, 4}, 31), w = randn({3, 4}, 32);
  {
    autocast scope(kFloat16);
    CHECK(get_autocast_dtype() == kFloat16);
    CHECK(linear(x, w).dtype() == kFloat16);
  }
  CHECK(get_autocast_dtype() == kBFloat16);
  CHECK_KILN_ERROR(autocast(kFloat32),
                   "autocast: the dtype must be bfloat16 or float16, got "
                   "float32");
  CHECK_FALSE(is_autocast_enabled());
}
