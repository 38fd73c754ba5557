//===- Stats.cpp - What ran compiled and what ran eagerly -----------------===//
#include "Core/Stats.h"

namespace kiln::detail {
namespace {
thread_local bool underRoot = false;
/// Eager ops (and uncounted scopes) open on this thread.
thread_local int depth = 0;
} // namespace

Stats &stats() {
  // Never destroyed: KILN_STATS prints from a static destructor.
  static Stats *instance = new Stats;
  return *instance;
}

void setUnderCompileRoot(bool under) { underRoot = under; }
bool underCompileRoot() { return underRoot; }

CountedOp::CountedOp() {
  if (depth++ == 0 && underRoot)
    stats().opsEager.fetch_add(1, std::memory_order_relaxed);
}
CountedOp::~CountedOp() { --depth; }

UncountedOps::UncountedOps() { ++depth; }
UncountedOps::~UncountedOps() { --depth; }

} // namespace kiln::detail
