//===- TrainingTest.cpp - A small GPT-2 trained against torch's losses ----===//
//
// A 2-layer GPT-2 whose weights are a closed-form function of their index
// (so that scripts/gen_grad_fixtures.py builds the same model in torch
// without sharing a file) trained for a few steps with AdamW and with SGD
// (momentum, nesterov, weight decay), gradients clipped: every step's loss
// must be torch's (fixtures/train.json) to float32 rounding.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace kiln;
using namespace kiln::test;
using json = nlohmann::json;

namespace {

/// scale * sin(0.731 i + phase) + shift over the elements, in row-major
/// order: the same numbers the fixture script computes.
Tensor closedForm(const Shape &shape, double phase, double scale,
                  double shift = 0.0) {
  Tensor i = arange(shapeNumel(shape)).to(kFloat64);
  return (sin(i * 0.731 + phase) * scale + shift).to(kFloat32).reshape(shape);
}

struct Layer {
  Tensor ln1w, ln1b, qkvw, qkvb, projw, projb, ln2w, ln2b, fcw, fcb, fc2w, fc2b;
};

struct SmallGpt {
  int64_t V, C, NH;
  Tensor wte, wpe, lnfw, lnfb;
  std::vector<Layer> layers;

  SmallGpt(const json &cfg) : V(cfg.at("V")), C(cfg.at("C")), NH(cfg.at("NH")) {
    int64_t L = cfg.at("L"), T = cfg.at("maxT");
    double phase = 0;
    auto next = [&](const Shape &shape, double scale, double shift = 0.0) {
      phase += 1.0;
      return closedForm(shape, phase, scale, shift);
    };
    wte = next({V, C}, 0.1);
    wpe = next({T, C}, 0.05);
    for (int64_t l = 0; l < L; ++l)
      layers.push_back(
          Layer{next({C}, 0.1, 1.0), next({C}, 0.02), next({3 * C, C}, 0.1),
                next({3 * C}, 0.02), next({C, C}, 0.1), next({C}, 0.02),
                next({C}, 0.1, 1.0), next({C}, 0.02), next({4 * C, C}, 0.1),
                next({4 * C}, 0.02), next({C, 4 * C}, 0.1), next({C}, 0.02)});
    lnfw = next({C}, 0.1, 1.0);
    lnfb = next({C}, 0.02);
  }

  std::vector<Tensor> parameters() const {
    std::vector<Tensor> p{wte, wpe};
    for (const Layer &l : layers)
      p.insert(p.end(), {l.ln1w, l.ln1b, l.qkvw, l.qkvb, l.projw, l.projb,
                         l.ln2w, l.ln2b, l.fcw, l.fcb, l.fc2w, l.fc2b});
    p.insert(p.end(), {lnfw, lnfb});
    return p;
  }

  Tensor loss(const Tensor &idx, const Tensor &targets) const {
    int64_t B = idx.size(0), T = idx.size(1);
    Tensor x = embedding(idx, wte) + wpe.narrow(0, 0, T);
    for (const Layer &l : layers) {
      Tensor qkv = linear(layer_norm(x, l.ln1w, l.ln1b), l.qkvw, l.qkvb);
      std::vector<Tensor> parts = qkv.split(C, 2);
      for (Tensor &p : parts)
        p = p.view({B, T, NH, C / NH}).transpose(1, 2);
      Tensor y = scaled_dot_product_attention(parts[0], parts[1], parts[2],
                                              Tensor(), 0.0, true);
      x = x + linear(y.transpose(1, 2).reshape({B, T, C}), l.projw, l.projb);
      Tensor h =
          gelu(linear(layer_norm(x, l.ln2w, l.ln2b), l.fcw, l.fcb), "tanh");
      x = x + linear(h, l.fc2w, l.fc2b);
    }
    Tensor logits = matmul(layer_norm(x, lnfw, lnfb), wte.transpose(0, 1));
    return cross_entropy(logits.reshape({B * T, V}), targets.reshape({-1}));
  }
};

} // namespace

TEST_CASE("a small GPT-2 trains with torch's losses, step by step",
          "[autograd][optim][training]") {
  std::ifstream in(std::string(KILN_FIXTURE_DIR) + "/train.json");
  REQUIRE(in.good());
  json fixture = json::parse(in);
  const json &cfg = fixture.at("config");
  int64_t B = cfg.at("B"), T = cfg.at("T"), V = cfg.at("V");
  std::vector<int64_t> ids, next;
  for (int64_t i = 0; i < B * T; ++i) {
    ids.push_back((7 * i + 3) % V);
    next.push_back((5 * i + 11) % V);
  }
  Tensor idx = from_vector(ids, {B, T}), targets = from_vector(next, {B, T});
  for (const json &run : fixture.at("runs")) {
    std::string name = run.at("optimizer");
    INFO("optimizer " << name);
    SmallGpt model(cfg);
    std::vector<Tensor> params = model.parameters();
    for (const Tensor &p : params)
      p.requires_grad_();
    std::unique_ptr<optim::Optimizer> opt;
    if (name == "adamw")
      opt = std::make_unique<optim::AdamW>(
          params, optim::AdamWOptions(1e-2).weight_decay(0.1));
    else
      opt = std::make_unique<optim::SGD>(
          params,
          optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(
              1e-3));
    std::vector<double> want = run.at("losses").get<std::vector<double>>();
    for (size_t step = 0; step < want.size(); ++step) {
      opt->zero_grad();
      Tensor loss = model.loss(idx, targets);
      loss.backward();
      nn::utils::clip_grad_norm_(params, 1.0);
      opt->step();
      INFO("step " << step);
      CHECK(loss.item<double>() == Approx(want[step]).epsilon(2e-5));
    }
  }
}
