// benchmarks/eager_ops: the eager runtime's bandwidth against memcpy.
//
// For 16M-element float32 add, mul, exp and gelu and for softmax over
// [4096, 1024], prints the achieved bandwidth (bytes read + written per
// second) beside a memcpy of the same size measured in the same run: one
// memcpy call on one thread, and the copy split over all OpenMP threads like
// the runtime's own loops (the baseline the ratio column uses). Each figure
// is the median of the timed repetitions after a warm-up.
//
//   eager_ops [REPS]   (default 15)
#include <kiln/kiln.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

double medianSeconds(int reps, const std::function<void()> &fn) {
  fn(); // warm-up: first touch, caches, thread pool
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void parallelMemcpy(char *dst, const char *src, size_t n) {
#pragma omp parallel
  {
    size_t threads = omp_get_num_threads(), tid = omp_get_thread_num();
    size_t chunk = (n + threads - 1) / threads;
    size_t begin = std::min(n, tid * chunk), end = std::min(n, begin + chunk);
    std::memcpy(dst + begin, src + begin, end - begin);
  }
}

} // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  const int64_t n = int64_t(1) << 24;
  const size_t bytes = n * sizeof(float);

  kiln::Tensor x = kiln::randn({n}, 1), y = kiln::randn({n}, 2);
  kiln::Tensor s = kiln::randn({4096, 1024}, 3);
  std::vector<char> src(bytes, 1), dst(bytes, 0);

  double tCopy1 =
      medianSeconds(reps, [&] { std::memcpy(dst.data(), src.data(), bytes); });
  double tCopyN = medianSeconds(
      reps, [&] { parallelMemcpy(dst.data(), src.data(), bytes); });
  double copy1 = 2.0 * bytes / tCopy1 / 1e9, copyN = 2.0 * bytes / tCopyN / 1e9;

  struct Row {
    const char *name;
    double bytesMoved;
    std::function<void()> fn;
  };
  kiln::Tensor sink;
  std::vector<Row> rows = {
      {"add  [16M] f32", 3.0 * bytes, [&] { sink = x + y; }},
      {"mul  [16M] f32", 3.0 * bytes, [&] { sink = x * y; }},
      {"exp  [16M] f32", 2.0 * bytes, [&] { sink = kiln::exp(x); }},
      {"gelu [16M] f32", 2.0 * bytes, [&] { sink = kiln::gelu(x); }},
      {"softmax [4096,1024] f32", 2.0 * s.numel() * sizeof(float),
       [&] { sink = kiln::softmax(s, -1); }},
  };

  std::printf(
      "Kiln eager runtime bandwidth, %d OpenMP threads, median of %d runs\n",
      omp_get_max_threads(), reps);
  std::printf("memcpy 64 MiB: %.1f GB/s on 1 thread, %.1f GB/s on %d threads "
              "(baseline)\n\n",
              copy1, copyN, omp_get_max_threads());
  std::printf("%-26s %10s %10s %12s\n", "op", "time (ms)", "GB/s", "vs memcpy");
  for (const Row &row : rows) {
    double t = medianSeconds(reps, row.fn);
    double gbs = row.bytesMoved / t / 1e9;
    std::printf("%-26s %10.2f %10.1f %11.0f%%\n", row.name, t * 1e3, gbs,
                100.0 * gbs / copyN);
  }
  return 0;
}
