//===- kiln/CpuTargets.h - Per-CPU entry points of a graph ------*- C++ -*-===//
//
// A file compiled for a list of CPUs (kiln compile --target-cpu=A,B) holds
// every graph once per CPU: the first CPU's entry point is kiln_entry_NAME,
// the i-th's after it kiln_entry_NAME__t<i>, and the stitched code calls
// the one kiln::abi::chooseCpuTarget picks. The object's emitter
// (lib/Target/Host) and the stitched calls (lib/Stitch) name them here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CPUTARGETS_H
#define KILN_CPUTARGETS_H

#include <cstddef>
#include <string>

namespace kiln {

/// The suffix of the i-th CPU's symbols: "" for the first, "__t<i>" after.
inline std::string cpuTargetSuffix(size_t i) {
  return i ? "__t" + std::to_string(i) : "";
}

} // namespace kiln

#endif
