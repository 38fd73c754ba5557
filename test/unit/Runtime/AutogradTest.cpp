//===- AutogradTest.cpp - Eager autograd, in-place ops, optimizers --------===//
//
// Every differentiable op is checked with gradcheck (float64 central
// differences against the analytic gradient) on shapes that broadcast and
// on non-contiguous inputs; the semantics LibTorch users rely on (shared
// handles, accumulation, retain_graph, no_grad, version counters) and the
// optimizers' formulas are checked against hand-written torch formulas.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <functional>
#include <limits>
#include <string>

using namespace kiln;
using namespace kiln::test;

namespace {
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

/// A float64 leaf that requires grad, values away from the kinks of the
/// ops under test.
Tensor leaf(const Shape &shape, uint64_t seed, double offset = 0.0) {
  Tensor t = randn(shape, seed, kFloat64);
  if (offset != 0.0)
    t = abs(t) + offset;
  return t.requires_grad_();
}

void requireGradcheck(const Fn &fn, const std::vector<Tensor> &inputs) {
  std::string result = autograd::gradcheck(fn, inputs);
  INFO(result);
  CHECK(result.empty());
}

Fn unary(Tensor (*f)(const Tensor &)) {
  return [f](const std::vector<Tensor> &x) {
    return std::vector<Tensor>{f(x[0])};
  };
}
} // namespace

TEST_CASE("gradcheck: elementwise functions", "[autograd]") {
  using U = Tensor (*)(const Tensor &);
  // Functions of any real input.
  for (U f : std::vector<U>{exp, tanh, sigmoid, silu, sin, cos, atan, erf, erfc,
                            expm1, exp2, softplus, mish, square, neg, abs,
                            hardswish, hardsigmoid, relu}) {
    Tensor x = leaf({3, 4}, 7);
    requireGradcheck(unary(f), {x});
    // A non-contiguous view as the input.
    Tensor y = leaf({4, 3}, 8);
    requireGradcheck(
        [f](const std::vector<Tensor> &x) {
          return std::vector<Tensor>{f(x[0].transpose(0, 1))};
        },
        {y});
  }
  // Positive inputs.
  for (U f : std::vector<U>{log, sqrt, rsqrt, log1p, log2, log10, reciprocal})
    requireGradcheck(unary(f), {leaf({2, 3}, 9, 0.3)});
  // tan away from its poles.
  requireGradcheck(unary(static_cast<U>(kiln::tan)),
                   {(leaf({2, 3}, 9, 0.1) * 0.3).detach().requires_grad_()});
  Tensor x = leaf({5}, 10);
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{gelu(x[0]), gelu(x[0], "tanh"),
                                   leaky_relu(x[0], 0.2), elu(x[0], 1.5),
                                   clamp(x[0], -0.5, 0.7)};
      },
      {x});
}

TEST_CASE("gradcheck: broadcasting binary ops sum back to each shape",
          "[autograd]") {
  Tensor a = leaf({2, 1, 3}, 1, 0.5), b = leaf({4, 1}, 2, 0.5);
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        const Tensor &a = x[0], &b = x[1];
        return std::vector<Tensor>{a + b,
                                   a - b,
                                   a * b,
                                   a / b,
                                   pow(a, b),
                                   pow(a, 2.5),
                                   maximum(a, b),
                                   minimum(a, b),
                                   2.0 / b,
                                   3.0 - a * 2,
                                   where(a > b, a, b)};
      },
      {a, b});
  // Mixed dtypes: a float32 input's gradient comes back as float32.
  Tensor f = ones({3}).requires_grad_();
  Tensor d = full({3}, 2.0, kFloat64);
  (f * d).sum().backward();
  checkTensor(f.grad(), {3}, kFloat32, {2, 2, 2});
}

