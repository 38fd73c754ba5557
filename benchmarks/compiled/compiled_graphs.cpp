// benchmarks/compiled_graphs: the eager runtime against the same graphs
// compiled by Kiln's CPU pipeline, measured in one run, with a memcpy and an
// OpenBLAS sgemm of the same sizes as the machine's yardsticks.
//
//   (a) gelu(x*1.5+0.5)*sigmoid(x) - x/(abs(x)+1), x of 16M float32
//   (b) layer_norm(softmax(x)+x) on [4096, 1024]
//   (c) gelu(a @ w + b), a [256, 1024], w [1024, 4096]
//
// Each figure is the median of the timed repetitions after a warm-up; what
// is compared is timed in turns (eager, compiled, eager, ...), so that the
// ratios hold on a noisy machine. The compiled results are checked against
// eager before anything is timed.
//
//   (d) (a) and (b) at small and middling sizes, compiled three ways:
//       as the pipeline compiles them (threads where the work pays for
//       them, kiln-parallel-where-it-pays), every loop nest threaded, and
//       without OpenMP: where threads start to pay, which the pipeline's
//       threshold must match.
//
//   compiled_graphs [REPS]   (default 10)
#include <kiln/kiln.h>

#include "Graphs.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using kiln::Tensor;

namespace {

double seconds(const std::function<void()> &fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double medianSeconds(int reps, const std::function<void()> &fn) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i)
    times.push_back(seconds(fn));
  return median(times);
}

/// Median times of each function, measured in turns (a b c a b c ...), so
/// that a slow spell of this shared machine falls on all of them alike and
/// their ratios hold.
std::vector<double>
medianSecondsInTurns(int reps, const std::vector<std::function<void()>> &fns) {
  std::vector<std::vector<double>> times(fns.size());
  for (const auto &fn : fns)
    fn();
  for (int i = 0; i < reps; ++i)
    for (size_t f = 0; f < fns.size(); ++f)
      times[f].push_back(seconds(fns[f]));
  std::vector<double> medians;
  for (auto &t : times)
    medians.push_back(median(t));
  return medians;
}

