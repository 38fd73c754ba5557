// GPT-2 training steps with Kiln's autograd and AdamW, on llm.c's files:
// the model from a checkpoint in llm.c's format (train_gpt2.c's
// gpt2_124M.bin layout: a 256-int header, then the parameters as float32 in
// llm.c's order) and the tokens from llm.c's data format (a 256-int header,
// then uint16 tokens). Each step takes the batch at the same place, as
// llm.c's test does, so that losses compare step by step with llm.c's and
// torch's (benchmarks/train_gpt2.py writes the files and runs all three).
//
//   train_gpt2 CHECKPOINT TOKENS [B] [T] [STEPS]
//
// Prints one line per step: "step N loss L time_ms M".
// (Built through `kiln compile --autograd`, loss() is a compiled graph with
// a compiled backward: benchmarks/train_gpt2.py's "kiln compiled" column.)
#include <kiln/kiln.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>

using kiln::Tensor;

namespace {

struct Config {
  int64_t maxT, V, L, NH, C, Vp;
};

struct Block {
  Tensor ln1w, ln1b, qkvw, qkvb, attprojw, attprojb;
  Tensor ln2w, ln2b, fcw, fcb, fcprojw, fcprojb;
};

struct GPT2 {
  Config config;
  Tensor wte, wpe, lnfw, lnfb;
  std::vector<Block> blocks;

  std::vector<Tensor> parameters() const {
    std::vector<Tensor> p{wte, wpe};
    for (const Block &b : blocks)
      for (const Tensor &t : {b.ln1w, b.ln1b, b.qkvw, b.qkvb, b.attprojw,
                              b.attprojb, b.ln2w, b.ln2b, b.fcw, b.fcb,
                              b.fcprojw, b.fcprojb})
        p.push_back(t);
    p.push_back(lnfw);
    p.push_back(lnfb);
    return p;
  }

  // llm.c's forward: the same ops in the same order, the attention causal.
  // Built as it is, it runs eagerly; benchmarks/train_gpt2.py also builds
  // it through `kiln compile --autograd`, where the forward and its
  // backward are compiled graphs.
  KILN_COMPILE() Tensor loss(const Tensor &idx, const Tensor &targets) const {
    int64_t B = idx.size(0), T = idx.size(1), C = config.C, NH = config.NH;
    Tensor x = kiln::embedding(idx, wte.narrow(0, 0, config.V)) +
               kiln::embedding(kiln::arange(T), wpe);
    for (const Block &b : blocks) {
      Tensor h = kiln::layer_norm(x, b.ln1w, b.ln1b);
      Tensor qkv = kiln::linear(h, b.qkvw, b.qkvb);
      auto heads = [&](int64_t part) {
        return qkv.narrow(2, part * C, C).view({B, T, NH, C / NH}).transpose(1, 2);
      };
      Tensor y = kiln::scaled_dot_product_attention(heads(0), heads(1), heads(2),
                                                    Tensor(), 0.0, true);
      y = y.transpose(1, 2).reshape({B, T, C});
      x = x + kiln::linear(y, b.attprojw, b.attprojb);
      h = kiln::layer_norm(x, b.ln2w, b.ln2b);
      h = kiln::gelu(kiln::linear(h, b.fcw, b.fcb), "tanh");
      x = x + kiln::linear(h, b.fcprojw, b.fcprojb);
    }
    x = kiln::layer_norm(x, lnfw, lnfb);
    Tensor logits = kiln::matmul(x, wte.narrow(0, 0, config.V).transpose(0, 1));
    return kiln::cross_entropy(logits.view({B * T, config.V}), targets.view({-1}));
  }
};

std::vector<int32_t> readHeader(std::ifstream &in, const std::string &path) {
  std::vector<int32_t> header(256);
  in.read(reinterpret_cast<char *>(header.data()), 256 * sizeof(int32_t));
  if (!in)
    throw std::runtime_error(path + ": shorter than its 256-int header");
  return header;
}

GPT2 loadCheckpoint(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::vector<int32_t> h = readHeader(in, path);
  if (h[0] != 20240326 || h[1] != 3)
    throw std::runtime_error(path + ": not an llm.c checkpoint (magic " +
                             std::to_string(h[0]) + ", version " +
                             std::to_string(h[1]) + "; expected 20240326, 3)");
  GPT2 m;
  m.config = {h[2], h[3], h[4], h[5], h[6], h[7]};
  const Config &c = m.config;
  auto next = [&](kiln::Shape shape) {
    Tensor t = kiln::empty(shape);
    in.read(static_cast<char *>(t.raw_data()),
            static_cast<std::streamsize>(t.numel() * sizeof(float)));
    if (!in)
      throw std::runtime_error(path + ": truncated");
    return t;
  };
  // llm.c's order: each kind of parameter for all layers at once.
  int64_t C = c.C, L = c.L;
  m.wte = next({c.Vp, C});
  m.wpe = next({c.maxT, C});
  std::vector<std::vector<Tensor>> perLayer(12);
  kiln::Shape shapes[12] = {{C}, {C}, {3 * C, C}, {3 * C}, {C, C}, {C},
                            {C}, {C}, {4 * C, C}, {4 * C}, {C, 4 * C}, {C}};
  for (int kind = 0; kind < 12; ++kind) {
    kiln::Shape all = shapes[kind];
    all.insert(all.begin(), L);
    Tensor t = next(all);
    for (int64_t l = 0; l < L; ++l)
      perLayer[kind].push_back(t.select(0, l).clone());
  }
  for (int64_t l = 0; l < L; ++l) {
    auto p = [&](int kind) { return perLayer[kind][l]; };
    m.blocks.push_back(Block{p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7),
                             p(8), p(9), p(10), p(11)});
  }
  m.lnfw = next({C});
  m.lnfb = next({C});
  return m;
}