TEST_CASE("gradcheck: reductions", "[autograd]") {
  Tensor x = leaf({3, 4, 2}, 3);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        const Tensor &x = v[0];
        return std::vector<Tensor>{sum(x),
                                   sum(x, {0, 2}),
                                   mean(x, 1, true),
                                   amax(x, -1),
                                   amin(x, {0, 1}),
                                   prod(x, 1),
                                   var(x, 1),
                                   kiln::std(x, {0, 2}),
                                   logsumexp(x, {1}),
                                   norm(x, 2, 1),
                                   cumsum(x, 1),
                                   std::get<0>(max(x, 1)),
                                   max(x),
                                   std::get<0>(topk(x, 2, 1))};
      },
      {x});
  // prod with a zero: the gradient is the product of the others.
  Tensor z = from_vector(std::vector<double>{2, 0, 3, 4}, {4}).requires_grad_();
  prod(z).backward();
  checkTensor(z.grad(), {4}, kFloat64, {0, 24, 0, 0});
  Tensor c = leaf({2, 3}, 4, 0.5);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        return std::vector<Tensor>{cumprod(v[0], 1)};
      },
      {c});
  // cumprod with zeros (torch's cumprod_backward): before a slice's first
  // zero, at it (the products with it taken as 1), after it (0).
  Tensor zeroed =
      from_vector(std::vector<double>{1, 0, 2}, {3}).requires_grad_();
  cumprod(zeroed, 0).sum().backward();
  checkTensor(zeroed.grad(), {3}, kFloat64, {1, 3, 0});
  Tensor holes = from_vector(std::vector<double>{1.5, 0, 2, 0, 3, 0, 0.5, 2, -1,
                                                 0.7, -0.8, 1.2, 0, 0, 2},
                             {3, 5})
                     .requires_grad_();
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        return std::vector<Tensor>{cumprod(v[0], 1), cumprod(v[0], 0)};
      },
      {holes});
}

TEST_CASE("gradcheck: views, indexing and joins", "[autograd]") {
  Tensor x = leaf({3, 4}, 5);
  Tensor y = leaf({3, 2}, 6);
  Tensor idx = from_vector(std::vector<int64_t>{2, 0, 2}, {3});
  Tensor gidx = from_vector(std::vector<int64_t>{1, 1, 0, 3, 2, 2}, {3, 2});
  requireGradcheck(
      [&](const std::vector<Tensor> &v) {
        const Tensor &x = v[0], &y = v[1];
        return std::vector<Tensor>{
            x.reshape({2, 6}),
            x.transpose(0, 1).contiguous(),
            x.permute({1, 0}),
            x.unsqueeze(1).expand({3, 5, 4}),
            x.slice(1, 1, 4, 2),
            x.select(0, -1),
            x.narrow(1, 1, 2),
            x.flatten(),
            cat({x, y}, 1),
            stack({x, x * 2}, 0),
            index_select(x, 1, idx),
            gather(x, 1, gidx),
            scatter_add(x, 1, gidx, y),
            flip(x, {0, 1}),
            roll(x, {1}, {1}),
            repeat(y, {2, 1, 2}),
            pad(x, {1, 2}),
            tril(x),
            masked_fill(x, x > 0, 0.5),
            x.chunk(2, 1)[1],
            x.split(Shape{1, 3}, 1)[0],
        };
      },
      {x, y});
}

TEST_CASE("gradcheck: masked_fill with a tensor value", "[autograd]") {
  Tensor x = leaf({3, 4}, 31), v = leaf({}, 32);
  requireGradcheck(
      [](const std::vector<Tensor> &in) {
        return std::vector<Tensor>{masked_fill(in[0], in[0] > 0, in[1])};
      },
      {x, v});
}

