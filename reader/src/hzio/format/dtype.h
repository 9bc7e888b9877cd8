/// Sample types (idx-format.md §1.4): `[N*](uint|int|float)BITS[[N]]`, e.g. `float32`,
/// `uint8[3]`, `3*uint8`. Components of a sample are contiguous (array of structs).
#pragma once

#include <cstdint>
#include <string>

namespace hzio {

class DType {
 public:
  enum class Kind { kUnsigned, kSigned, kFloat };

  DType() = default;
  DType(Kind kind, int bits, int components) : kind_(kind), bits_(bits), components_(components) {}
  /// Parses any spelling OpenVisus accepts; throws kInvalidArgument naming the text otherwise.
  static DType Parse(const std::string& text);

  Kind kind() const { return kind_; }
  int bits() const { return bits_; }             // per component
  int components() const { return components_; }
  /// The same type with one component.
  DType Scalar() const { return DType(kind_, bits_, 1); }
  bool ByteAligned() const { return bits_ % 8 == 0; }
  /// Bytes of one sample; only meaningful when ByteAligned().
  int64_t SampleBytes() const { return static_cast<int64_t>(bits_ / 8) * components_; }
  /// Bytes of n samples: ceil(n * components * bits / 8).
  int64_t BytesFor(int64_t samples) const;
  /// Canonical text: `uint8[3]`, `float32`, `int1` (a 1-bit type is never unsigned).
  std::string ToString() const;
  /// PIDX's spelling, components always counted first: "1*float64", "3*float64" (idx-format.md
  /// §1.4 accepts it; PIDX 0.9.3 knows no "type[N]").
  std::string ToCountedString() const;
  /// numpy dtype string of one component, e.g. "<f4", "|u1"; throws kUnsupported if none.
  std::string NumpyDescr() const;

  bool operator==(const DType& o) const { return ToString() == o.ToString(); }

 private:
  Kind kind_ = Kind::kUnsigned;
  int bits_ = 8;
  int components_ = 1;
};

}  // namespace hzio
