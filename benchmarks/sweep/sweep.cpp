// The size sweep of docs/benchmarks.md, Kiln's side: each workload written
// as a user writes it, one KILN_COMPILE() function or method per workload,
// run eagerly (through a KILN_DISABLE() function, below which nothing is
// compiled) and compiled, in turns. benchmarks/sweep.py builds this file
// both ways through `kiln compile` and drives it over a pipe, alternating
// with PyTorch's eager and torch.compile runs of the same workloads.
//
// Commands, one per line on stdin; one line of answer on stdout each:
//   setup ROW ARGS...   builds the row's inputs and weights, checks that
//                       compiled and eager agree: "ok CALLS MAXDIFF"
//                       (CALLS: calls per timed batch, about 5 ms of eager)
//   time                times one batch of eager calls, then one of compiled
//                       calls: "EAGER_US COMPILED_US" per call
//   run SIDE SECONDS    calls one side (eager or compiled) alone for that
//                       long, for a profiler: "CALLS US_PER_CALL"
//   bandwidth           the machine's read bandwidth on all threads, GB/s
//                       (the best of 5 sums over 512 MiB)
//   profile             one compiled call with KILN_PROFILE set: on the GPU,
//                       each kernel and cuBLAS call timed, on stderr: "ok"
//   device cpu|cuda     where the compiled side's inputs and weights live
//                       from the next setup on (eager runs on the CPU, the
//                       only device it computes on); cuda: "ok" or an error
//                       when there is no GPU. A batch of calls on the GPU
//                       is timed to its last kernel's end.
// Rows: chain N | ln_softmax R C | mlp BATCH | mlp_cold BATCH |
//       gru BATCH IN HIDDEN | gpt2 B T | gpt2_sdpa B T | gpt2_bf16 B T |
//       gpt2_autocast B T (the float32 sdpa block called under
//       kiln::autocast; its compiled side needs kiln compile --autocast)
//       (on cuda: chain, ln_softmax, mlp, gpt2, gpt2_sdpa).
#include <kiln/kiln.h>

#include "../../examples/common/gru_cell.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <omp.h>
#include <sstream>
#include <string>
#include <vector>

using kiln::Tensor;

// (a) An elementwise chain (eight ops).
KILN_COMPILE() Tensor chain(const Tensor &x) {
  return kiln::gelu(x * 1.5f + 0.5f) * kiln::sigmoid(x) - x / (kiln::abs(x) + 1.0f);
}

// (b) softmax, a residual and layer_norm over rows.
KILN_COMPILE() Tensor ln_softmax(const Tensor &x, const Tensor &w, const Tensor &b) {
  return kiln::layer_norm(kiln::softmax(x, -1) + x, w, b, 1e-5);
}

// (c) A transformer's MLP, 1024 -> 4096 -> 1024, weights as nn.Linear holds them.
struct Mlp {
  Tensor w1, b1, w2, b2; // [4096, 1024], [4096], [1024, 4096], [1024]

  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    return kiln::linear(kiln::gelu(kiln::linear(x, w1, b1)), w2, b2);
  }
};

// (d) One step of a GRU cell (torch.nn.GRUCell's equations), the cell of
// examples/gru.
KILN_COMPILE() Tensor gru_step(const examples::GRUCell &cell, const Tensor &x, const Tensor &h) {
  return cell(x, h);
}

// (e) A GPT-2 block (width 768, 12 heads), attention written out as
// GPT-2's reference code writes it (forward) or through
// scaled_dot_product_attention (forward_sdpa).
struct Gpt2Block {
  Tensor ln1_w, ln1_b, w_attn, b_attn, w_proj, b_proj; // nn.Linear layouts
  Tensor ln2_w, ln2_b, w_fc, b_fc, w_out, b_out;
  int64_t n_head;

  // q, k, v as [B, n_head, T, head dim].
  Tensor heads(const Tensor &qkv, int64_t part) const {
    int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3;
    return qkv.slice(2, part * C, (part + 1) * C)
        .reshape({B, T, n_head, C / n_head})
        .transpose(1, 2);
  }