TEST_CASE("gradcheck: products, normalisations and losses", "[autograd]") {
  Tensor a = leaf({2, 3, 4}, 11), b = leaf({4, 5}, 12), v = leaf({4}, 13);
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        const Tensor &a = x[0], &b = x[1], &v = x[2];
        return std::vector<Tensor>{matmul(a, b), matmul(v, b), matmul(a, v),
                                   matmul(v, v), linear(a, b.transpose(0, 1))};
      },
      {a, b, v});
  Tensor p = leaf({3, 2, 4}, 14), q = leaf({3, 4, 5}, 15);
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{
            matmul(x[0].unsqueeze(0), x[1]), bmm(x[0], x[1]),
            einsum("bij,jk->bik", {x[0], x[1].select(0, 0)})};
      },
      {p, q});
  Tensor h = leaf({2, 3, 5}, 16), w = leaf({5}, 17), bias = leaf({5}, 18);
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{softmax(x[0], -1), log_softmax(x[0], 1),
                                   layer_norm(x[0], x[1], x[2]),
                                   rms_norm(x[0], x[1])};
      },
      {h, w, bias});
  Tensor logits = leaf({4, 6}, 19);
  Tensor targets = from_vector(std::vector<int64_t>{5, 0, 2, 2}, {4});
  Tensor table = leaf({6, 3}, 20);
  requireGradcheck(
      [&](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{cross_entropy(x[0], targets),
                                   embedding(targets, x[1])};
      },
      {logits, table});
}

TEST_CASE("gradcheck: convolutions, pooling and image layers", "[autograd]") {
  Tensor x = leaf({2, 4, 5, 6}, 31), w = leaf({6, 2, 3, 2}, 32),
         b = leaf({6}, 33);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        return std::vector<Tensor>{
            conv2d(v[0], v[1], v[2], Shape{2, 1}, Shape{1, 0}, Shape{1, 2}, 2),
            conv2d(v[0],
                   v[1].slice(0, 0, 2).narrow(1, 0, 2).repeat({1, 2, 1, 1}),
                   Tensor(), 1, 1)};
      },
      {x, w, b});
  Tensor t = leaf({1, 3, 4, 3}, 34), tw = leaf({3, 2, 2, 3}, 35),
         seq = leaf({2, 3, 7}, 36), sw = leaf({4, 3, 3}, 37);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        return std::vector<Tensor>{conv_transpose2d(v[0], v[1], Tensor(),
                                                    Shape{2, 1}, Shape{1, 0},
                                                    Shape{1, 0}),
                                   conv1d(v[2], v[3], Tensor(), 2, 1)};
      },
      {t, tw, seq, sw});
  Tensor img = leaf({2, 3, 7, 6}, 38);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        const Tensor &x = v[0];
        return std::vector<Tensor>{
            max_pool2d(x, Shape{3, 2}, Shape{2, 2}, Shape{1, 1}, Shape{1},
                       true),
            max_pool2d(x, 2),
            avg_pool2d(x, Shape{3, 3}, Shape{2, 2}, Shape{1, 1}, true, false),
            avg_pool2d(x, 2, std::nullopt, 0, false, true, 3),
            adaptive_avg_pool2d(x, Shape{3, 4}),
            interpolate(x, Shape{9, 4}, "bilinear"),
            interpolate(x, 2.0, "nearest")};
      },
      {img});
  Tensor bx = leaf({4, 3, 2, 2}, 39), gamma = leaf({3}, 40),
         beta = leaf({3}, 41);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        Tensor mean = zeros({3}, kFloat64), var = ones({3}, kFloat64);
        return std::vector<Tensor>{
            batch_norm(v[0], mean, var, v[1], v[2], true),
            group_norm(v[0], 3, v[1], v[2])};
      },
      {bx, gamma, beta});
}

