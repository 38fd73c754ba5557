// The cost of a loop left on the host: its body's graph runs once per
// iteration (a std::vector of cells of run-time length, range-for). Times
// the whole loop eagerly (below a KILN_DISABLE() function) and compiled,
// alternating, best of 7, per iteration. Built through kiln compile by
// benchmarks/host_loop.sh; not a test.
//
//   host_loop [STEPS] [WIDTH]   (default 1000 steps, width 16, batch 4)
#include <kiln/kiln.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

struct Cell {
  Tensor w, b;
};

KILN_COMPILE() Tensor run(const std::vector<Cell> &cells, const Tensor &x) {
  Tensor h = x;
  for (const Cell &c : cells)
    h = kiln::tanh(kiln::matmul(h, c.w) + c.b) * 0.5f + h;
  return h;
}

KILN_DISABLE() Tensor run_eager(const std::vector<Cell> &cells, const Tensor &x) {
  return run(cells, x);
}

int main(int argc, char **argv) {
  const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 1000;
  const int64_t width = argc > 2 ? std::atoll(argv[2]) : 16, batch = 4;
  std::vector<Cell> cells;
  for (int64_t i = 0; i < steps; ++i)
    cells.push_back({kiln::randn({width, width}, static_cast<uint64_t>(i + 1)) * 0.1,
                     kiln::zeros({width})});
  Tensor x = kiln::randn({batch, width}, 1000);
  double best[2] = {1e300, 1e300};
  float sums[2] = {0, 0};
  for (int rep = 0; rep < 7; ++rep)
    for (int mode = 0; mode < 2; ++mode) {
      auto start = std::chrono::steady_clock::now();
      Tensor y = mode ? run(cells, x) : run_eager(cells, x);
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                      .count() /
                  static_cast<double>(steps);
      best[mode] = std::min(best[mode], us);
      sums[mode] = kiln::sum(y).item<float>();
    }
  std::printf("width %lld, %lld steps: per iteration eager %.2f us, compiled %.2f us "
              "(sums %.4f, %.4f)\n",
              static_cast<long long>(width), static_cast<long long>(steps), best[0], best[1],
              sums[0], sums[1]);
  return 0;
}
