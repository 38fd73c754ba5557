//===- NNTest.cpp - embedding, conv2d, cat, cross_entropy, attention ------===//
#include "TestUtil.h"

#include "Ops/Attention.h"

#include <cmath>
#include <limits>

using namespace kiln;
using namespace kiln::test;

TEST_CASE("embedding picks rows", "[nn]") {
  Tensor table = F({0, 1, 10, 11, 20, 21}, {3, 2});
  checkTensor(embedding(from_vector<int64_t>({2, 0, 2}, {3}), table), {3, 2},
              kFloat32, {20, 21, 0, 1, 20, 21});
  checkTensor(embedding(from_vector<int32_t>({1, 1, 0, 2}, {2, 2}), table),
              {2, 2, 2}, kFloat32, {10, 11, 10, 11, 0, 1, 20, 21});
  CHECK_KILN_ERROR(embedding(from_vector<int64_t>({3}, {1}), table),
                   "embedding", "index 3", "3 rows");
  CHECK_KILN_ERROR(embedding(from_vector<int64_t>({-1}, {1}), table),
                   "embedding", "-1");
  CHECK_KILN_ERROR(embedding(ones({2}), table), "embedding", "integer",
                   "float32");
}

TEST_CASE("conv2d, hand-computed", "[nn]") {
  // 1x1x3x3 input, a 2x2 kernel of ones: sums of 2x2 windows.
  Tensor x = arange(9).to(kFloat32).reshape({1, 1, 3, 3});
  Tensor w = ones({1, 1, 2, 2});
  checkTensor(conv2d(x, w), {1, 1, 2, 2}, kFloat32, {8, 12, 20, 24});
  checkTensor(conv2d(x, w, F({1}, {1}), 2, 1), {1, 1, 2, 2}, kFloat32,
              {1, 4, 10, 25});
  // Unbatched input, two output channels, stride {1, 2}.
  Tensor w2 = cat({ones({1, 1, 2, 2}), -ones({1, 1, 2, 2})}, 0);
  checkTensor(conv2d(x.squeeze(0), w2, Tensor(), Shape{1, 2}, Shape{0}),
              {2, 2, 1}, kFloat32, {8, 20, -8, -20});
}

TEST_CASE("conv2d misuse is reported", "[nn][errors]") {
  Tensor x = ones({1, 3, 5, 5});
  CHECK_KILN_ERROR(conv2d(x, ones({2, 4, 3, 3})), "conv2d", "3 channels",
                   "expects 4");
  CHECK_KILN_ERROR(conv2d(ones({5, 5}), ones({1, 1, 3, 3})), "conv2d",
                   "[5, 5]");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 7, 7})), "conv2d", "larger");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 3, 3}), Tensor(), 0, 0), "conv2d",
                   "stride");
  CHECK_KILN_ERROR(conv2d(x, ones({1, 3, 3, 3}), ones({2})), "conv2d", "bias");
}

TEST_CASE("cat along any dim", "[nn]") {
  Tensor a = F({1, 2, 3, 4}, {2, 2}), b = F({5, 6}, {2, 1});
  checkTensor(cat({a, b}, 1), {2, 3}, kFloat32, {1, 2, 5, 3, 4, 6});
  checkTensor(cat({a, b.transpose(0, 1)}, 0), {3, 2}, kFloat32,
              {1, 2, 3, 4, 5, 6});
  checkTensor(cat({a, a}, -1), {2, 4}, kFloat32, {1, 2, 1, 2, 3, 4, 3, 4});
  CHECK_KILN_ERROR(cat({a, b}, 0), "cat", "tensor 1", "[2, 1]", "[2, 2]");
  CHECK_KILN_ERROR(cat({}, 0), "cat", "non-empty");
  CHECK_KILN_ERROR(cat({a, a}, 2), "cat", "dim 2");
}