TEST_CASE("the image ops' gradient functions are what autograd runs",
          "[autograd]") {
  // kiln::conv2d_backward and the pooling gradients (what compiled
  // backward graphs call) give autograd's gradients, and only those asked
  // for; a grad_output of the wrong shape is an error, not a wrong read.
  Tensor x = leaf({2, 4, 7, 6}, 51), w = leaf({6, 2, 3, 3}, 52);
  Tensor y = conv2d(x, w, Tensor(), Shape{2, 1}, Shape{1, 1}, Shape{1}, 2);
  Tensor g = randn(y.shape(), 53, kFloat64);
  y.backward(g);
  auto [gx, gw] = conv2d_backward(g, x.detach(), w.detach(), Shape{2, 1},
                                  Shape{1, 1}, Shape{1}, 2);
  CHECK(allclose(gx, x.grad()));
  CHECK(allclose(gw, w.grad()));
  auto [none, onlyW] = conv2d_backward(g, x.detach(), w.detach(), Shape{2, 1},
                                       Shape{1, 1}, Shape{1}, 2, {false, true});
  CHECK_FALSE(none.defined());
  CHECK(allclose(onlyW, w.grad()));
  CHECK_THROWS_WITH(conv2d_backward(g.slice(3, 0, 5), x, w, Shape{2, 1},
                                    Shape{1, 1}, Shape{1}, 2),
                    Catch::Contains("grad_output must be the convolution's "
                                    "[2, 6, 4, 6] float64, got [2, 6, 4, 5]"));

  Tensor img = leaf({2, 3, 7, 6}, 54);
  Tensor m =
      max_pool2d(img, Shape{3, 3}, Shape{2, 2}, Shape{1, 1}, Shape{1}, true);
  Tensor a = adaptive_avg_pool2d(img, Shape{3, 4});
  Tensor gm = randn(m.shape(), 55, kFloat64),
         ga = randn(a.shape(), 56, kFloat64);
  (sum(m * gm) + sum(a * ga)).backward();
  CHECK(allclose(max_pool2d_backward(gm, img.detach(), Shape{3, 3}, Shape{2, 2},
                                     Shape{1, 1}, Shape{1}, true) +
                     adaptive_avg_pool2d_backward(ga, img.detach()),
                 img.grad()));
  CHECK_THROWS_WITH(
      avg_pool2d_backward(gm, img.detach(), Shape{2, 2}, Shape{2, 2},
                          Shape{0, 0}, false, true, std::nullopt),
      Catch::Contains("avg_pool2d_backward: grad_output must be the "
                      "pooling's [2, 3, 3, 3] float64, got [2, 3, 4, 4]"));
}

TEST_CASE("dropout in training: a seeded mask, scaled, and its gradient",
          "[autograd]") {
  Tensor x = full({100, 100}, 2.0).requires_grad_();
  manual_seed(7);
  Tensor y = dropout(x, 0.25, true);
  Tensor again = dropout(x, 0.25, true);
  manual_seed(7);
  Tensor replay = dropout(x, 0.25, true);
  CHECK(allclose(y, replay));
  CHECK_FALSE(allclose(y, again)); // the next draw is another mask
  // Each element is 0 or 2 / 0.75, about a quarter of them 0.
  Tensor zeroed = (y == 0).to(kFloat64);
  CHECK(sum(logical_or(y == 0, abs(y - 2 / 0.75) < 1e-5).to(kInt64))
            .item<int64_t>() == 10000);
  CHECK(mean(zeroed).item<double>() == Approx(0.25).margin(0.02));
  y.sum().backward();
  CHECK(allclose(x.grad(), y.detach() / 2));
  checkTensor(dropout(ones({3}), 1.0, true), {3}, kFloat32, {0, 0, 0});
  // Consecutive masks are unrelated (not one stream shifted by an element).
  Tensor m1 = dropout(ones({1000}), 0.5, true),
         m2 = dropout(ones({1000}), 0.5, true);
  CHECK(mean((m1.slice(0, 0, 999) == m2.slice(0, 1, 1000)).to(kFloat64))
            .item<double>() < 0.7);
}

