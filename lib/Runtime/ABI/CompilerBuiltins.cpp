//===- CompilerBuiltins.cpp - Helpers LLVM's code generator may call ------===//
//
// On an x86 CPU without AVX512-BF16, LLVM legalizes some bfloat16 vector
// code (a select of bf16 lanes, say) through float32 and rounds back with a
// call to __truncsfbf2, a compiler runtime helper that libgcc has only from
// GCC 13 on (Debian 12 ships GCC 12). Compiled kernels link against this
// runtime, so it supplies the helper, weak: a libgcc or compiler-rt that
// has one takes its place. It rounds as the runtime's bfloat16 does: to
// nearest even, NaN kept quiet.
//
//===----------------------------------------------------------------------===//
#include "kiln/DType.h"

#include <cstring>

#if defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
extern "C" __attribute__((weak, visibility("default"))) __bf16
__truncsfbf2(float value) {
  kiln::BFloat16 rounded(value);
  __bf16 out;
  std::memcpy(&out, &rounded.bits, sizeof out);
  return out;
}
#endif