TEST_CASE("cross_entropy is the mean negative log-likelihood", "[nn]") {
  Tensor logits = F({0, 0, 0, 1, 2, 3}, {2, 3});
  Tensor targets = from_vector<int64_t>({1, 2}, {2});
  // Row 0: log 3. Row 1: -log_softmax[2] = 0.4076059644.
  checkTensor(cross_entropy(logits, targets), {}, kFloat32,
              {(std::log(3.0) + 0.4076059644) / 2}, 1e-6);
  checkTensor(cross_entropy(F({0, 0}, {2}), full({}, 0, kInt64)), {}, kFloat32,
              {std::log(2.0)}, 1e-6);
  CHECK_KILN_ERROR(cross_entropy(logits, from_vector<int64_t>({1, 3}, {2})),
                   "cross_entropy", "target 3", "3 rows");
  CHECK_KILN_ERROR(cross_entropy(logits, from_vector<int64_t>({1}, {1})),
                   "cross_entropy", "[1]", "[2, 3]");
  CHECK_KILN_ERROR(cross_entropy(logits, F({1, 2}, {2})), "cross_entropy",
                   "integer");
}

TEST_CASE("scaled_dot_product_attention reads any strides", "[nn]") {
  // Keys and values with no unit stride in their last two dims (every
  // other column of wider tensors), and a transposed query: the kernel
  // copies what BLAS cannot read and gives the contiguous inputs' result.
  Tensor q = randn({2, 3, 8, 5}, 1).transpose(-1, -2);
  Tensor k = randn({2, 3, 300, 16}, 2).slice(-1, 0, 16, 2);
  Tensor v = randn({2, 3, 300, 12}, 3).slice(-1, 0, 12, 2);
  for (bool causal : {false, true}) {
    Tensor got = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, causal);
    Tensor want = scaled_dot_product_attention(
        q.contiguous(), k.contiguous(), v.contiguous(), Tensor(), 0.0, causal);
    checkTensor(got, {2, 3, 5, 6}, kFloat32, values(want), 1e-6, 1e-7);
  }
}

TEST_CASE("scaled_dot_product_attention misuse is reported", "[nn][errors]") {
  Tensor q = randn({2, 5, 8}, 1), k = randn({2, 7, 8}, 2),
         v = randn({2, 7, 4}, 3);
  CHECK_KILN_ERROR(scaled_dot_product_attention(q, randn({2, 7, 9}, 4), v),
                   "scaled_dot_product_attention", "last dim");
  CHECK_KILN_ERROR(scaled_dot_product_attention(q, k, randn({2, 6, 4}, 4)),
                   "scaled_dot_product_attention", "number of keys");
  CHECK_KILN_ERROR(scaled_dot_product_attention(q, k, v, ones({5, 6}) > 0),
                   "attn_mask", "[5, 6]", "does not broadcast");
  CHECK_KILN_ERROR(
      scaled_dot_product_attention(q, k, v, ones({5, 7}) > 0, 0.0, true),
      "is_causal");
  CHECK_KILN_ERROR(scaled_dot_product_attention(q, k, v, Tensor(), 0.1),
                   "dropout_p must be 0");
  CHECK_KILN_ERROR(
      scaled_dot_product_attention(q, k, v, ones({5, 7}).to(kInt64)),
      "attn_mask must be bool or float32");
  CHECK_KILN_ERROR(scaled_dot_product_attention(q.to(kInt64), k, v),
                   "scaled_dot_product_attention", "int64");
  CHECK_KILN_ERROR(scaled_dot_product_attention(randn({8}, 1), k, v),
                   "2 to 4 dims");
  CHECK_KILN_ERROR(scaled_dot_product_attention(randn({2, 1, 5, 8}, 1),
                                                randn({3, 1, 7, 8}, 2),
                                                randn({3, 1, 7, 4}, 3)),
                   "do not broadcast");
}

TEST_CASE("tril and triu keep a triangle", "[nn]") {
  Tensor x = arange(1, 7, 1).reshape({2, 3});
  checkTensor(tril(x), {2, 3}, kInt64, {1, 0, 0, 4, 5, 0});
  checkTensor(x.triu(1), {2, 3}, kInt64, {0, 2, 3, 0, 0, 6});
  checkTensor(tril(x > 2, -1), {2, 3}, kBool, {0, 0, 0, 1, 0, 0});
  CHECK_KILN_ERROR(tril(ones({3})), "tril", "at least 2 dimensions");
}

