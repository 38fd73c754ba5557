//===- Stats.h - What ran compiled and what ran eagerly ---------*- C++ -*-===//
//
// The counters KILN_STATS=1 prints at exit (lib/Runtime/ABI/GraphCalls.cpp):
// graph calls, how many ran compiled, guard misses, the kiln ops compiled
// graphs executed, the tensor ops that ran eagerly under a compile root,
// and the compiled backward graphs autograd ran. Every public eager op opens a
// CountedOp; only the outermost one counts, so that an op built from others
// counts once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CORE_STATS_H
#define KILN_RUNTIME_CORE_STATS_H

#include <atomic>
#include <cstdint>

namespace kiln::detail {

struct Stats {
  std::atomic<int64_t> graphCalls{0}, compiled{0}, guardMisses{0},
      opsCompiled{0}, opsEager{0}, backwardCompiled{0};
};
Stats &stats();

/// Whether this thread runs under a compile root (kiln::abi::CompiledScope
/// sets it): its eager ops are counted.
void setUnderCompileRoot(bool under);
bool underCompileRoot();

/// Opened by each public eager op: counts it when it is the outermost op
/// under a compile root.
class CountedOp {
public:
  CountedOp();
  ~CountedOp();
  CountedOp(const CountedOp &) = delete;
  CountedOp &operator=(const CountedOp &) = delete;
};

/// Opened by the runtime's own plumbing around compiled graphs (guards,
/// staging, results): the tensor ops inside are not the user's.
class UncountedOps {
public:
  UncountedOps();
  ~UncountedOps();
  UncountedOps(const UncountedOps &) = delete;
  UncountedOps &operator=(const UncountedOps &) = delete;
};

} // namespace kiln::detail

#endif