  Tensor attention(const Tensor &h) const {
    int64_t B = h.size(0), T = h.size(1), C = h.size(2);
    int64_t hd = C / n_head;
    Tensor qkv = kiln::linear(h, w_attn, b_attn);
    Tensor q = heads(qkv, 0), k = heads(qkv, 1), v = heads(qkv, 2);
    Tensor att = kiln::matmul(q, k.transpose(-2, -1)) * (1.0f / std::sqrt(float(hd)));
    Tensor causal = kiln::arange(T).unsqueeze(1) >= kiln::arange(T).unsqueeze(0);
    att = kiln::softmax(kiln::where(causal, att, -INFINITY), -1);
    Tensor y = kiln::matmul(att, v).transpose(1, 2).reshape({B, T, C});
    return kiln::linear(y, w_proj, b_proj);
  }

  Tensor attention_sdpa(const Tensor &h) const {
    int64_t B = h.size(0), T = h.size(1), C = h.size(2);
    Tensor qkv = kiln::linear(h, w_attn, b_attn);
    Tensor y = kiln::scaled_dot_product_attention(
        heads(qkv, 0), heads(qkv, 1), heads(qkv, 2), Tensor(), 0.0, true);
    return kiln::linear(y.transpose(1, 2).reshape({B, T, C}), w_proj, b_proj);
  }

  Tensor mlp(const Tensor &x1) const {
    Tensor h = kiln::gelu(
        kiln::linear(kiln::layer_norm(x1, ln2_w, ln2_b, 1e-5), w_fc, b_fc));
    return kiln::linear(h, w_out, b_out);
  }

  KILN_COMPILE(fullgraph = true) Tensor forward(const Tensor &x) const {
    Tensor x1 = x + attention(kiln::layer_norm(x, ln1_w, ln1_b, 1e-5));
    return x1 + mlp(x1);
  }

  KILN_COMPILE(fullgraph = true) Tensor forward_sdpa(const Tensor &x) const {
    Tensor x1 = x + attention_sdpa(kiln::layer_norm(x, ln1_w, ln1_b, 1e-5));
    return x1 + mlp(x1);
  }
};

// The block with each tensor converted by h: to bfloat16, weights and
// activations, as model.to(torch.bfloat16) makes it, or to a device.
template <typename Convert> Gpt2Block converted(const Gpt2Block &b, Convert h) {
  return Gpt2Block{h(b.ln1_w),  h(b.ln1_b),  h(b.w_attn), h(b.b_attn),
                   h(b.w_proj), h(b.b_proj), h(b.ln2_w),  h(b.ln2_b),
                   h(b.w_fc),   h(b.b_fc),   h(b.w_out),  h(b.b_out),
                   b.n_head};
}

// The same calls, eagerly.
KILN_DISABLE() Tensor eager_chain(const Tensor &x) { return chain(x); }
KILN_DISABLE() Tensor eager_ln_softmax(const Tensor &x, const Tensor &w, const Tensor &b) {
  return ln_softmax(x, w, b);
}
KILN_DISABLE() Tensor eager_mlp(const Mlp &m, const Tensor &x) { return m.forward(x); }
KILN_DISABLE() Tensor eager_gru(const examples::GRUCell &c, const Tensor &x, const Tensor &h) {
  return gru_step(c, x, h);
}
KILN_DISABLE() Tensor eager_gpt2(const Gpt2Block &b, const Tensor &x) { return b.forward(x); }
KILN_DISABLE() Tensor eager_gpt2_sdpa(const Gpt2Block &b, const Tensor &x) {
  return b.forward_sdpa(x);
}