TEST_CASE("composed layers and views report misuse", "[nn][errors]") {
  Tensor x = randn({3, 4}, 1);
  CHECK_KILN_ERROR(narrow(x, 1, 2, 3), "narrow", "exceeds dim 1 of size 4");
  CHECK_KILN_ERROR(narrow(x, 2, 0, 1), "narrow", "dim 2 is out of range");
  CHECK_KILN_ERROR(x.select(0, 3), "select: index 3 is out of range");
  CHECK_KILN_ERROR(select(x, 0, -4), "select: index -4");
  CHECK_KILN_ERROR(stack({x, randn({4, 3}, 2)}), "stack", "one shape");
  CHECK_KILN_ERROR(stack({x}, 3), "stack", "dim 3");
  CHECK_KILN_ERROR(bmm(x, x), "bmm", "batch1 must be a 3-d tensor");
  CHECK_KILN_ERROR(bmm(randn({2, 3, 4}, 1), randn({3, 4, 2}, 2)), "bmm",
                   "batch sizes differ");
  CHECK_KILN_ERROR(addmm(x, randn({2, 3, 4}, 1), x), "addmm", "mat1");
  CHECK_KILN_ERROR(addmm(randn({5}, 1), x, randn({4, 2}, 2)), "addmm",
                   "cannot be broadcast");
  CHECK_KILN_ERROR(addmm(randn({3, 1, 2}, 1), x, randn({4, 2}, 2)), "addmm",
                   "does not broadcast to the product's shape [3, 2]");
  CHECK_KILN_ERROR(one_hot(from_vector<int64_t>({0, 5}, {2}), 5), "one_hot",
                   "[0, 5)");
  CHECK_KILN_ERROR(one_hot(from_vector<int64_t>({-1}, {1}), 5), "one_hot");
  CHECK_KILN_ERROR(one_hot(x, 5), "one_hot", "int64");
  CHECK_KILN_ERROR(dropout(arange(3), 0.5, true), "dropout", "int64");
  CHECK_KILN_ERROR(dropout(x, 1.5), "dropout", "between 0 and 1");
  CHECK_KILN_ERROR(batch_norm(x, ones({3}), ones({3})), "batch_norm",
                   "shape [4]");
  CHECK_KILN_ERROR(batch_norm(ones({1, 4}), ones({4}), ones({4}), Tensor(),
                              Tensor(), true),
                   "batch_norm", "more than 1 value per channel");
  CHECK_KILN_ERROR(eye(-1), "eye", "non-negative");
  // What does not throw: dropout is the identity, p 0 in training too.
  CHECK(dropout(x, 0.0, true).data<float>() == x.data<float>());
}

TEST_CASE("cumsum, cumprod, topk and scatter_add: values and misuse",
          "[nn][errors]") {
  Tensor x = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  checkTensor(cumsum(x, 1), {2, 3}, kFloat32, {1, 3, 6, 4, 9, 15});
  checkTensor(x.cumprod(0), {2, 3}, kFloat32, {1, 2, 3, 4, 10, 18});
  // Bools and int32 give int64; a dtype converts first.
  checkTensor(cumsum(x > 2.0f, -1), {2, 3}, kInt64, {0, 0, 1, 1, 2, 3});
  checkTensor(cumsum(x, 0, kFloat64), {2, 3}, kFloat64, {1, 2, 3, 5, 7, 9});
  checkTensor(cumsum(full({}, 2.5), 0), {}, kFloat32, {2.5});
  CHECK(cumsum(zeros({0, 3}), 0).shape() == Shape{0, 3});
  // topk: best first, NaN the largest, ties in index order.
  Tensor t = from_vector<float>({3, NAN, 5, 3, -1}, {5});
  auto [values, indices] = topk(t, 3);
  checkTensor(indices, {3}, kInt64, {1, 2, 0});
  CHECK(std::isnan(values.data<float>()[0]));
  checkTensor(std::get<1>(t.topk(3, 0, false)), {3}, kInt64, {4, 0, 3});
  checkTensor(std::get<0>(topk(x, 2, 0)), {2, 3}, kFloat32, {4, 5, 6, 1, 2, 3});
  CHECK(std::get<1>(topk(x, 0)).shape() == Shape{2, 0});
  // scatter_add: additions in index order, rows outside the index kept.
  Tensor idx = from_vector<int64_t>({1, 0, 1, 1}, {2, 2});
  checkTensor(zeros({3, 2}).scatter_add(0, idx, ones({2, 2})), {3, 2}, kFloat32,
              {0, 1, 2, 1, 0, 0});
  checkTensor(
      scatter_add(zeros({2, 3}, kInt64), 1, idx, full({2, 5}, 7, kInt64)),
      {2, 3}, kInt64, {7, 7, 0, 0, 14, 0});

  CHECK_KILN_ERROR(cumsum(x, 2), "cumsum", "dim 2");
  CHECK_KILN_ERROR(cumprod(x, 0, kBool), "cumprod", "not supported");
  CHECK_KILN_ERROR(topk(x, 4), "topk", "k = 4 is out of range for dim 1");
  CHECK_KILN_ERROR(topk(x, -1), "topk", "k = -1");
  CHECK_KILN_ERROR(topk(x > 1.0f, 1), "topk", "bool");
  CHECK_KILN_ERROR(topk(full({}, 1.0), 0), "topk", "k must be 1");
  CHECK_KILN_ERROR(scatter_add(x, 0, idx + 1, x), "scatter_add",
                   "index 2 is out of range for dim 0 of size 2");
  CHECK_KILN_ERROR(scatter_add(x, 0, idx, ones({1, 3})), "scatter_add",
                   "larger than src's shape [1, 3] at dim 0");
  CHECK_KILN_ERROR(scatter_add(x, 1, zeros({3, 1}, kInt64), ones({3, 1})),
                   "scatter_add", "larger than the input's shape");
  CHECK_KILN_ERROR(scatter_add(x, 0, idx, ones({2, 2}, kInt64)), "scatter_add",
                   "dtype");
  CHECK_KILN_ERROR(scatter_add(x, 0, idx.to(kFloat32), x), "scatter_add",
                   "integer");
  CHECK_KILN_ERROR(scatter_add(x, 0, idx.flatten(), x), "scatter_add",
                   "same number of dims");
}