std::vector<int64_t> loadTokens(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::vector<int32_t> h = readHeader(in, path);
  if (h[0] != 20240520)
    throw std::runtime_error(path + ": not an llm.c token file");
  std::vector<uint16_t> raw(static_cast<size_t>(h[2]));
  in.read(reinterpret_cast<char *>(raw.data()),
          static_cast<std::streamsize>(raw.size() * sizeof(uint16_t)));
  if (!in)
    throw std::runtime_error(path + ": truncated");
  return std::vector<int64_t>(raw.begin(), raw.end());
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: train_gpt2 CHECKPOINT TOKENS [B] [T] [STEPS] "
                         "[forward|autocast]\n");
    return 2;
  }
  int64_t B = argc > 3 ? std::atoll(argv[3]) : 4;
  int64_t T = argc > 4 ? std::atoll(argv[4]) : 64;
  int steps = argc > 5 ? std::atoi(argv[5]) : 10;
  // "forward": inference, the forward pass and its loss only (no gradient
  // is recorded: the compiled build runs its forward graph).
  const bool forwardOnly = argc > 6 && std::string(argv[6]) == "forward";
  // "autocast": mixed precision, the forward and loss under
  // kiln::autocast(kBFloat16) as torch.autocast("cpu") runs them (products
  // in bfloat16; parameters, gradients and AdamW's state float32).
  const bool mixed = argc > 6 && std::string(argv[6]) == "autocast";
  try {
    GPT2 model = loadCheckpoint(argv[1]);
    std::vector<int64_t> tokens = loadTokens(argv[2]);
    if (static_cast<int64_t>(tokens.size()) < B * T + 1)
      throw std::runtime_error("need at least B * T + 1 tokens");
    std::vector<int64_t> in(tokens.begin(), tokens.begin() + B * T),
        out(tokens.begin() + 1, tokens.begin() + B * T + 1);
    Tensor idx = kiln::from_vector(in, {B, T});
    Tensor targets = kiln::from_vector(out, {B, T});
    std::vector<Tensor> params = model.parameters();
    for (const Tensor &p : params)
      p.requires_grad_(!forwardOnly);
    // llm.c's train_gpt2.c: AdamW, lr 1e-4, betas (0.9, 0.999), eps 1e-8,
    // no weight decay.
    kiln::optim::AdamW opt(params,
                           kiln::optim::AdamWOptions(1e-4).weight_decay(0.0));
    std::printf("GPT-2: %lld layers, %lld heads, width %lld, vocab %lld; "
                "B=%lld T=%lld\n",
                static_cast<long long>(model.config.L),
                static_cast<long long>(model.config.NH),
                static_cast<long long>(model.config.C),
                static_cast<long long>(model.config.V),
                static_cast<long long>(B), static_cast<long long>(T));
    for (int step = 0; step < steps; ++step) {
      auto start = std::chrono::steady_clock::now();
      Tensor loss;
      if (forwardOnly) {
        loss = model.loss(idx, targets);
      } else {
        opt.zero_grad();
        {
          kiln::autocast scope(kiln::kBFloat16, mixed);
          loss = model.loss(idx, targets);
        }
        loss.backward();
        opt.step();
      }
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      std::printf("step %d loss %.6f time_ms %.1f\n", step,
                  loss.item<double>(), ms);
      std::fflush(stdout);
    }
    // The process's peak resident memory: weights, optimizer state and
    // what the step holds at its widest (saved activations, gradients).
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak_rss_mb %.1f\n", usage.ru_maxrss / 1024.0);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "train_gpt2: %s\n", e.what());
    return 1;
  }
  return 0;
}
