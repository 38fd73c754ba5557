//===- TensorTest.cpp - Metadata, views, copies ---------------------------===//
#include "TestUtil.h"

using namespace kiln;
using namespace kiln::test;

TEST_CASE("metadata of a fresh tensor", "[tensor]") {
  Tensor t = zeros({2, 3, 4});
  CHECK(t.dim() == 3);
  CHECK(t.numel() == 24);
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 4);
  CHECK(t.size(-3) == 2);
  CHECK(t.strides() == Shape{12, 4, 1});
  CHECK(t.dtype() == kFloat32);
  CHECK(t.device() == Device::cpu());
  CHECK(t.is_contiguous());
  CHECK_KILN_ERROR(t.size(3), "size", "dim 3", "rank 3");
  CHECK_KILN_ERROR(t.size(-4), "size", "dim -4", "[-3, 2]");
  CHECK_FALSE(Tensor().defined());
  CHECK_KILN_ERROR(Tensor().clone(), "clone", "undefined");
}

TEST_CASE("item and data", "[tensor]") {
  Tensor t = full({1}, 2.5);
  CHECK(t.item<float>() == 2.5f);
  CHECK(t.item<double>() == 2.5);
  CHECK(t.item<int>() == 2);
  CHECK(t.item<bool>());
  CHECK(full({}, 7, kInt64).item<int64_t>() == 7);
  CHECK_KILN_ERROR(zeros({2}).item<float>(), "item", "2 elements", "[2]");
  CHECK_KILN_ERROR(zeros({2}).data<double>(), "data", "float64", "float32");
  Tensor s = arange(6).reshape({2, 3}).slice(1, 1, 3);
  CHECK(*s.data<int64_t>() == 1); // data() points at the view's first element
}

TEST_CASE("views share storage", "[tensor][views]") {
  Tensor base = arange(24).to(kFloat32).reshape({2, 3, 4});
  Tensor tr = base.transpose(0, 2);
  Tensor pm = base.permute({2, 0, 1});
  Tensor sl = base.slice(2, 1, 4, 2);
  Tensor vw = base.view({6, 4});
  Tensor un = base.unsqueeze(1);
  Tensor sq = un.squeeze(1);
  Tensor ex = base.slice(0, 0, 1).expand({5, 3, 4});
  for (const Tensor &v : {tr, pm, sl, vw, un, sq, ex})
    CHECK(v.shares_storage(base));
  CHECK(tr.shape() == Shape{4, 3, 2});
  CHECK(tr.strides() == Shape{1, 4, 12});
  CHECK_FALSE(tr.is_contiguous());
  CHECK(pm.shape() == Shape{4, 2, 3});
  CHECK(sl.shape() == Shape{2, 3, 2});
  CHECK(un.shape() == Shape{2, 1, 3, 4});
  CHECK(sq.shape() == Shape{2, 3, 4});
  CHECK(ex.strides()[0] == 0);
  checkTensor(sl.slice(0, 1, 2).slice(1, 0, 1), {1, 1, 2}, kFloat32, {13, 15});
  checkTensor(tr.slice(0, 3, 4).slice(1, 2, 3), {1, 1, 2}, kFloat32, {11, 23});

  // A write through the storage shows in every view.
  base.data<float>()[5] = 100.0f;
  CHECK(vw.data<float>()[5] == 100.0f);
  CHECK(tr.contiguous().data<float>()[1 * 6 + 1 * 2 + 0] == 100.0f);
}

TEST_CASE("contiguous copies only when needed", "[tensor][views]") {
  Tensor a = ones({3, 4});
  CHECK(a.contiguous().shares_storage(a));
  Tensor t = a.transpose(0, 1);
  Tensor c = t.contiguous();
  CHECK_FALSE(c.shares_storage(a));
  CHECK(c.is_contiguous());
  Tensor cl = a.clone();
  CHECK_FALSE(cl.shares_storage(a));
  checkTensor(arange(6).reshape({2, 3}).transpose(0, 1).contiguous(), {3, 2},
              kInt64, {0, 3, 1, 4, 2, 5});
}