TEST_CASE("batch_norm in training mode: batch statistics, running updates",
          "[autograd]") {
  Tensor x = F({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  Tensor mean = zeros({2}), var = ones({2});
  Tensor y = batch_norm(x, mean, var, Tensor(), Tensor(), true, 0.1, 0.0);
  // Channel 0 holds 1, 3, 5, 7: mean 4, biased variance 5, unbiased 20/3.
  double r = 1 / std::sqrt(5.0);
  checkTensor(y, {4, 2}, kFloat32, {-3 * r, -3 * r, -r, -r, r, r, 3 * r, 3 * r},
              1e-5, 1e-6);
  checkTensor(mean, {2}, kFloat32, {0.4, 0.5}, 1e-6, 1e-6);
  checkTensor(var, {2}, kFloat32, {0.9 + 2.0 / 3, 0.9 + 2.0 / 3}, 1e-6, 1e-6);
  CHECK_THROWS_WITH(
      batch_norm(ones({1, 2}), mean, var, Tensor(), Tensor(), true),
      Catch::Contains("more than 1 value per channel"));
}

TEST_CASE("gradcheck: scaled_dot_product_attention", "[autograd]") {
  Tensor q = leaf({1, 2, 3, 4}, 21), k = leaf({1, 2, 5, 4}, 22),
         v = leaf({1, 2, 5, 3}, 23);
  Tensor mask = from_vector(std::vector<bool>{true, false, true, true, false,
                                              true, true, true, false, false,
                                              true, false, true, true, true},
                            {3, 5});
  requireGradcheck(
      [&](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{
            scaled_dot_product_attention(x[0], x[1], x[2]),
            scaled_dot_product_attention(x[0], x[1], x[2], mask),
            scaled_dot_product_attention(x[0], x[1].slice(2, 0, 3),
                                         x[2].slice(2, 0, 3), Tensor(), 0.0,
                                         true, 0.7)};
      },
      {q, k, v});
}

TEST_CASE("handles share autograd state; backward accumulates", "[autograd]") {
  Tensor w = ones({2});
  std::vector<Tensor> params{w}; // a copy of the handle, made before
  w.requires_grad_();
  CHECK(params[0].requires_grad());
  CHECK(w.is_leaf());
  Tensor loss = (params[0] * 3).sum();
  CHECK_FALSE(loss.is_leaf());
  CHECK(loss.grad_fn_name() == "SumBackward1");
  loss.backward();
  checkTensor(w.grad(), {2}, kFloat32, {3, 3});
  (w * w).sum().backward();
  checkTensor(params[0].grad(), {2}, kFloat32, {5, 5}); // 3 + 2w
  // Integer tensors cannot require grad; non-leaves keep their flag.
  CHECK_THROWS_WITH(arange(3).requires_grad_(),
                    Catch::Contains("floating point"));
  CHECK_THROWS_WITH(loss.requires_grad_(false),
                    Catch::Contains("leaf variables"));
}

TEST_CASE("backward's errors are torch's", "[autograd]") {
  Tensor x = ones({3}).requires_grad_();
  Tensor y = x * 2;
  CHECK_THROWS_WITH(y.backward(), Catch::Contains("only for scalar outputs"));
  CHECK_THROWS_WITH(ones({2}).sum().backward(),
                    Catch::Contains("does not require grad"));
  CHECK_THROWS_WITH(y.backward(ones({2})),
                    Catch::Contains("mismatch in shape"));
  // A second backward through freed saved tensors.
  Tensor z = (x * x).sum();
  z.backward();
  CHECK_THROWS_WITH(z.backward(), Catch::Contains("second time"));
  Tensor r = (x * x).sum();
  r.backward(Tensor(), true);
  r.backward();
  checkTensor(x.grad(), {3}, kFloat32, {6, 6, 6}); // 2 + 2 + 2
}

TEST_CASE("no_grad and detach record nothing", "[autograd]") {
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard guard;
    CHECK_FALSE(GradMode::is_enabled());
    Tensor y = x * 2;
    CHECK_FALSE(y.requires_grad());
  }
  CHECK(GradMode::is_enabled());
  Tensor d = x.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.shares_storage(x));
  Tensor y = (x * d).sum();
  y.backward();
  checkTensor(x.grad(), {2}, kFloat32, {1, 1});
}

