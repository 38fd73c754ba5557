//===- kiln/Pipelines/Backend.h - Where compiled graphs run -----*- C++ -*-===//
//
// The backends of `kiln compile --backend` and KILN_COMPILE(backend=...),
// as torch.compile's backend=: eager re-emits each graph as calls into the
// runtime (capture alone); aot_eager adds each graph's backward (the
// training forward and backward that --autograd compiles) and runs both as
// calls into the runtime, no codegen; cpu and cuda compile them through
// MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_BACKEND_H
#define KILN_PIPELINES_BACKEND_H

#include <optional>
#include <string>

namespace mlir::kiln {

enum class Backend { Eager, AotEager, Cpu, Cuda };

/// The backend a name spells ("eager", "aot_eager", "cpu", "cuda"), if one.
inline std::optional<Backend> parseBackend(const std::string &name) {
  if (name == "eager")
    return Backend::Eager;
  if (name == "aot_eager")
    return Backend::AotEager;
  if (name == "cpu")
    return Backend::Cpu;
  if (name == "cuda")
    return Backend::Cuda;
  return std::nullopt;
}

inline const char *backendName(Backend backend) {
  switch (backend) {
  case Backend::Eager:
    return "eager";
  case Backend::AotEager:
    return "aot_eager";
  case Backend::Cpu:
    return "cpu";
  case Backend::Cuda:
    return "cuda";
  }
  return "?";
}

} // namespace mlir::kiln

#endif