TEST_CASE("reshape views when it can and copies when it must",
          "[tensor][views]") {
  Tensor a = arange(12).reshape({3, 4});
  Tensor r = a.reshape({2, -1});
  CHECK(r.shape() == Shape{2, 6});
  CHECK(r.shares_storage(a));
  Tensor t = a.transpose(0, 1);
  Tensor rt = t.reshape({12});
  CHECK_FALSE(rt.shares_storage(a));
  checkTensor(rt, {12}, kInt64, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK_KILN_ERROR(t.view({12}), "view", "not compatible", "reshape");
  // Splitting a dim of a transposed tensor is still a view.
  CHECK(t.view({2, 2, 3}).shares_storage(a));
  CHECK_KILN_ERROR(a.reshape({5, -1}), "reshape", "[5, -1]", "12");
  CHECK_KILN_ERROR(a.reshape({-1, -1}), "reshape", "only one dim");
  CHECK_KILN_ERROR(zeros({0, 3}).reshape({-1, 0}), "reshape", "invalid");
  CHECK(zeros({2, 0}).reshape({0, 5}).numel() == 0);
  CHECK(full({}, 3.0).reshape({1, 1}).shape() == Shape{1, 1});
  CHECK(zeros({1, 1}).reshape({}).dim() == 0);
  CHECK(arange(6).flatten().shape() == Shape{6});
  CHECK(zeros({2, 3, 4}).flatten(1).shape() == Shape{2, 12});
}

TEST_CASE("transpose, permute, unsqueeze, squeeze with negative dims",
          "[tensor][views]") {
  Tensor a = arange(6).reshape({1, 2, 3});
  CHECK(a.transpose(-1, -2).shape() == Shape{1, 3, 2});
  CHECK(a.permute({-1, 0, 1}).shape() == Shape{3, 1, 2});
  CHECK(a.unsqueeze(-1).shape() == Shape{1, 2, 3, 1});
  CHECK(a.unsqueeze(0).shape() == Shape{1, 1, 2, 3});
  CHECK(a.squeeze(0).shape() == Shape{2, 3});
  CHECK(a.squeeze(1).shape() == Shape{1, 2, 3}); // size 2: unchanged
  CHECK(a.squeeze().shape() == Shape{2, 3});
  CHECK_KILN_ERROR(a.transpose(0, 3), "transpose", "dim 3");
  CHECK_KILN_ERROR(a.permute({0, 1}), "permute", "2 dims", "rank 3");
  CHECK_KILN_ERROR(a.permute({0, 1, 1}), "permute", "repeats");
  CHECK_KILN_ERROR(a.unsqueeze(4), "unsqueeze", "dim 4");
}

TEST_CASE("slice like Python slicing", "[tensor][views]") {
  Tensor a = arange(10);
  checkTensor(a.slice(0, 2, 8, 3), {2}, kInt64, {2, 5});
  checkTensor(a.slice(0, -3, 10), {3}, kInt64, {7, 8, 9});
  checkTensor(a.slice(0, 0, -8), {2}, kInt64, {0, 1});
  checkTensor(a.slice(0, 5, 100), {5}, kInt64, {5, 6, 7, 8, 9});
  CHECK(a.slice(0, 6, 3).numel() == 0);
  // Starts past either end are clamped too, as ATen's slice does.
  CHECK(a.slice(0, 11, 12).numel() == 0);
  CHECK(a.slice(0, 10, 12).numel() == 0);
  checkTensor(a.slice(0, -20, 2), {2}, kInt64, {0, 1});
  checkTensor(a.slice(0, -20, -7, 2), {2}, kInt64, {0, 2});
  CHECK_KILN_ERROR(a.slice(0, 0, 5, 0), "slice", "step");
  CHECK_KILN_ERROR(a.slice(1, 0, 5), "slice", "dim 1");
  CHECK_KILN_ERROR(full({}, 1.0).slice(0, 0, 1), "slice", "0-d");
}

TEST_CASE("expand broadcasts size-1 dims", "[tensor][views]") {
  Tensor a = arange(3).reshape({3, 1});
  checkTensor(a.expand({2, 3, 2}), {2, 3, 2}, kInt64,
              {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2});
  CHECK(a.expand({-1, 4}).shape() == Shape{3, 4});
  CHECK_KILN_ERROR(a.expand({2, 2}), "expand", "size 3", "[3, 1]");
  // expand_as: to another tensor's shape, a view of the same elements.
  Tensor like = zeros({2, 3, 4}, kFloat64);
  Tensor e = a.expand_as(like);
  checkTensor(e, {2, 3, 4}, kInt64, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                     0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  CHECK(e.shares_storage(a));
  CHECK_KILN_ERROR(a.expand_as(zeros({2, 2})), "expand", "size 3");
  CHECK_KILN_ERROR(like.expand_as(a), "expand");
}

TEST_CASE("size-0 dims", "[tensor]") {
  Tensor e = zeros({0, 3});
  CHECK(e.numel() == 0);
  CHECK((e + 1).shape() == Shape{0, 3});
  CHECK(exp(e).shape() == Shape{0, 3});
  checkTensor(sum(e, 0), {3}, kFloat32, {0, 0, 0});
  CHECK(sum(e, 1).shape() == Shape{0});
  CHECK(e.transpose(0, 1).contiguous().shape() == Shape{3, 0});
  CHECK(matmul(zeros({2, 0}), zeros({0, 3})).shape() == Shape{2, 3});
  checkTensor(matmul(zeros({2, 0}), zeros({0, 3})), {2, 3}, kFloat32,
              {0, 0, 0, 0, 0, 0});
  CHECK(cat({zeros({0, 3}), ones({2, 3})}, 0).shape() == Shape{2, 3});
  CHECK_KILN_ERROR(amax(e, 0), "amax", "size 0");
}

TEST_CASE("to(Device) on the cpu; cuda without a GPU is a clear error",
          "[tensor]") {
  Tensor a = ones({2});
  CHECK(a.to(Device::cpu()).shares_storage(a));
  CHECK(Device::cuda(1).str() == "cuda:1");
  CHECK_KILN_ERROR(a.to(Device::cuda(1)), "to", "cuda:1", "one GPU");
  // (test/unit/cuda covers the GPU side on a stand-in driver.)
  if (!kiln::cuda::is_available()) {
    CHECK_KILN_ERROR(a.to(Device::cuda()), "to(cuda)", "CUDA");
    CHECK_KILN_ERROR(Tensor({2}, kFloat32, Device::cuda()), "cuda allocation",
                     "CUDA");
    CHECK_KILN_ERROR(kiln::cuda::synchronize(), "cuda::synchronize", "CUDA");
  } else {
    CHECK(a.to(Device::cuda()).to(Device::cpu()).item<float>() == 1.0f);
  }
}

TEST_CASE("allclose broadcasts and treats NaN as different", "[tensor]") {
  CHECK(allclose(F({1, 2}, {2}), F({1, 2.00001f}, {2}), 1e-4, 0));
  CHECK_FALSE(allclose(F({1, 2}, {2}), F({1, 2.1f}, {2})));
  CHECK(allclose(F({3, 3}, {2, 1}), full({1}, 3.0)));
  CHECK_FALSE(allclose(F({NAN}, {1}), F({NAN}, {1})));
  CHECK(allclose(F({INFINITY}, {1}), F({INFINITY}, {1})));
  CHECK(allclose(zeros({0}), zeros({0})));
  CHECK_KILN_ERROR(allclose(ones({2}), ones({3})), "allclose", "[2]", "[3]");
}