TEST_CASE("gather and the indexing and reshaping ops report misuse",
          "[nn][errors]") {
  Tensor x = randn({3, 4}, 1);
  Tensor ids = from_vector<int64_t>({0, 3}, {2});
  CHECK_KILN_ERROR(gather(x, 0, ids), "gather", "as many dims");
  CHECK_KILN_ERROR(gather(x, 1, ids.reshape({1, 2}) + 2), "gather",
                   "index 5 is out of range for dim 1 of size 4");
  CHECK_KILN_ERROR(gather(x, 1, zeros({4, 1}, kInt64)), "gather",
                   "larger than the input's shape [3, 4] at dim 0");
  CHECK_KILN_ERROR(gather(x, 0, zeros({1, 1})), "gather", "integer");
  CHECK_KILN_ERROR(gather(x, 2, zeros({1, 1}, kInt64)), "gather", "dim 2");
  CHECK_KILN_ERROR(index_select(x, 0, ids), "index_select",
                   "index 3 is out of range for dim 0 of size 3");
  CHECK_KILN_ERROR(index_select(x, 0, ids.reshape({1, 2})), "index_select",
                   "1-d");
  CHECK_KILN_ERROR(index_select(x, 0, -ids), "index_select", "index -3");
  CHECK_KILN_ERROR(flip(x, {0, -2}), "flip", "twice");
  CHECK_KILN_ERROR(roll(x, {1, 2}, {0}), "roll", "2 shifts for 1 dims");
  CHECK_KILN_ERROR(roll(x, {1, 2}), "roll", "one shift");
  CHECK_KILN_ERROR(x.repeat({2}), "repeat", "at least one per dim");
  CHECK_KILN_ERROR(x.repeat({2, -1}), "repeat", "negative");
  CHECK_KILN_ERROR(unflatten(x, 1, {3, -1}), "unflatten", "do not multiply");
  CHECK_KILN_ERROR(x.unflatten(1, {-1, -1}), "unflatten");
  CHECK_KILN_ERROR(pad(x, {1}), "pad", "pair");
  CHECK_KILN_ERROR(pad(x, {1, 1, 1, 1, 1, 1}), "pad", "at most 2");
  CHECK_KILN_ERROR(pad(x, {4, 0}, "reflect"), "pad", "less than dim 1");
  CHECK_KILN_ERROR(pad(x, {1, 1}, "circular"), "pad", "unknown mode");
  CHECK_KILN_ERROR(pad(x, {-3, -2}), "pad", "negative size");
  CHECK_KILN_ERROR(chunk(x, 0), "chunk", "positive");
  CHECK_KILN_ERROR(x.split(0, 1), "split", "must be positive");
  CHECK_KILN_ERROR(split(x, Shape{1, 1}, 0), "split", "add up to 2");
  CHECK_KILN_ERROR(group_norm(randn({2, 6, 3}, 1), 4), "group_norm",
                   "6 channels do not split into 4 groups");
  CHECK_KILN_ERROR(group_norm(randn({2, 6}, 1), 2, ones({3})), "group_norm",
                   "shape [6]");
  CHECK_KILN_ERROR(group_norm(ones({2}), 1), "group_norm", "2 or more dims");
  CHECK_KILN_ERROR(instance_norm(x), "instance_norm", "3 or more dims");
  CHECK_KILN_ERROR(conv1d(ones({4}), ones({2, 4, 1})), "conv1d",
                   "3-d [N, C, L]");
  CHECK_KILN_ERROR(conv1d(randn({1, 4, 5}, 1), ones({2, 4})), "conv1d",
                   "weight must be 3-d");
  CHECK_KILN_ERROR(conv1d(randn({1, 4, 5}, 1), ones({2, 4, 1}), Tensor(), 0),
                   "conv1d", "stride and dilation must be at least 1");
  CHECK_KILN_ERROR(x.view_as(ones({5})), "view");
  // Views and copies: chunks view x; flip, roll and pad copy it.
  CHECK(x.chunk(2, 1)[1].shares_storage(x));
  CHECK(x.split(Shape{1, 2}, 0).size() == 2);
  CHECK(x.chunk(5, 0).size() == 3);
  CHECK(chunk(zeros({0, 2}), 3).size() == 3);
  CHECK(!flip(x, {}).shares_storage(x));
  CHECK(!pad(x, {0, 0}).shares_storage(x));
  CHECK(pad(zeros({0, 2}), {0, 0, 1, 1}, "constant", 2).sum().item<float>() ==
        8);
}