/// Calls a compiled graph with tensor inputs and one tensor result.
Tensor call(kiln::abi::EntryPoint entry, const std::vector<Tensor> &inputs,
            int64_t resultRank) {
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> args(1 + inputs.size());
  descriptors.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    descriptors.emplace_back(kiln::abi::descriptorSize(inputs[i].dim()) / 8);
    kiln::abi::describe(inputs[i], descriptors.back().data());
    args[1 + i] = descriptors.back().data();
  }
  std::vector<int64_t> results(kiln::abi::descriptorSize(resultRank) / 8 + 1);
  args[0] = results.data();
  entry(args.data());
  int32_t status;
  std::memcpy(&status,
              results.data() + kiln::abi::descriptorSize(resultRank) / 8, 4);
  if (status != 0)
    throw kiln::Error("compiled graph: shape check failed");
  return kiln::abi::adopt(results.data(), resultRank, kiln::kFloat32);
}

} // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;

  // Compile the three graphs once.
  CompiledGraphs graphs;
  if (!compileGraphs(mlir::kiln::CompileOptions{}, "/tmp/kiln-bench", graphs) ||
      !graphs.load())
    return 1;
  double compileSeconds = graphs.seconds;
  auto entry = [&](const char *name) { return graphs.entry(name); };

  std::printf("Kiln compiled graphs vs eager, %d OpenMP threads, median of %d "
              "runs (the three graphs compiled in %.2f s)\n\n",
              omp_get_max_threads(), reps, compileSeconds);

  // (a) the elementwise chain.
  const int64_t n = int64_t(1) << 24;
  Tensor x = kiln::randn({n}, 1);
  auto chainEager = [&] {
    return kiln::gelu(x * 1.5 + 0.5) * kiln::sigmoid(x) -
           x / (kiln::abs(x) + 1);
  };
  if (!kiln::allclose(call(entry("chain"), {x}, 1), chainEager(), 1e-4, 1e-5))
    return std::fprintf(stderr, "chain: compiled differs from eager\n"), 1;
  std::vector<char> src(n * 4, 1), dst(n * 4, 0);
  auto copy = [&] {
#pragma omp parallel
    {
      size_t t = omp_get_num_threads(), id = omp_get_thread_num();
      size_t chunk = (src.size() + t - 1) / t,
             b = std::min(src.size(), id * chunk);
      size_t e = std::min(src.size(), b + chunk);
      std::memcpy(dst.data() + b, src.data() + b, e - b);
    }
  };
  auto timesA =
      medianSecondsInTurns(reps, {copy, [&] { chainEager(); },
                                  [&] { call(entry("chain"), {x}, 1); }});
  double tCopy = timesA[0], tEagerA = timesA[1], tCompiledA = timesA[2];
  double bytesA = 2.0 * n * 4;
  std::printf(
      "(a) elementwise chain [16M]: eager %.2f ms, compiled %.2f ms: "
      "%.1fx faster; compiled %.1f GB/s = %.0f%% of memcpy (%.1f GB/s)\n",
      tEagerA * 1e3, tCompiledA * 1e3, tEagerA / tCompiledA,
      bytesA / tCompiledA / 1e9, 100 * (bytesA / tCompiledA) / (bytesA / tCopy),
      bytesA / tCopy / 1e9);

  // (b) layer_norm(softmax(x) + x).
  Tensor s = kiln::randn({4096, 1024}, 2), w = kiln::randn({1024}, 3),
         bb = kiln::randn({1024}, 4);
  auto lnEager = [&] {
    return kiln::layer_norm(kiln::softmax(s, 1) + s, w, bb);
  };
  if (!kiln::allclose(call(entry("ln_softmax"), {s, w, bb}, 2), lnEager(), 1e-4,
                      1e-4))
    return std::fprintf(stderr, "ln_softmax: compiled differs from eager\n"), 1;
  auto timesB =
      medianSecondsInTurns(reps, {[&] { lnEager(); },
                                  [&] {
                                    call(entry("ln_softmax"), {s, w, bb}, 2);
                                  }});
  double tEagerB = timesB[0], tCompiledB = timesB[1];
  std::printf(
      "(b) layer_norm(softmax(x)+x) [4096,1024]: eager %.2f ms, compiled "
      "%.2f ms: %.1fx faster\n",
      tEagerB * 1e3, tCompiledB * 1e3, tEagerB / tCompiledB);

  // (c) gelu(a @ w + b) against OpenBLAS's sgemm alone.
  const int M = 256, K = 1024, N = 4096;
  Tensor a = kiln::randn({M, K}, 5), wm = kiln::randn({K, N}, 6) * 0.03,
         bias = kiln::randn({N}, 7);
  auto mmEager = [&] { return kiln::gelu(kiln::matmul(a, wm) + bias); };
  if (!kiln::allclose(call(entry("mm_bias_gelu"), {a, wm, bias}, 2), mmEager(),
                      1e-3, 1e-4))
    return std::fprintf(stderr, "mm_bias_gelu: compiled differs from eager\n"),
           1;
  std::vector<float> c(static_cast<size_t>(M) * N);
  // The baseline is OpenBLAS on its own threads, as fast as it goes here;
  // the runtime (and compiled code) run it single-threaded per OpenMP thread.
  // OpenMP's threads spin for a while after each parallel region: let them
  // go to sleep first, so that they do not slow OpenBLAS's threads down.
  openblas_set_num_threads(omp_get_max_threads());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double tBlas = medianSeconds(reps, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
                a.data<float>(), K, wm.data<float>(), N, 0.0f, c.data(), N);
  });
  openblas_set_num_threads(1);
  auto timesC = medianSecondsInTurns(
      reps, {[&] { mmEager(); },
             [&] {
               call(entry("mm_bias_gelu"), {a, wm, bias}, 2);
             }});
  double tEagerC = timesC[0], tCompiledC = timesC[1];
  double flops = 2.0 * M * N * K;
  std::printf("(c) gelu(a@w+b) [256,1024]x[1024,4096]: eager %.2f ms, compiled "
              "%.2f ms: %.2fx faster; compiled %.1f GFLOP/s = %.2fx OpenBLAS "
              "sgemm alone (%.1f GFLOP/s)\n",
              tEagerC * 1e3, tCompiledC * 1e3, tEagerC / tCompiledC,
              flops / tCompiledC / 1e9, tBlas / tCompiledC,
              flops / tBlas / 1e9);

  // (d) the sweep: per call, each sample a batch of calls lasting ~1 ms.
  mlir::kiln::CompileOptions threaded, serial;
  threaded.cpu.minParallelWork = 0;
  serial.cpu.openmp = false;
  CompiledGraphs always, never;
  if (!compileGraphs(threaded, "/tmp/kiln-bench-threaded", always) ||
      !always.load() ||
      !compileGraphs(serial, "/tmp/kiln-bench-serial", never) || !never.load())
    return 1;
  std::printf("\n(d) per call, us: eager | compiled (threads where they pay) "
              "| every loop threaded | no threads; eager/compiled\n");
  auto sweep = [&](const char *name, const std::string &label,
                   const std::vector<Tensor> &in, int64_t rank,
                   const std::function<Tensor()> &eager) {
    if (!kiln::allclose(call(graphs.entry(name), in, rank), eager(), 1e-4,
                        1e-4) ||
        !kiln::allclose(call(never.entry(name), in, rank), eager(), 1e-4, 1e-4))
      return std::fprintf(stderr, "%s: compiled differs from eager\n", name),
             false;
    double once = seconds([&] { eager(); });
    int batch = std::max(1, static_cast<int>(1e-3 / std::max(once, 1e-7)));
    auto batched = [&](const std::function<void()> &fn) {
      return [=] {
        for (int i = 0; i < batch; ++i)
          fn();
      };
    };
    std::vector<double> t = medianSecondsInTurns(
        reps, {batched([&] { eager(); }),
               batched([&] { call(graphs.entry(name), in, rank); }),
               batched([&] { call(always.entry(name), in, rank); }),
               batched([&] { call(never.entry(name), in, rank); })});
    for (double &v : t)
      v = v / batch * 1e6;
    std::printf("    %-30s %9.1f | %9.1f | %9.1f | %9.1f   %.2fx\n",
                label.c_str(), t[0], t[1], t[2], t[3], t[0] / t[1]);
    return true;
  };
  for (int64_t size : {64, 4096, 32768, 262144, 1 << 20}) {
    Tensor xs = kiln::randn({size}, 8);
    if (!sweep("chain", "(a) chain [" + std::to_string(size) + "]", {xs}, 1,
               [&] {
                 return kiln::gelu(xs * 1.5 + 0.5) * kiln::sigmoid(xs) -
                        xs / (kiln::abs(xs) + 1);
               }))
      return 1;
  }
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {8, 64}, {64, 256}, {256, 512}, {1024, 1024}}) {
    Tensor xs = kiln::randn({rows, cols}, 9), ws = kiln::randn({cols}, 10),
           bs = kiln::randn({cols}, 11);
    if (!sweep("ln_softmax",
               "(b) ln_softmax [" + std::to_string(rows) + "," +
                   std::to_string(cols) + "]",
               {xs, ws, bs}, 2, [&] {
                 return kiln::layer_norm(kiln::softmax(xs, 1) + xs, ws, bs);
               }))
      return 1;
  }
  return 0;
}
