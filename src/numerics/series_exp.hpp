// A branch-free fp64 exponential that host compilers vectorize and that computes the same
// formula on hosts and devices: the input generator's exp (core/generate.hpp), so that its values
// do not depend on a backend's libm. x = n ln2 + r with n = round(x / ln2) and |r| <= ln2 / 2
// (ln2 split in two, so n ln2hi is exact), exp(r) by its Taylor series up to r^13/13! (the next
// term is below 2^-57 of the result), times 2^(n-1) times 2 (so that n = 1024 does not overflow
// the exponent field). Within 2 ulp of the correctly rounded exp for x in [-708, 709.78]
// (tests/numerics); 0 below -708 (where exp's result would leave the normal range), inf above,
// NaN for NaN.
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini::math {

KOKKOS_INLINE_FUNCTION double series_exp(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with the low 32 bits clear
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
  constexpr double kShifter = 6755399441055744.0;        // 1.5 * 2^52: adding it rounds to an integer
  constexpr double kMin = -708.0, kMax = 709.782712893384;
  const double clamped = x < kMin ? kMin : (x > kMax ? kMax : x);  // keeps n in the exponent's range
  const double shifted = clamped * kLog2e + kShifter;
  const double n = shifted - kShifter;
  const double r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // The low bits of `shifted` hold n; 2^(n-1) from them (n - 1 + 1023 lies in [1, 2046]).
  const double half_scale = double_of((bits_of(shifted) - bits_of(kShifter) + 1022) << 52);
  const double result = p * half_scale * 2.0;
  const double inf = double_of(0x7ff0000000000000ull);
  double e = x < kMin ? 0.0 : result;
  e = x > kMax ? inf : e;
  return x != x ? x : e;  // NaN in, NaN out
}

}  // namespace klmini::math