TEST_CASE("pooling and grouped convolutions report misuse", "[nn][errors]") {
  Tensor x = randn({2, 4, 5, 6}, 1);
  CHECK_KILN_ERROR(max_pool2d(x, 0), "max_pool2d",
                   "kernel_size must be at least 1");
  CHECK_KILN_ERROR(max_pool2d(x, {2, 2, 2}), "max_pool2d", "one value or two");
  CHECK_KILN_ERROR(max_pool2d(x, 2, 1, 2), "max_pool2d",
                   "at most half the kernel size");
  CHECK_KILN_ERROR(max_pool2d(x, 3, 1, 0, 3), "max_pool2d",
                   "smaller than the kernel [3, 3] (dilated)");
  CHECK_KILN_ERROR(max_pool2d(x, 2, 0), "max_pool2d",
                   "stride must be at least 1");
  CHECK_KILN_ERROR(max_pool2d(randn({4, 5}, 2), 2), "max_pool2d", "4-d");
  CHECK_KILN_ERROR(max_pool2d(zeros({2, 0, 5, 5}), 2), "max_pool2d",
                   "only the batch dim may be empty");
  CHECK_KILN_ERROR(max_pool2d(zeros({1, 1, 4, 4}, kInt64), 2), "max_pool2d",
                   "int64");
  CHECK_KILN_ERROR(avg_pool2d(x, 7), "avg_pool2d", "smaller than the kernel");
  CHECK_KILN_ERROR(avg_pool2d(x, 2, 2, 0, false, true, 0), "avg_pool2d",
                   "divisor_override must be non-zero");
  CHECK_KILN_ERROR(adaptive_avg_pool2d(x, {0, 2}), "adaptive_avg_pool2d",
                   "output_size must be at least 1");
  CHECK_KILN_ERROR(adaptive_avg_pool2d(zeros({1, 2, 0, 3}), 1),
                   "adaptive_avg_pool2d", "only the batch dim may be empty");
  CHECK_KILN_ERROR(interpolate(x, {3, 3}, "bicubic"), "interpolate",
                   "unknown mode");
  CHECK_KILN_ERROR(interpolate(x, {3, 3}, "nearest", true), "interpolate",
                   "align_corners");
  CHECK_KILN_ERROR(interpolate(x, {0, 3}), "interpolate",
                   "size must be at least 1");
  CHECK_KILN_ERROR(interpolate(x, -2.0), "interpolate", "positive");
  CHECK_KILN_ERROR(interpolate(randn({4, 5, 6}, 7), 2.0), "interpolate", "4-d");
  // Upsampling by 2 (nearest) repeats each pixel in a 2x2 block.
  Tensor up = interpolate(x, 2.0);
  CHECK(up.shape() == Shape{2, 4, 10, 12});
  CHECK(allclose(up.narrow(2, 3, 1).narrow(3, 5, 1),
                 x.narrow(2, 1, 1).narrow(3, 2, 1)));
  // An empty batch pools to an empty batch.
  CHECK(max_pool2d(zeros({0, 2, 4, 4}), 2).shape() == Shape{0, 2, 2, 2});

  Tensor w = randn({6, 2, 3, 3}, 3);
  CHECK_KILN_ERROR(conv2d(x, w, Tensor(), 1, 0, 1, 3), "conv2d",
                   "3 groups do not divide");
  CHECK_KILN_ERROR(conv2d(x, w, Tensor(), 1, 0, 1, 1), "conv2d",
                   "the weight expects 2");
  CHECK_KILN_ERROR(conv2d(x, w, Tensor(), 1, 0, 1, 0), "conv2d",
                   "groups must be at least 1");
  CHECK_KILN_ERROR(conv2d(x, w, Tensor(), 1, 0, 0, 2), "conv2d",
                   "dilation must be at least 1");
  CHECK_KILN_ERROR(conv2d(x, w, Tensor(), 1, 0, 3, 2), "conv2d",
                   "(dilated) is larger than the padded input");
  CHECK_KILN_ERROR(
      conv1d(randn({2, 4, 5}, 4), randn({6, 2, 3}, 5), Tensor(), 1, 0, 0, 2),
      "conv1d", "dilation must be at least 1");
  Tensor tw = randn({4, 3, 3, 3}, 8);
  CHECK_KILN_ERROR(conv_transpose2d(x, tw, Tensor(), 2, 1, 2),
                   "conv_transpose2d",
                   "output_padding [2, 2] must be smaller than either stride");
  CHECK_KILN_ERROR(conv_transpose2d(x, tw, Tensor(), 1, 0, 0, 3),
                   "conv_transpose2d", "divide the input's 4 channels");
  CHECK_KILN_ERROR(conv_transpose2d(x, randn({3, 3, 3, 3}, 9)),
                   "conv_transpose2d", "the weight expects 3");
  CHECK_KILN_ERROR(conv_transpose2d(x, tw, Tensor(), 0), "conv_transpose2d",
                   "stride must be at least 1");
  // A stride-2 transposed convolution of a single pixel is the kernel.
  Tensor dot = (arange(4) == 1).to(kFloat32).reshape({1, 4, 1, 1});
  CHECK(allclose(conv_transpose2d(dot, tw, Tensor(), 2), tw.narrow(0, 1, 1)));
  // Depthwise: each channel with its own filter.
  Tensor dw = randn({4, 1, 3, 3}, 6);
  Tensor y = conv2d(x, dw, Tensor(), 1, 1, 1, 4);
  Tensor one = conv2d(x.narrow(1, 2, 1), dw.narrow(0, 2, 1), Tensor(), 1, 1);
  CHECK(allclose(y.narrow(1, 2, 1), one, 1e-5, 1e-6));
}