namespace {

using Call = std::function<Tensor()>;

/// One row of the sweep: its eager and compiled calls on the same inputs.
struct Row {
  Call eager, compiled;
};

uint64_t seed = 1;
Tensor normal(kiln::Shape shape, double std) { return kiln::randn(shape, seed++) * std; }

/// Where the compiled side's tensors live (the `device` command).
kiln::Device device = kiln::Device::cpu();
bool onGpu() { return device != kiln::Device::cpu(); }
Tensor placed(const Tensor &t) { return onGpu() ? t.to(device) : t; }

Row makeRow(const std::string &name, const std::vector<int64_t> &a) {
  auto need = [&](size_t n) {
    if (a.size() != n)
      throw kiln::Error("sweep: " + name + " takes " + std::to_string(n) + " sizes");
  };
  if (name == "chain") {
    need(1);
    Tensor x = normal({a[0]}, 1.0), cx = placed(x);
    return {[x] { return eager_chain(x); }, [cx] { return chain(cx); }};
  }
  if (name == "ln_softmax") {
    need(2);
    Tensor x = normal({a[0], a[1]}, 1.0), w = normal({a[1]}, 1.0), b = normal({a[1]}, 1.0);
    Tensor cx = placed(x), cw = placed(w), cb = placed(b);
    return {[=] { return eager_ln_softmax(x, w, b); },
            [=] { return ln_softmax(cx, cw, cb); }};
  }
  if (name == "mlp" || name == "mlp_cold") {
    // mlp_cold turns over four copies of the model (128 MiB of weights,
    // more than the last-level cache), so that each call reads its weights
    // from memory, as a model larger than the cache does.
    need(1);
    auto models = std::make_shared<std::vector<Mlp>>();
    auto placedModels = std::make_shared<std::vector<Mlp>>();
    for (int i = 0; i < (name == "mlp" ? 1 : 4); ++i) {
      Mlp m{normal({4096, 1024}, 0.03), normal({4096}, 0.02),
            normal({1024, 4096}, 0.015), normal({1024}, 0.02)};
      models->push_back(m);
      placedModels->push_back(
          Mlp{placed(m.w1), placed(m.b1), placed(m.w2), placed(m.b2)});
    }
    // Each side turns over the copies on its own, so that the first calls
    // of the two (setup's check) use the same copy.
    auto eagerTurn = std::make_shared<size_t>(0), compiledTurn = std::make_shared<size_t>(0);
    Tensor x = normal({a[0], 1024}, 1.0), cx = placed(x);
    return {
        [=] {
          return eager_mlp((*models)[(*eagerTurn)++ % models->size()], x);
        },
        [=] {
          return (*placedModels)[(*compiledTurn)++ % models->size()].forward(
              cx);
        }};
  }
  if (name == "gru") {
    need(3); // batch, input, hidden
    if (onGpu())
      throw kiln::Error("sweep: gru runs on the CPU only");
    int64_t H = a[2];
    auto c = std::make_shared<examples::GRUCell>(
        examples::GRUCell{normal({3 * H, a[1]}, 0.1), normal({3 * H, H}, 0.1),
                          normal({3 * H}, 0.1), normal({3 * H}, 0.1)});
    Tensor x = normal({a[0], a[1]}, 1.0), h = normal({a[0], H}, 0.5);
    return {[=] { return eager_gru(*c, x, h); }, [=] { return gru_step(*c, x, h); }};
  }
  if (name == "gpt2" || name == "gpt2_sdpa" || name == "gpt2_bf16" ||
      name == "gpt2_autocast") {
    need(2);
    const int64_t C = 768;
    auto blk = std::make_shared<Gpt2Block>(Gpt2Block{
        kiln::ones({C}), kiln::zeros({C}), normal({3 * C, C}, 0.02), normal({3 * C}, 0.02),
        normal({C, C}, 0.02), normal({C}, 0.02), kiln::ones({C}), kiln::zeros({C}),
        normal({4 * C, C}, 0.02), normal({4 * C}, 0.02), normal({C, 4 * C}, 0.02),
        normal({C}, 0.02), 12});
    Tensor x = normal({a[0], a[1], C}, 1.0);
    if (name == "gpt2_bf16") {
      if (onGpu())
        throw kiln::Error("sweep: gpt2_bf16 runs on the CPU only");
      *blk = converted(*blk,
                       [](const Tensor &t) { return t.to(kiln::kBFloat16); });
      x = x.to(kiln::kBFloat16);
    }
    auto cblk = std::make_shared<Gpt2Block>(converted(*blk, placed));
    Tensor cx = placed(x);
    if (name == "gpt2_sdpa")
      return {[=] { return eager_gpt2_sdpa(*blk, x); },
              [=] { return cblk->forward_sdpa(cx); }};
    if (name == "gpt2_autocast") {
      if (onGpu())
        throw kiln::Error("sweep: gpt2_autocast runs on the CPU only");
      return {[=] {
                kiln::autocast scope(kiln::kBFloat16);
                return eager_gpt2_sdpa(*blk, x);
              },
              [=] {
                kiln::autocast scope(kiln::kBFloat16);
                return cblk->forward_sdpa(cx);
              }};
    }
    return {[=] { return eager_gpt2(*blk, x); },
            [=] { return cblk->forward(cx); }};
  }
  throw kiln::Error("sweep: unknown row " + name);
}

/// Seconds for `calls` calls of f; with `wait`, to the end of the last
/// kernel they launched on the GPU.
double seconds(const Call &f, int64_t calls, bool wait = false) {
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < calls; ++i)
    f();
  if (wait)
    kiln::cuda::synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Read bandwidth in GB/s: the best of 5 sums over 512 MiB on all threads,
/// each thread summing its share as 8 streams at once, in 64-byte vectors,
/// into 8 accumulators (one stream at a time, with one accumulator, this
/// machine reads 30-40% slower than its products stream weights).
double readBandwidth() {
  typedef float V __attribute__((vector_size(64)));
  const int64_t n = int64_t(1) << 27, vectors = n / 16;
  std::unique_ptr<float[]> data(new float[n]);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    data[i] = float(i & 7);
  double best = 0, sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
    double total = 0;
#pragma omp parallel reduction(+ : total)
    {
      // This thread's share, read as 8 streams at once (as the products
      // read 4 or more rows of a weight at once), one vector from each.
      int64_t threads = omp_get_num_threads(), share = vectors / threads;
      int64_t begin = omp_get_thread_num() * share, stream = share / 8;
      V acc[8] = {};
      for (int64_t v = 0; v < stream; ++v)
        for (int u = 0; u < 8; ++u) {
          V x;
          std::memcpy(&x, data.get() + (begin + u * stream + v) * 16, sizeof x);
          acc[u] += x;
        }
      for (const V &a : acc)
        for (int l = 0; l < 16; ++l)
          total += a[l];
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sink += total;
    best = std::max(best, n * sizeof(float) / s / 1e9);
  }
  return sink < 0 ? 0 : best;
}

} // namespace

