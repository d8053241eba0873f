// The element types' conversions (src/numerics/dtype.hpp, their bits: src/numerics/bit_cast.hpp) against independent
// references: the compiler's _Float16 where it has one, and rounding written out in fp64 from each format's definition.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "numerics/bit_cast.hpp"
#include "numerics/dtype.hpp"

using klmini::bits_of;
using klmini::float_of;

namespace {

// Round-to-nearest-even of a finite fp32 value to a grid of spacing `quantum` (a power of two),
// in fp64, where every step is exact.
double round_to_grid(double x, double quantum) {
  const double q = x / quantum;
  double r = std::floor(q);
  const double rest = q - r;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r * quantum;
}

// The value fp16 rounding should give, from the format's definition.
double fp16_reference(float f) {
  const double x = std::fabs(double(f));
  if (x == 0.0) return double(f);
  const int e = std::max(std::ilogb(x), -14);  // below 2^-14: the subnormal grid 2^-24
  const double r = round_to_grid(x, std::ldexp(1.0, e - 10));
  const double v = r >= 65520.0 || r > 65504.0 ? INFINITY : r;
  return std::copysign(v, double(f));
}

}  // namespace

TEST_CASE("bf16: to_float widens the bits; to_bf16 rounds to nearest even") {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = klmini::to_float(klmini::bf16{std::uint16_t(h)});
    REQUIRE(bits_of(f) == h << 16);
    if (!std::isnan(f)) REQUIRE(klmini::to_bf16(f).bits == h);  // every bf16 value survives the round trip
  }
  std::mt19937 gen(12345);
  for (int i = 0; i < 1000000; ++i) {
    const float f = float_of(gen());
    const std::uint16_t got = klmini::to_bf16(f).bits;
    if (std::isinf(f)) continue;
    if (std::isnan(f)) {
      REQUIRE(std::isnan(klmini::to_float(klmini::bf16{got})));
      continue;
    }
    const double x = std::fabs(double(f));
    const double q = x == 0.0 ? 1.0 : std::ldexp(1.0, std::max(std::ilogb(x), -126) - 7);
    double want = std::copysign(round_to_grid(x, q), double(f));
    if (std::fabs(want) > 3.3895313892515355e38) want = std::copysign(INFINITY, want);  // past bf16's max
    INFO("f = " << f << " bits " << bits_of(f));
    REQUIRE(double(klmini::to_float(klmini::bf16{got})) == want);
  }
  CHECK(klmini::to_bf16(1.0f).bits == 0x3f80);
  CHECK(klmini::to_bf16(float_of(0x3f808000u)).bits == 0x3f80);  // a tie rounds to even (down)
  CHECK(klmini::to_bf16(float_of(0x3f818000u)).bits == 0x3f82);  // a tie rounds to even (up)
}

TEST_CASE("fp16: every value converts exactly; to_fp16 rounds to nearest even, overflow to infinity") {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = klmini::to_float(klmini::fp16{std::uint16_t(h)});
    const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 31) {
      REQUIRE((mantissa == 0 ? std::isinf(f) : std::isnan(f)));
      if (mantissa == 0) REQUIRE(std::signbit(f) == bool(h & 0x8000));
      continue;
    }
    const double want = sign * (exponent == 0 ? std::ldexp(double(mantissa), -24)
                                              : std::ldexp(1.0 + mantissa / 1024.0, int(exponent) - 15));
    REQUIRE(double(f) == want);
    REQUIRE(klmini::to_fp16(f).bits == h);  // round trip, -0 included
#if defined(__FLT16_MAX__)
    _Float16 native;
    const std::uint16_t bits16 = std::uint16_t(h);
    std::memcpy(&native, &bits16, sizeof native);
    REQUIRE(float(native) == f);
#endif
  }
  std::mt19937 gen(54321);
  for (int i = 0; i < 1000000; ++i) {
    // Mostly values near fp16's range, where the rounding cases are.
    const std::uint32_t u = (i % 4 == 0) ? gen() : ((gen() & 0x80000000u) | (0x33000000u + gen() % 0x14800000u));
    const float f = float_of(u);
    if (std::isinf(f)) continue;
    if (std::isnan(f)) {
      REQUIRE(std::isnan(klmini::to_float(klmini::to_fp16(f))));
      continue;
    }
    INFO("f = " << f << " bits " << u);
    REQUIRE(double(klmini::to_float(klmini::to_fp16(f))) == fp16_reference(f));
#if defined(__FLT16_MAX__)
    const _Float16 native = static_cast<_Float16>(f);
    std::uint16_t native_bits;
    std::memcpy(&native_bits, &native, sizeof native_bits);
    REQUIRE(klmini::to_fp16(f).bits == native_bits);
#endif
  }
  CHECK(klmini::to_fp16(65504.0f).bits == 0x7bff);
  CHECK(klmini::to_fp16(65519.99f).bits == 0x7bff);
  CHECK(klmini::to_fp16(65520.0f).bits == 0x7c00);
  CHECK(klmini::to_fp16(5.9604645e-08f).bits == 0x0001);  // 2^-24, the smallest subnormal
  CHECK(klmini::to_fp16(2.9802322e-08f).bits == 0x0000);  // 2^-25: a tie, to even (zero)
}
