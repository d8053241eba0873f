// A branch-free fp64 natural logarithm that host compilers vectorize: the fp64 reference's log,
// and the input generator's (core/generate.hpp), on hosts and devices alike. It shares no code
// with the kernels' logs (vector_logf, exact_log), so the reference stays an independent check
// of them. x = 2^e * m with m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1),
// log(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...): |s| <= 0.1716, so the terms up to s^23/23
// leave a truncation error below 2^-60 of the result; log(x) = e ln2 + log(m) with ln2 split in
// two. Within 2 ulp of the correctly rounded log (tests/numerics). Special values as log's:
// log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN, log(inf) = inf; subnormal arguments are
// scaled into the normal range first.
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini::math {

KOKKOS_INLINE_FUNCTION double series_log(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with the low 32 bits clear
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
  constexpr double kMinNormal = 2.2250738585072014e-308;
  const bool subnormal = x < kMinNormal;
  const double scaled = subnormal ? x * 18014398509481984.0 : x;  // 2^54
  const std::uint64_t bits = bits_of(scaled);
  // Exponent relative to sqrt(1/2) (0x3fe6a09e667f3bcd), so that m lands in [sqrt(1/2), sqrt(2)).
  // Unsigned shifts and the 2^52 trick for the conversion: AVX2 has neither an arithmetic 64-bit
  // shift nor an int64 -> double conversion, and either would keep the loop scalar.
  const std::uint64_t offset = (bits - 0x3fe6a09e667f3bcdull) >> 52;  // e mod 4096
  const double m = double_of(bits - (offset << 52));
  const double e_mod = double_of(0x4330000000000000ull | offset) - 4503599627370496.0;  // 2^52
  const double e = e_mod >= 2048.0 ? e_mod - 4096.0 : e_mod;
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23;
  p = p * s2 + 1.0 / 21;
  p = p * s2 + 1.0 / 19;
  p = p * s2 + 1.0 / 17;
  p = p * s2 + 1.0 / 15;
  p = p * s2 + 1.0 / 13;
  p = p * s2 + 1.0 / 11;
  p = p * s2 + 1.0 / 9;
  p = p * s2 + 1.0 / 7;
  p = p * s2 + 1.0 / 5;
  p = p * s2 + 1.0 / 3;
  const double log_m = 2.0 * s + 2.0 * s * s2 * p;
  const double ef = e - (subnormal ? 54.0 : 0.0);
  const double result = ef * kLn2Hi + (log_m + ef * kLn2Lo);
  const double inf = double_of(0x7ff0000000000000ull), nan = double_of(0x7ff8000000000000ull);
  double r = x == 0.0 ? -inf : result;
  r = x < 0.0 ? nan : r;
  r = x == inf ? inf : r;
  return x != x ? x : r;  // NaN in, NaN out
}

// As a functor, for kl_term_and_magnitude (semantics.hpp).
struct SeriesLog {
  double operator()(double x) const { return series_log(x); }
};

}  // namespace klmini::math
