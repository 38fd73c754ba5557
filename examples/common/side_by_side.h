// Shared by the examples: times a forward pass eagerly and compiled in one
// program and prints both results side by side.
#ifndef KILN_EXAMPLES_SIDE_BY_SIDE_H
#define KILN_EXAMPLES_SIDE_BY_SIDE_H

#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace examples {

/// The median of 10 runs of fn after a warm-up, in ms; its result in result.
inline double medianMs(const std::function<kiln::Tensor()> &fn, kiln::Tensor &result) {
  result = fn();
  std::vector<double> times;
  for (int i = 0; i < 10; ++i) {
    auto start = std::chrono::steady_clock::now();
    result = fn();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Runs eager() and compiled() (the same forward pass, eagerly through a
/// KILN_DISABLE() function and as compiled), prints view(result) of each,
/// their largest difference, and the timings (a line starting "time: ").
inline void sideBySide(const std::string &what,
                       const std::function<kiln::Tensor()> &eager,
                       const std::function<kiln::Tensor()> &compiled,
                       const std::function<kiln::Tensor(const kiln::Tensor &)> &view) {
  kiln::Tensor e, c;
  double eagerMs = medianMs(eager, e);
  double compiledMs = medianMs(compiled, c);
  std::cout << "eager    " << what << " = " << view(e) << "\n";
  std::cout << "compiled " << what << " = " << view(c) << "\n";
  std::printf("max |compiled - eager| = %.3g\n",
              kiln::amax(kiln::abs(c - e)).item<float>());
#if defined(KILN_STITCHED)
  const char *build = "compiled by kiln_compile";
#else
  const char *build = "not compiled: both columns eager";
#endif
  std::printf("time: forward eager %.3f ms, compiled %.3f ms: %.2fx (%s)\n", eagerMs,
              compiledMs, eagerMs / compiledMs, build);
}

} // namespace examples

#endif