TEST_CASE("attention written out: a query that attends to no key gives NaN",
          "[nn]") {
  // The fused kernel gives zeros for such a query, as torch's
  // scaled_dot_product_attention does; attention written out as softmax
  // gives NaN (a softmax over nothing but -inf), and compiled code that
  // runs it as the kernel (kiln-recognize-attention) must too. NaN scores
  // give NaN rows both ways.
  Tensor q = randn({1, 1, 3, 4}, 1), k = randn({1, 1, 5, 4}, 2),
         v = randn({1, 1, 5, 2}, 3);
  Tensor mask = from_vector<int64_t>({1, 1, 1, 1, 1, 0, 0, 0, 0, 0, // row 1:
                                      1, 0, 1, 0, 1},                // no key
                                     {1, 1, 3, 5})
                    .to(kBool);
  Tensor zeros = scaled_dot_product_attention(q, k, v, mask);
  Tensor nans = detail::scaledDotProductAttention(q, k, v, mask, 0.0, false,
                                                  std::nullopt, true);
  CHECK(allclose(zeros.slice(2, 1, 2), full({1, 1, 1, 2}, 0.0)));
  CHECK(all(isnan(nans.slice(2, 1, 2))).item<bool>());
  for (int64_t row : {0, 2})
    CHECK(allclose(nans.slice(2, row, row + 1), zeros.slice(2, row, row + 1)));
  // The softmax written out gives the same rows.
  Tensor s = where(mask, matmul(q, k.transpose(-2, -1)) * 0.5,
                   full({}, -std::numeric_limits<double>::infinity()));
  Tensor written = matmul(softmax(s, -1), v);
  CHECK(all(isnan(written.slice(2, 1, 2))).item<bool>());
  CHECK(allclose(nans.slice(2, 0, 1), written.slice(2, 0, 1), 1e-5, 1e-6));
  // A NaN score: its row is NaN both ways.
  Tensor lastRow = from_vector<int64_t>({0, 0, 1}, {1, 1, 3, 1}).to(kBool);
  Tensor qn = where(lastRow, full({}, std::nan("")), q);
  Tensor nanRow = detail::scaledDotProductAttention(qn, k, v, Tensor(), 0.0,
                                                    false, std::nullopt, true);
  CHECK(all(isnan(nanRow.slice(2, 2, 3))).item<bool>());
  // Without nanWhenUnattended too (torch's kernel and its math agree), and
  // when the NaN is the only key the row attends.
  CHECK(all(isnan(scaled_dot_product_attention(qn, k, v).slice(2, 2, 3)))
            .item<bool>());
  Tensor onlyFirst =
      from_vector<int64_t>({1, 0, 0, 0, 0}, {1, 1, 1, 5}).to(kBool);
  Tensor kn =
      where(from_vector<int64_t>({1, 0, 0, 0, 0}, {1, 1, 5, 1}).to(kBool),
            full({}, std::nan("")), k);
  CHECK(all(isnan(scaled_dot_product_attention(q, kn, v, onlyFirst)))
            .item<bool>());
}

