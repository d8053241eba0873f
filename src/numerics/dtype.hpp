// The input element types (deck key `dtype`): fp32, bf16 and fp16. The 16-bit types are held as
// their raw bits, so that klmini needs no half-precision support from Kokkos (3.4 .. 5.x differ)
// or the compiler; kernels convert each element to fp32 (exact for both) before any arithmetic.
// Rounding into the 16-bit types (for generated inputs) is round-to-nearest-even, written with
// integer and fp32 operations only, so every backend produces the same bits.
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"

#if defined(__CUDA_ARCH__)
#include <cuda_fp16.h>
#endif

namespace klmini {

struct bf16 {
  std::uint16_t bits;
};
struct fp16 {
  std::uint16_t bits;
};

KOKKOS_INLINE_FUNCTION float to_float(float x) { return x; }

// bf16 is the top half of an fp32.
KOKKOS_INLINE_FUNCTION float to_float(bf16 x) { return float_of(std::uint32_t(x.bits) << 16); }

// fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Subnormals are mantissa * 2^-24, computed
// as an exact fp32 product (no fp32 subnormal appears, so flush-to-zero modes cannot alter it).
KOKKOS_INLINE_FUNCTION float to_float(fp16 x) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(x.bits));
#else
  const std::uint32_t h = x.bits;
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  const float subnormal = float(mantissa) * 5.9604644775390625e-08f;  // 2^-24
  const float normal = float_of(((exponent + 112u) << 23) | (mantissa << 13));
  const float special = float_of(0x7f800000u | (mantissa << 13));  // inf, or NaN with its payload
  const float magnitude = exponent == 0 ? subnormal : (exponent == 31 ? special : normal);
  return float_of(bits_of(magnitude) | sign);
#endif
}

// Round-to-nearest-even from fp32. NaN stays NaN (quiet), overflow becomes infinity.
KOKKOS_INLINE_FUNCTION bf16 to_bf16(float f) {
  const std::uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{std::uint16_t((u >> 16) | 0x0040u)};
  return bf16{std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}

KOKKOS_INLINE_FUNCTION fp16 to_fp16(float f) {
  const std::uint32_t u = bits_of(f);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  std::uint32_t h;
  if (a > 0x7f800000u) {
    h = 0x7e00u;  // NaN
  } else if (a >= 0x477ff000u) {
    h = 0x7c00u;  // 65520 and above round to infinity
  } else if (a < 0x38800000u) {
    // Below fp16's smallest normal (2^-14): adding 0.5 leaves the value's multiple of 2^-24 in
    // the low bits of the sum, rounded to nearest even by the fp32 addition itself.
    h = bits_of(float_of(a) + 0.5f) - 0x3f000000u;
  } else {
    // Rebias the exponent, then round the 13 dropped mantissa bits to nearest even.
    const std::uint32_t odd = (a >> 13) & 1u;
    h = (a - ((127u - 15u) << 23) + 0xfffu + odd) >> 13;
  }
  return fp16{std::uint16_t(h | sign)};
}

// Round an fp64 value into element type T (via fp32 for the 16-bit types).
template <class T>
KOKKOS_INLINE_FUNCTION T from_double(double x);
template <>
KOKKOS_INLINE_FUNCTION double from_double<double>(double x) {  // tests read the generator's fp64 values
  return x;
}
template <>
KOKKOS_INLINE_FUNCTION float from_double<float>(double x) {
  return static_cast<float>(x);
}
template <>
KOKKOS_INLINE_FUNCTION bf16 from_double<bf16>(double x) {
  return to_bf16(static_cast<float>(x));
}
template <>
KOKKOS_INLINE_FUNCTION fp16 from_double<fp16>(double x) {
  return to_fp16(static_cast<float>(x));
}

// Rounding bounds of each type, for checks on values that were rounded into it: the unit
// roundoff u (relative error of a normal number) and half the spacing of its subnormals
// (the absolute error below its normal range).
template <class T>
struct RoundingBounds;
template <>
struct RoundingBounds<float> {
  static constexpr double unit = 5.9604644775390625e-08;      // 2^-24
  static constexpr double subnormal = 7.006492321624085e-46;  // 2^-150
};
template <>
struct RoundingBounds<bf16> {
  static constexpr double unit = 0.00390625;                  // 2^-8
  static constexpr double subnormal = 4.591774807899561e-41;  // 2^-134
};
template <>
struct RoundingBounds<fp16> {
  static constexpr double unit = 0.00048828125;                 // 2^-11
  static constexpr double subnormal = 2.98023223876953125e-08;  // 2^-25
};

// The .npy descr that holds each type: bf16 has no NumPy dtype, so its raw bits are '<u2'.
template <class T>
constexpr const char* npy_descr();
template <>
constexpr const char* npy_descr<float>() {
  return "<f4";
}
template <>
constexpr const char* npy_descr<bf16>() {
  return "<u2";
}
template <>
constexpr const char* npy_descr<fp16>() {
  return "<f2";
}

}  // namespace klmini
