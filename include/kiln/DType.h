//===- kiln/DType.h - Element types, devices and scalars --------*- C++ -*-===//
//
// Element types follow ATen: bool, int32, int64, float16, bfloat16, float32,
// float64. float16 and bfloat16 are storage types: the eager runtime computes
// on them in float32 and rounds the result back.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DTYPE_H
#define KILN_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace kiln {

enum class DType : uint8_t { Bool, I32, I64, F16, BF16, F32, F64 };

constexpr DType kBool = DType::Bool;
constexpr DType kInt32 = DType::I32;
constexpr DType kInt64 = DType::I64;
constexpr DType kFloat16 = DType::F16;
constexpr DType kBFloat16 = DType::BF16;
constexpr DType kFloat32 = DType::F32;
constexpr DType kFloat64 = DType::F64;

/// Size in bytes of one element.
size_t elementSize(DType dtype);
/// The ATen-style name, e.g. "float32".
const char *dtypeName(DType dtype);
/// The short name signatures use ("f32", "i64", "bool"): KILN_RECORD's
/// files, --signature and the guard's warnings.
const char *dtypeTag(DType dtype);
bool isFloating(DType dtype);
/// Integral types, bool included only when asked.
bool isIntegral(DType dtype, bool includeBool);

/// torch.promote_types: the smallest type both operands convert to without
/// leaving their category (bool < integer < floating). float16 with bfloat16
/// gives float32.
DType promoteTypes(DType a, DType b);

/// IEEE binary16, stored as its bits.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float value);
  operator float() const;
};

/// bfloat16 (the upper half of a float32), stored as its bits. The
/// conversions are inline so that loops over tensors vectorize them.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  /// Rounds to nearest even; a NaN stays a (quiet) NaN.
  BFloat16(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    uint32_t quietNan = (x >> 16) | 0x40u;
    bits = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quietNan
                                                                 : rounded);
  }
  operator float() const {
    uint32_t x = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &x, sizeof f);
    return f;
  }
};

/// The DType of a C++ element type.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};
template <> struct DTypeOf<Half> { static constexpr DType value = DType::F16; };
template <> struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::BF16;
};
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};

enum class DeviceType : uint8_t { CPU, CUDA };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  static Device cpu() { return {DeviceType::CPU, 0}; }
  static Device cuda(int index = 0) { return {DeviceType::CUDA, index}; }
  bool operator==(const Device &other) const {
    return type == other.type && index == other.index;
  }
  bool operator!=(const Device &other) const { return !(*this == other); }
  std::string str() const;
};

/// A number that mixes with tensors, like a Python scalar in torch: integers
/// and bools keep their category for type promotion, floats are "floating".
class Scalar {
public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar(bool value) : kind_(Kind::Bool), i_(value ? 1 : 0), d_(value) {}
  // Each integer and floating type by name rather than one constrained
  // template per category: resolving `x * 0.5f`'s operator then deduces no
  // template, which made Clang's parse of long model bodies 3x slower.
  Scalar(char value) : Scalar(Kind::Int, value) {}
  Scalar(signed char value) : Scalar(Kind::Int, value) {}
  Scalar(unsigned char value) : Scalar(Kind::Int, value) {}
  Scalar(wchar_t value) : Scalar(Kind::Int, value) {}
#if defined(__cpp_char8_t)
  Scalar(char8_t value) : Scalar(Kind::Int, value) {}
#endif
  Scalar(char16_t value) : Scalar(Kind::Int, value) {}
  Scalar(char32_t value) : Scalar(Kind::Int, value) {}
  Scalar(short value) : Scalar(Kind::Int, value) {}
  Scalar(unsigned short value) : Scalar(Kind::Int, value) {}
  Scalar(int value) : Scalar(Kind::Int, value) {}
  Scalar(unsigned int value) : Scalar(Kind::Int, value) {}
  Scalar(long value) : Scalar(Kind::Int, value) {}
  Scalar(unsigned long value) : Scalar(Kind::Int, value) {}
  Scalar(long long value) : Scalar(Kind::Int, value) {}
  Scalar(unsigned long long value) : Scalar(Kind::Int, value) {}
  Scalar(float value) : Scalar(Kind::Float, value) {}
  Scalar(double value) : Scalar(Kind::Float, value) {}
  Scalar(long double value) : Scalar(Kind::Float, value) {}

  Kind kind() const { return kind_; }
  bool isFloating() const { return kind_ == Kind::Float; }
  double toDouble() const { return d_; }
  int64_t toInt() const {
    return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_;
  }
  /// The dtype a torch "wrapped number" of this kind has: bool, int64 or
  /// float32 (the default float type).
  DType defaultDType() const;

private:
  template <typename T>
  Scalar(Kind kind, T value)
      : kind_(kind),
        i_(kind == Kind::Int ? static_cast<int64_t>(value) : int64_t(0)),
        d_(static_cast<double>(value)) {}

  Kind kind_;
  int64_t i_;
  double d_;
};

} // namespace kiln

#endif // KILN_DTYPE_H