TEST_CASE("causal attention over several blocks of queries and keys matches "
          "softmax written out",
          "[nn]") {
  // 300 queries and keys: blocks of 64 queries against blocks of 128 keys,
  // rows whose diagonal falls inside, at the start and past the end of a
  // key block (their keys past it take no part); L > S and L < S align
  // the triangle top-left, as torch does.
  for (auto [L, S] :
       {std::pair<int64_t, int64_t>{300, 300}, {300, 170}, {90, 300}}) {
    Tensor q = randn({2, 3, L, 16}, 11), k = randn({2, 3, S, 16}, 12),
           v = randn({2, 3, S, 8}, 13);
    Tensor got = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    Tensor scores = matmul(q, k.transpose(-2, -1)) * 0.25;
    Tensor keep = arange(S).unsqueeze(0) <= arange(L).unsqueeze(1);
    Tensor want =
        matmul(softmax(where(keep, scores, full({}, -INFINITY)), -1), v);
    INFO("L=" << L << " S=" << S);
    CHECK(allclose(got, want, 1e-5, 1e-5));
  }
}

TEST_CASE("attention keeps a head's packed keys across its query blocks, or "
          "packs them block by block when they are too many",
          "[nn]") {
  // A thread's consecutive query blocks of one (batch, head) reuse the K^T
  // blocks packed for the first; 9000 keys of width 128 are more than the
  // kernel keeps, so they are packed one block at a time. Both against
  // softmax written out, in float64, with and without the triangle.
  for (auto [L, S, E, causal] :
       {std::tuple<int64_t, int64_t, int64_t, bool>{5, 9000, 128, false},
        {300, 9000, 128, true},
        {257, 257, 32, true},
        {70, 333, 64, false}}) {
    Tensor q = randn({1, 3, L, E}, 21, kFloat64),
           k = randn({1, 3, S, E}, 22, kFloat64),
           v = randn({1, 3, S, 24}, 23, kFloat64);
    Tensor got = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, causal);
    Tensor scores =
        matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(E)));
    if (causal)
      scores = where(arange(S).unsqueeze(0) <= arange(L).unsqueeze(1), scores,
                     full({}, -INFINITY, kFloat64));
    Tensor want = matmul(softmax(scores, -1), v);
    INFO("L=" << L << " S=" << S << " E=" << E << " causal=" << causal);
    CHECK(allclose(got, want, 1e-12, 1e-12));
  }
}