TEST_CASE("in-place ops: values, history, torch's errors", "[autograd]") {
  Tensor a = F({1, 2, 3}, {3});
  a.add_(F({1, 1, 1}, {3}), 2).mul_(2).sub_(1).div_(2);
  checkTensor(a, {3}, kFloat32, {2.5, 3.5, 4.5});
  a.addcmul_(F({1, 2, 3}, {3}), F({2, 2, 2}, {3}), 0.5)
      .addcdiv_(F({4, 4, 4}, {3}), F({2, 4, 8}, {3}));
  checkTensor(a, {3}, kFloat32, {5.5, 6.5, 8});
  a.clamp_(6, 7);
  checkTensor(a, {3}, kFloat32, {6, 6.5, 7});
  a.slice(0, 1, 3).fill_(0);
  checkTensor(a, {3}, kFloat32, {6, 0, 0});
  Tensor m = zeros({2, 3});
  m.copy_(F({1, 2, 3}, {3})); // broadcast
  checkTensor(m, {2, 3}, kFloat32, {1, 2, 3, 1, 2, 3});
  m.zero_();
  checkTensor(m, {2, 3}, kFloat32, {0, 0, 0, 0, 0, 0});
  // The compound assignments are add_, sub_, mul_ and div_.
  Tensor c = F({1, 2, 3}, {3});
  c += F({1, 1, 1}, {3});
  c -= 1;
  c *= F({2, 2, 2}, {3});
  c /= 4;
  (c += 1) *= 2;
  checkTensor(c, {3}, kFloat32, {3, 4, 5});
  Tensor i = arange(3);
  CHECK_THROWS_WITH(i.add_(0.5), Catch::Contains("can't be cast"));
  CHECK_THROWS_WITH(i /= 2, Catch::Contains("can't be cast"));
  CHECK_THROWS_WITH(ones({3}).expand({2, 3}).add_(1),
                    Catch::Contains("single memory location"));

  // A leaf that requires grad: only under no_grad.
  Tensor w = ones({3}).requires_grad_();
  CHECK_THROWS_WITH(w.add_(1), Catch::Contains("leaf"));
  CHECK_THROWS_WITH(w += 1, Catch::Contains("leaf"));
  {
    NoGradGuard guard;
    w.add_(1);
  }
  checkTensor(w, {3}, kFloat32, {2, 2, 2});
  // On a non-leaf, the op joins its history.
  Tensor h = w * 3;
  h.mul_(h.detach() + 1); // d/dw (3w * (3w + 1)) with the factor constant
  h.sum().backward();
  checkTensor(w.grad(), {3}, kFloat32, {21, 21, 21});
  // A saved tensor modified in place: the backward refuses.
  Tensor x = ones({3}).requires_grad_();
  Tensor e = exp(x * 1);
  Tensor s = e.sum();
  e.add_(1);
  CHECK_THROWS_WITH(s.backward(), Catch::Contains("modified by an inplace"));
}

