//===- DType.cpp - Element types, promotion, half conversions -------------===//
#include "kiln/DType.h"

#include "kiln/Error.h"
#include <iterator>

#include <cstring>

namespace kiln {

size_t elementSize(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  throw Error("elementSize: unknown dtype");
}

namespace {
/// Each dtype's ATen-style name and signature tag, in enumerator order.
constexpr const char *kNames[][2] = {{"bool", "bool"},     {"int32", "i32"},
                                     {"int64", "i64"},     {"float16", "f16"},
                                     {"bfloat16", "bf16"}, {"float32", "f32"},
                                     {"float64", "f64"}};
} // namespace

const char *dtypeName(DType dtype) {
  auto i = static_cast<size_t>(dtype);
  return i < std::size(kNames) ? kNames[i][0] : "unknown";
}

const char *dtypeTag(DType dtype) {
  auto i = static_cast<size_t>(dtype);
  return i < std::size(kNames) ? kNames[i][1] : "unknown";
}

bool isFloating(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

bool isIntegral(DType dtype, bool includeBool) {
  return dtype == DType::I32 || dtype == DType::I64 ||
         (includeBool && dtype == DType::Bool);
}

DType promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  // f16 and bf16 have no common 16-bit type.
  if ((a == DType::F16 && b == DType::BF16) ||
      (a == DType::BF16 && b == DType::F16))
    return DType::F32;
  // Otherwise the enum order is the promotion lattice:
  // bool < int32 < int64 < {f16, bf16} < f32 < f64.
  return static_cast<uint8_t>(a) > static_cast<uint8_t>(b) ? a : b;
}

DType Scalar::defaultDType() const {
  switch (kind_) {
  case Kind::Bool:
    return DType::Bool;
  case Kind::Int:
    return DType::I64;
  case Kind::Float:
    return DType::F32;
  }
  return DType::F32;
}

std::string Device::str() const {
  return type == DeviceType::CPU ? "cpu" : "cuda:" + std::to_string(index);
}

//===----------------------------------------------------------------------===//
// float <-> float16 / bfloat16, round to nearest even
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

Half::Half(float value) {
  uint32_t x = floatBits(value);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) { // inf or nan
    bits = static_cast<uint16_t>(sign | 0x7c00u |
                                 (absx > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (absx >= 0x477ff000u) { // rounds to >= 65520: overflow to inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (absx < 0x38800000u) { // below the smallest normal half: subnormal
    // Let the FPU round: add a magic number that aligns the half's
    // subnormal ulp (2^-24) with the float's last mantissa bit.
    float f = bitsFloat(absx) + 0.5f;
    bits = static_cast<uint16_t>(sign | (floatBits(f) - floatBits(0.5f)));
    return;
  }
  uint32_t mantOdd = (absx >> 13) & 1u;
  absx += 0xc8000fffu + mantOdd; // rebias exponent (-112 << 23) and round
  bits = static_cast<uint16_t>(sign | (absx >> 13));
}

Half::operator float() const {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0x1f) // inf or nan
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) { // zero or subnormal: mant * 2^-24
    float f = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

} // namespace kiln