int main() {
  Row row;
  int64_t calls = 1;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string command;
    in >> command;
    try {
      if (command == "setup") {
        std::string name;
        in >> name;
        std::vector<int64_t> sizes;
        for (int64_t v; in >> v;)
          sizes.push_back(v);
        row = makeRow(name, sizes);
        Tensor e = row.eager(), c = row.compiled().to(kiln::Device::cpu());
        double diff =
            kiln::amax(kiln::abs(c.to(kiln::kFloat32) - e.to(kiln::kFloat32)))
                .item<float>();
        // About 5 ms of eager calls per timed batch, at least one call.
        double one = seconds(row.eager, 1);
        calls = std::max<int64_t>(1, int64_t(0.005 / std::max(one, 1e-7)));
        seconds(row.compiled, calls,
                onGpu()); // warm the compiled path's caches too
        std::printf("ok %lld %.3g\n", static_cast<long long>(calls), diff);
      } else if (command == "time") {
        double e = seconds(row.eager, calls),
               c = seconds(row.compiled, calls, onGpu());
        std::printf("%.4f %.4f\n", e / calls * 1e6, c / calls * 1e6);
      } else if (command == "run") {
        std::string side;
        double limit = 1;
        in >> side >> limit;
        const Call &f = side == "eager" ? row.eager : row.compiled;
        int64_t n = 0;
        double spent = 0;
        while (spent < limit) {
          spent += seconds(f, calls, side != "eager" && onGpu());
          n += calls;
        }
        std::printf("%lld %.4f\n", static_cast<long long>(n), spent / n * 1e6);
      } else if (command == "profile") {
        setenv("KILN_PROFILE", "1", 1);
        row.compiled();
        if (onGpu())
          kiln::cuda::synchronize();
        unsetenv("KILN_PROFILE");
        std::fflush(stderr);
        std::printf("ok\n");
      } else if (command == "device") {
        std::string where;
        in >> where;
        if (where == "cuda" && !kiln::cuda::is_available())
          throw kiln::Error(
              "sweep: no GPU (the CUDA driver or a device is missing)");
        device = where == "cuda" ? kiln::Device::cuda() : kiln::Device::cpu();
        std::printf("ok\n");
      } else if (command == "bandwidth") {
        std::printf("%.2f\n", readBandwidth());
      } else {
        std::printf("error unknown command %s\n", command.c_str());
      }
    } catch (const std::exception &err) {
      std::printf("error %s\n", err.what());
    }
    std::fflush(stdout);
  }
  return 0;
}
