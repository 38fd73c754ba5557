//===- CompilerBuiltins.cpp - Helpers LLVM's code generator may call ------===//
//
// On an x86 CPU without AVX512-BF16, LLVM legalizes some bfloat16 vector
// code (a select of bf16 lanes, say) through float32 and rounds back with a
// call to __truncsfbf2, a compiler runtime helper that libgcc has only from
// GCC 13 on (Debian 12 ships GCC 12). Compiled kernels link against this
// runtime, so it supplies the helper, weak: a libgcc or compiler-rt that
// has one takes its place. It rounds as the runtime's bfloat16 does: to
// nearest even, NaN kept quiet. The same holds for __truncdfbf2 (double to
// bfloat16), which no libgcc of Debian 12 has.
//
//===----------------------------------------------------------------------===//
#include "kiln/DType.h"

#include <cstdint>
#include <cstring>

#if defined(__clang__) && defined(__x86_64__)
// Declared as returning float, not __bf16: a __bf16 return value is itself
// legalized through float and __truncsfbf2 when the build does not fold
// the round trip (the ASan build), which made the helper call itself. The
// ABI returns both in xmm0, the bfloat16 in its low 16 bits.
extern "C" __attribute__((weak, visibility("default"))) float
__truncsfbf2(float value) {
  kiln::BFloat16 rounded(value);
  uint32_t bits = rounded.bits;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// double -> bfloat16 (fptrunc double to bfloat, which LLVM always lowers to
// this call on x86): through float, as the runtime's (and torch's)
// conversion rounds, so that compiled and eager agree bit for bit.
extern "C" __attribute__((weak, visibility("default"))) float
__truncdfbf2(double value) {
  return __truncsfbf2(static_cast<float>(value));
}
#endif
