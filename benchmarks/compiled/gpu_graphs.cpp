// benchmarks/gpu_graphs: the three graphs of compiled_graphs (Graphs.h)
// compiled by Kiln's GPU pipeline and run on the GPU, against the eager
// runtime on the CPU (the reference) and a device-to-device copy of the
// same bytes (the card's usable bandwidth), measured in one run.
//
//   gpu_graphs [REPS] [--cuda-arch=sm_90]   (default 20 repetitions)
//
// The inputs live on the GPU, so each timed call is the graph's kernels
// alone (GraphCall waits for them). Where there is no GPU the graphs are
// still compiled for the architecture and linked, and the program says
// "skipped: no GPU" with the reason, instead of timing anything.
#include <kiln/kiln.h>

#include "Graphs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using kiln::Device;
using kiln::Tensor;

namespace {

/// Median seconds of `reps` calls after a warm-up.
double medianSeconds(int reps, const std::function<void()> &fn) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Runs a compiled graph on the GPU: one tensor result, left there.
Tensor run(kiln::abi::EntryPoint entry, const char *name,
           const std::vector<Tensor> &inputs, int64_t rank) {
  kiln::abi::GraphCall call(name, entry, Device::cuda());
  for (const Tensor &t : inputs)
    call.input(t);
  Tensor out;
  call.output(out, rank, kiln::kFloat32);
  if (!call.run())
    throw kiln::Error(std::string(name) + ": a shape check failed");
  return out;
}

} // namespace

int benchmark(int argc, char **argv) {
  int reps = 20;
  std::string arch = "sm_90";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--cuda-arch=", 0) == 0)
      arch = a.substr(12);
    else
      reps = std::atoi(a.c_str());
  }

  CompiledGraphs graphs;
  mlir::kiln::CompileOptions options;
  options.backend = mlir::kiln::Backend::Cuda;
  options.gpu.chip = arch;
  options.gpu.format = "isa"; // PTX, compiled by the driver for the card
  if (!compileGraphs(options, "/tmp/kiln-gpu-bench", graphs))
    return 1;
  double compileSeconds = graphs.seconds;
  if (!kiln::cuda::is_available()) {
    Tensor probe;
    std::string why = "no GPU";
    try {
      probe = kiln::ones({1}).to(Device::cuda());
    } catch (const kiln::Error &e) {
      why = e.what();
    }
    std::printf("skipped: no GPU (%s): the three graphs were compiled for %s "
                "in %.2f s and linked; nothing was timed\n",
                why.c_str(), arch.c_str(), compileSeconds);
    return 0;
  }
  if (!graphs.load())
    return 1;
  auto entry = [&](const char *name) { return graphs.entry(name); };
  std::printf("Kiln graphs on the GPU (%s) vs the eager runtime on the CPU, "
              "median of %d runs (compiled in %.2f s)\n\n",
              arch.c_str(), reps, compileSeconds);

  // (a) the elementwise chain, against a device-to-device copy.
  const int64_t n = int64_t(1) << 24;
  Tensor x = kiln::randn({n}, 1);
  Tensor dx = x.to(Device::cuda());
  Tensor want =
      kiln::gelu(x * 1.5 + 0.5) * kiln::sigmoid(x) - x / (kiln::abs(x) + 1);
  if (!kiln::allclose(run(entry("chain"), "chain", {dx}, 1).to(Device::cpu()),
                      want, 1e-4, 1e-5))
    return std::fprintf(stderr, "chain: the GPU differs from eager\n"), 1;
  double tCopy = medianSeconds(reps, [&] {
    Tensor c = dx.clone();
    kiln::cuda::synchronize();
  });
  double tEagerA = medianSeconds(reps, [&] {
    kiln::gelu(x * 1.5 + 0.5) * kiln::sigmoid(x) - x / (kiln::abs(x) + 1);
  });
  double tA =
      medianSeconds(reps, [&] { run(entry("chain"), "chain", {dx}, 1); });
  double bytesA = 2.0 * n * 4;
  std::printf(
      "(a) elementwise chain [16M]: GPU %.3f ms (%.0f GB/s = %.0f%% of a "
      "device copy, %.0f GB/s), %.0fx eager on the CPU (%.2f ms)\n",
      tA * 1e3, bytesA / tA / 1e9, 100 * tCopy / tA, bytesA / tCopy / 1e9,
      tEagerA / tA, tEagerA * 1e3);

  // (b) layer_norm(softmax(x) + x).
  Tensor s = kiln::randn({4096, 1024}, 2), w = kiln::randn({1024}, 3),
         bb = kiln::randn({1024}, 4);
  std::vector<Tensor> inB = {s.to(Device::cuda()), w.to(Device::cuda()),
                             bb.to(Device::cuda())};
  Tensor wantB = kiln::layer_norm(kiln::softmax(s, 1) + s, w, bb);
  if (!kiln::allclose(
          run(entry("ln_softmax"), "ln_softmax", inB, 2).to(Device::cpu()),
          wantB, 1e-4, 1e-4))
    return std::fprintf(stderr, "ln_softmax: the GPU differs from eager\n"), 1;
  double tEagerB = medianSeconds(
      reps, [&] { kiln::layer_norm(kiln::softmax(s, 1) + s, w, bb); });
  double tB = medianSeconds(
      reps, [&] { run(entry("ln_softmax"), "ln_softmax", inB, 2); });
  double bytesB = 2.0 * 4096 * 1024 * 4;
  std::printf(
      "(b) layer_norm(softmax(x)+x) [4096,1024]: GPU %.3f ms (%.0f GB/s "
      "= %.0f%% of a device copy), %.0fx eager on the CPU (%.2f ms)\n",
      tB * 1e3, bytesB / tB / 1e9, 100 * (bytesB / tB) / (bytesA / tCopy),
      tEagerB / tB, tEagerB * 1e3);

  // (c) gelu(a @ w + b).
  const int M = 256, K = 1024, N = 4096;
  Tensor a = kiln::randn({M, K}, 5), wm = kiln::randn({K, N}, 6) * 0.03,
         bias = kiln::randn({N}, 7);
  std::vector<Tensor> inC = {a.to(Device::cuda()), wm.to(Device::cuda()),
                             bias.to(Device::cuda())};
  Tensor wantC = kiln::gelu(kiln::matmul(a, wm) + bias);
  if (!kiln::allclose(
          run(entry("mm_bias_gelu"), "mm_bias_gelu", inC, 2).to(Device::cpu()),
          wantC, 1e-3, 1e-4))
    return std::fprintf(stderr, "mm_bias_gelu: the GPU differs from eager\n"),
           1;
  double tEagerC =
      medianSeconds(reps, [&] { kiln::gelu(kiln::matmul(a, wm) + bias); });
  double tC = medianSeconds(
      reps, [&] { run(entry("mm_bias_gelu"), "mm_bias_gelu", inC, 2); });
  double flops = 2.0 * M * N * K;
  std::printf(
      "(c) gelu(a@w+b) [256,1024]x[1024,4096]: GPU %.3f ms (%.0f GFLOP/s), "
      "%.1fx eager on the CPU (%.2f ms)\n",
      tC * 1e3, flops / tC / 1e9, tEagerC / tC, tEagerC * 1e3);
  return 0;
}

int main(int argc, char **argv) {
  try {
    return benchmark(argc, argv);
  } catch (const kiln::Error &e) {
    std::fprintf(stderr, "gpu_graphs: %s\n", e.what());
    return 1;
  }
}