TEST_CASE("bfloat16 attention matches softmax written out in float64", "[nn]") {
  // Where the CPU has AVX512-BF16 (and KILN_CPU_CAPABILITY leaves it) the
  // kernel reads the 16-bit q, k and v as they are: K^T and V packed in
  // pairs of rows, odd E and odd key counts (the last pair's second
  // element multiplied as zero), widths not a multiple of 16, strided
  // and transposed operands, causal blocks, bool and additive masks, a
  // masked-off row; elsewhere it widens them. Either way: the float64
  // attention of the same bfloat16 values, to bfloat16's rounding of the
  // probabilities and the output.
  struct Case {
    int64_t L, S, E, Ev;
    bool causal;
    int mask; // 0 none, 1 bool, 2 additive
    bool strided;
  };
  for (Case c : {Case{5, 9, 8, 8, false, 0, false},
                 Case{300, 300, 64, 64, true, 0, false},
                 Case{70, 333, 63, 24, false, 0, false},
                 Case{64, 127, 64, 40, false, 1, false},
                 Case{130, 131, 31, 17, true, 0, true},
                 Case{33, 200, 64, 64, false, 2, true},
                 Case{1, 257, 64, 64, false, 0, false}}) {
    Tensor q = randn({2, 3, c.L, c.E}, 31).to(kBFloat16),
           k = randn({2, 3, c.S, c.E}, 32).to(kBFloat16),
           v = randn({2, 3, c.S, c.Ev}, 33).to(kBFloat16);
    if (c.strided) {
      q = randn({2, 3, c.E, c.L}, 31).to(kBFloat16).transpose(-1, -2);
      k = randn({2, 3, c.S, 2 * c.E}, 32)
              .to(kBFloat16)
              .slice(-1, 0, 2 * c.E, 2);
      v = randn({2, 3, c.S, 2 * c.Ev}, 33)
              .to(kBFloat16)
              .slice(-1, 0, 2 * c.Ev, 2);
    }
    Tensor keep = c.causal
                      ? arange(c.S).unsqueeze(0) <= arange(c.L).unsqueeze(1)
                      : randn({c.L, c.S}, 34) > -1.0;
    // The last query attends to no key: its output is zeros.
    keep = cat({keep.slice(0, 0, c.L - 1), full({1, c.S}, false, kBool)}, 0);
    Tensor mask;
    if (c.mask == 1)
      mask = keep;
    else if (c.mask == 2)
      mask =
          where(keep, randn({c.L, c.S}, 35), full({}, -INFINITY)).to(kBFloat16);
    Tensor got = scaled_dot_product_attention(q, k, v, mask, 0.0, c.causal);
    Tensor q64 = q.to(kFloat64), k64 = k.to(kFloat64), v64 = v.to(kFloat64);
    Tensor scores = matmul(q64, k64.transpose(-2, -1)) *
                    (1.0 / std::sqrt(static_cast<double>(c.E)));
    if (c.mask == 2)
      scores = scores + mask.to(kFloat64);
    Tensor live = c.causal
                      ? arange(c.S).unsqueeze(0) <= arange(c.L).unsqueeze(1)
                  : c.mask ? keep
                           : full({c.L, c.S}, true, kBool);
    scores = where(live, scores, full({}, -INFINITY, kFloat64));
    Tensor p = softmax(scores, -1);
    Tensor want = matmul(where(isnan(p), 0.0, p).to(kFloat64), v64);
    INFO("L=" << c.L << " S=" << c.S << " E=" << c.E << " Ev=" << c.Ev
              << " causal=" << c.causal << " mask=" << c.mask
              << " strided=" << c.strided);
    CHECK(got.dtype() == kBFloat16);
    CHECK(got.shape() == Shape{2, 3, c.L, c.Ev});
    CHECK(allclose(got.to(kFloat64), want, 1e-2, 1e-2));
    if (c.mask && !c.causal)
      CHECK(all(got.slice(2, c.L - 1, c.L) == 0).item<bool>());
  }
}