TEST_CASE("edge cases torch handles: zero norms, 0-d reductions, masked "
          "rows, in-place on saved inputs, reused views",
          "[autograd]") {
  // A zero norm and a constant row's std have zero gradients, not NaN.
  Tensor z = zeros({3}, kFloat64).requires_grad_();
  (norm(z) + kiln::std(z)).backward();
  checkTensor(z.grad(), {3}, kFloat64, {0, 0, 0});
  // relu's gradient is threshold_backward: 0 where the result is at most 0,
  // even for a NaN gradient (a one-element std with correction 1), and the
  // gradient itself where the input is NaN.
  Tensor r = full({3}, -1.0, kFloat64);
  r.narrow(0, 2, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  r.requires_grad_();
  Tensor nanGrad = kiln::std(relu(r).narrow(0, 0, 1), {0}, 1, false);
  (nanGrad + (relu(r) * 3).narrow(0, 2, 1).sum()).backward();
  checkTensor(r.grad(), {3}, kFloat64, {0, 0, 3});
  // A 0-d tensor reduced over dim 0.
  Tensor s = full({}, 2.0, kFloat64).requires_grad_();
  (sum(s, 0) + mean(s, 0, true) + amax(s, {0})).backward();
  checkTensor(s.grad(), {}, kFloat64, {3});
  // layer_norm over every dim of its input.
  Tensor row = leaf({6}, 50), w = leaf({6}, 51), b = leaf({6}, 52);
  requireGradcheck(
      [](const std::vector<Tensor> &v) {
        return std::vector<Tensor>{layer_norm(v[0], v[1], v[2]),
                                   rms_norm(v[0], v[1])};
      },
      {row, w, b});
  // A float mask that leaves a query no key: zero output, finite gradients.
  Tensor q = leaf({2, 3, 4}, 53), k = leaf({2, 5, 4}, 54),
         v = leaf({2, 5, 3}, 55);
  Tensor mask = zeros({3, 5}, kFloat64);
  mask.select(0, 1).fill_(-std::numeric_limits<double>::infinity());
  requireGradcheck(
      [&](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{
            scaled_dot_product_attention(x[0], x[1], x[2], mask)};
      },
      {q, k, v});
  // elu with a negative alpha.
  requireGradcheck(
      [](const std::vector<Tensor> &x) {
        return std::vector<Tensor>{elu(x[0], -0.7)};
      },
      {leaf({5}, 56)});
  // In-place ops whose nodes save their input: torch's original_self.
  Tensor x = F({1, 5, 9}, {3}).requires_grad_();
  Tensor h = x * 2;
  h.clamp_(0, 6).mul_(x);
  h.sum().backward(); // h = clamp(2x, 0, 6) * x: (4x, 6, 9) at (1, 5, 9)
  checkTensor(x.grad(), {3}, kFloat32, {4, 6, 6});
  Tensor w2 = F({2, 3}, {2}).requires_grad_();
  Tensor buf = ones({2});
  buf.mul_(w2).mul_(w2);
  buf.sum().backward();
  checkTensor(w2.grad(), {2}, kFloat32, {4, 6});
  // A view of a parameter made once and used every step, the parameter
  // updated in place between steps (as an optimizer does).
  Tensor p = F({1, 2, 3, 4}, {2, 2}).requires_grad_();
  Tensor pt = p.transpose(0, 1);
  for (int step = 0; step < 2; ++step) {
    p.mutable_grad() = Tensor();
    (pt * pt).sum().backward();
    checkTensor(p.grad(), {2, 2}, kFloat32, values(p.detach() * 2), 1e-6, 1e-6);
    NoGradGuard noGrad;
    p.sub_(p.grad(), 0.1);
  }
  // autograd::grad runs only what leads to the inputs asked for: another
  // branch's saved tensor modified in place does not matter.
  Tensor a = F({1, 2}, {2}).requires_grad_(),
         c = F({3, 4}, {2}).requires_grad_();
  Tensor e = exp(c * 1);
  Tensor total = (a * a).sum() + e.sum();
  e.add_(1);
  std::vector<Tensor> ga = autograd::grad({total}, {a});
  checkTensor(ga[0], {2}, kFloat32, {2, 4});
}

namespace {
/// One parameter updated by torch's formulas, written out with ops.
struct AdamReference {
  Tensor m, v;
  int64_t t = 0;
  void step(Tensor &p, const Tensor &g, double lr, double b1, double b2,
            double eps, double decay, bool decoupled) {
    ++t;
    Tensor grad = g;
    if (decoupled)
      p = p * (1 - lr * decay);
    else
      grad = grad + decay * p;
    m = m.defined() ? m * b1 + grad * (1 - b1) : grad * (1 - b1);
    v = v.defined() ? v * b2 + grad * grad * (1 - b2) : grad * grad * (1 - b2);
    double c1 = 1 - std::pow(b1, t), c2 = std::sqrt(1 - std::pow(b2, t));
    p = p - (lr / c1) * m / (sqrt(v) / c2 + eps);
  }
};
} // namespace

TEST_CASE("optimizers follow torch's update formulas", "[autograd][optim]") {
  for (bool decoupled : {false, true}) {
    Tensor p = randn({5}, 30, kFloat64).requires_grad_();
    Tensor ref = p.detach().clone();
    std::unique_ptr<optim::Optimizer> opt;
    if (decoupled)
      opt = std::make_unique<optim::AdamW>(
          std::vector<Tensor>{p}, optim::AdamWOptions(0.01)
                                      .betas(std::make_tuple(0.8, 0.99))
                                      .weight_decay(0.1));
    else
      opt = std::make_unique<optim::Adam>(
          std::vector<Tensor>{p},
          optim::AdamOptions(0.01).betas({0.8, 0.99}).weight_decay(0.1));
    AdamReference r;
    for (int step = 0; step < 4; ++step) {
      opt->zero_grad();
      Tensor loss = (p * p * p).sum();
      loss.backward();
      Tensor g = p.grad().clone();
      opt->step();
      r.step(ref, g, 0.01, 0.8, 0.99, 1e-8, 0.1, decoupled);
      checkTensor(p, {5}, kFloat64, values(ref), 1e-12, 1e-12);
    }
  }
  // The first Adam step moves each parameter by lr against its gradient's
  // sign (the bias corrections cancel).
  Tensor q = F({1, -2, 3}, {3}).requires_grad_();
  optim::Adam adam({q}, optim::AdamOptions(0.1));
  (q * F({2, 3, -4}, {3})).sum().backward();
  adam.step();
  checkTensor(q, {3}, kFloat32, {0.9, -2.1, 3.1}, 1e-6, 1e-6);

  // SGD with momentum, dampening and weight decay, by hand.
  Tensor s = F({1, 2}, {2}).requires_grad_();
  optim::SGD sgd(
      {s},
      optim::SGDOptions(0.1).momentum(0.9).dampening(0.5).weight_decay(0.1));
  (s * s).sum().backward(); // g = 2s = (2, 4); d = g + 0.1 s = (2.1, 4.2)
  sgd.step();               // b = d; s -= 0.1 b
  checkTensor(s, {2}, kFloat32, {0.79, 1.58}, 1e-6, 1e-6);
  sgd.zero_grad(false);
  checkTensor(s.grad(), {2}, kFloat32, {0, 0});
  (s * s).sum().backward(); // g = (1.58, 3.16); d = g + 0.1 s
  sgd.step();               // b = 0.9 b + 0.5 d
  double d0 = 1.58 + 0.079, d1 = 3.16 + 0.158;
  checkTensor(s, {2}, kFloat32,
              {0.79 - 0.1 * (0.9 * 2.1 + 0.5 * d0),
               1.58 - 0.1 * (0.9 * 4.2 + 0.5 * d1)},
              1e-5, 1e-6);
  sgd.zero_grad();
  CHECK_FALSE(s.grad().defined());
}

TEST_CASE("clip_grad_norm_ scales every gradient by one factor",
          "[autograd][optim]") {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_();
  a.mutable_grad() = F({3, 0}, {2});
  b.mutable_grad() = F({4}, {1});
  double total = nn::utils::clip_grad_norm_({a, b}, 1.0);
  CHECK(total == Approx(5.0));
  checkTensor(a.grad(), {2}, kFloat32, {0.6, 0}, 1e-5, 1e-6);
  checkTensor(b.grad(), {1}, kFloat32, {0.8}, 1e-5, 1e-6);
  // Under the limit nothing changes.
  CHECK(nn::utils::clip_grad_norm_({a, b}, 10.0) == Approx(1.0).epsilon(1e-5));
  checkTensor(b.grad(), {1}, kFloat32, {0.8}, 1e-5, 1e-6);
}

TEST_CASE("a small model trains: the loss falls", "[autograd][optim]") {
  // y = 3x - 1 learned by a linear layer with AdamW.
  Tensor w = zeros({1, 1}).requires_grad_(), bias = zeros({1}).requires_grad_();
  optim::AdamW opt({w, bias}, optim::AdamWOptions(0.05).weight_decay(0.0));
  Tensor x = linspace(-1, 1, 16).reshape({16, 1});
  Tensor y = 3 * x - 1;
  double first = 0, last = 0;
  for (int step = 0; step < 400; ++step) {
    opt.zero_grad();
    Tensor loss = mean(square(linear(x, w, bias) - y));
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  CHECK(last < first * 1e-3);
  CHECK(w.item<double>() == Approx(3.0).epsilon(1e-2));
  CHECK(bias.item<double>() == Approx(-1.0).epsilon(1e-2));
}
