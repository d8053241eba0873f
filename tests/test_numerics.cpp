// The element types' conversions (dtype.hpp) and the exact mode's fp64 log (exact_log.hpp),
// against independent references: the compiler's _Float16 where it has one, rounding written
// out in fp64 otherwise, and libm's fp64 log.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "numerics/dtype.hpp"
#include "numerics/exact_log.hpp"
#include "numerics/series_log.hpp"

namespace {

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

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

// The worst error of exact_log<Bits, Degree> in fp64 ulp over sampled fp32 arguments of every binade.
template <int Bits, int Degree>
double exact_log_worst_ulp(std::uint32_t step) {
  const std::vector<double> table = klmini::math::exact_log_table<Bits>();
  double worst_ulp = 0.0;
  std::uint32_t worst_bits = 0;
  for (std::uint32_t bits = 1; bits < 0x7f800000u; bits += step) {  // every binade, subnormals too
    const float x = float_of(bits);
    const double want = std::log(double(x));
    const double got = klmini::math::exact_log<Bits, Degree>(x, table.data());
    const double ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
    const double err = want == 0.0 ? std::fabs(got) : std::fabs(got - want) / ulp;
    if (err > worst_ulp) {
      worst_ulp = err;
      worst_bits = bits;
    }
  }
  INFO("table bits " << Bits << ", degree " << Degree << ": worst " << worst_ulp << " ulp at x = " << float_of(worst_bits));
  CHECK(worst_ulp <= 2.0);
  return worst_ulp;
}

TEST_CASE("exact_log: within 2 fp64 ulp of libm's log over every binade, special values as log's") {
  exact_log_worst_ulp<klmini::math::kExactLogTableBits, klmini::math::kExactLogDegree>(997);
  // Other table and polynomial sizes (docs/PERFORMANCE.md compares their speed).
  exact_log_worst_ulp<7, 8>(7919);
  exact_log_worst_ulp<8, 7>(7919);
  exact_log_worst_ulp<11, 5>(7919);

  const std::vector<double> table = klmini::math::exact_log_table();
  // Next to 1, where log(x) is small and only a relative error bound means anything.
  for (float x = 0.999f; x < 1.001f; x = std::nextafter(x, 2.0f)) {
    const double want = std::log(double(x));
    REQUIRE(std::fabs(klmini::math::exact_log(x, table.data()) - want) <= 4e-16 * std::fabs(want));
  }
  CHECK(klmini::math::exact_log(1.0f, table.data()) == 0.0);
  CHECK(klmini::math::exact_log(0.0f, table.data()) == -INFINITY);
  CHECK(klmini::math::exact_log(-0.0f, table.data()) == -INFINITY);
  CHECK(std::isnan(klmini::math::exact_log(-1.0f, table.data())));
  CHECK(std::isnan(klmini::math::exact_log(-INFINITY, table.data())));
  CHECK(std::isnan(klmini::math::exact_log(NAN, table.data())));
  CHECK(klmini::math::exact_log(INFINITY, table.data()) == INFINITY);
  CHECK(klmini::math::exact_log(1.4e-45f, table.data()) == std::log(double(1.4e-45f)));  // the smallest subnormal
}

TEST_CASE("exact_log_normal: exact_log's value on exactly the positive normal fp32 numbers") {
  using klmini::math::positive_normal;
  for (const float x : {1.17549435e-38f, 1.0f, 0.75f, 3.0e38f, 3.4028235e38f}) CHECK(positive_normal(x));
  for (const float x : {0.0f, -0.0f, 1.1754942e-38f, 1.4e-45f, -1.0f, -1.17549435e-38f, INFINITY, -INFINITY, NAN})
    CHECK_FALSE(positive_normal(x));
  const std::vector<double> table = klmini::math::exact_log_table();
  for (std::uint32_t bits = 0x00800000u; bits < 0x7f800000u; bits += 4099) {  // same bits, same operations
    const float x = float_of(bits);
    REQUIRE(klmini::math::exact_log_normal(x, table.data()) == klmini::math::exact_log(x, table.data()));
  }
}

TEST_CASE("ScratchTable: every lane slot's copy reads the table's entries, and the log from it is the same") {
  using namespace klmini::math;
  const std::vector<double> table = exact_log_table();
  std::vector<double> scratch(kExactLogCopiesBytes<kExactLogTableBits> / sizeof(double), NAN);  // poisoned
  const int threads = 96;  // any team size: the threads share the words between them
  for (int rank = 0; rank < threads; ++rank) ScratchTable::fill<kExactLogTableBits>(scratch.data(), table.data(), rank, threads);
  for (const double w : scratch) REQUIRE(!std::isnan(w));
  for (int lane = 0; lane < 32; ++lane) {
    const ScratchTable mine = ScratchTable::for_lane(scratch.data(), lane);
    for (std::uint32_t i = 0; i < (1u << kExactLogTableBits); ++i) {
      const ExactLogEntry want = load_entry(table.data(), i), got = mine(i);
      REQUIRE(got.c == want.c);
      REQUIRE(got.minus_log_c == want.minus_log_c);
    }
    for (std::uint32_t bits = 0x00800000u + 977u * std::uint32_t(lane); bits < 0x7f800000u; bits += 65537) {
      const float x = float_of(bits);
      REQUIRE(exact_log_normal(x, mine) == exact_log_normal(x, table.data()));
    }
  }
}

TEST_CASE("series_log (the fp64 reference's log): within 2 ulp of libm's over every binade, special values as log's") {
  std::mt19937_64 gen(20261203);
  double worst_ulp = 0.0, worst_x = 0.0;
  for (int e = -1074; e <= 1023; e += 1) {
    for (int k = 0; k < 64; ++k) {
      const double m = std::uniform_real_distribution<double>(1.0, 2.0)(gen);
      const double x = std::ldexp(m, e);
      if (x == 0.0 || !std::isfinite(x)) continue;
      const double want = std::log(x), got = klmini::math::series_log(x);
      const double ulp = std::fabs(std::nextafter(want, INFINITY) - want);
      const double err = want == 0.0 ? std::fabs(got) : std::fabs(got - want) / ulp;
      if (err > worst_ulp) worst_ulp = err, worst_x = x;
    }
  }
  for (double x = 0.999; x < 1.001; x += 1e-7) {  // next to 1: a relative bound
    const double want = std::log(x);
    REQUIRE(std::fabs(klmini::math::series_log(x) - want) <= 4.5e-16 * std::fabs(want));
  }
  INFO("worst " << worst_ulp << " ulp at x = " << worst_x);
  CHECK(worst_ulp <= 2.0);
  CHECK(klmini::math::series_log(1.0) == 0.0);
  CHECK(klmini::math::series_log(0.0) == -INFINITY);
  CHECK(klmini::math::series_log(-0.0) == -INFINITY);
  CHECK(std::isnan(klmini::math::series_log(-1.0)));
  CHECK(std::isnan(klmini::math::series_log(NAN)));
  CHECK(klmini::math::series_log(INFINITY) == INFINITY);
  CHECK(klmini::math::series_log(4.9e-324) == std::log(4.9e-324));  // the smallest subnormal
}
