// A branch-free fp32 natural logarithm that compilers vectorize (no libm call, no fast-math
// flags): the host kernels' log. x = 2^e * m with m in [sqrt(1/2), sqrt(2)), f = m - 1, a
// polynomial for log1p(f), and log(x) = e ln2 + log1p(f) with ln2 split in two. Measured error
// against fp64 over sampled fp32 arguments: tests/numerics/test_fast_log.cpp asserts it stays <= 3 ulp.
// Special values as log's: log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN, log(inf) = inf;
// subnormal arguments are scaled into the normal range first.
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"

namespace klmini::math {

KOKKOS_INLINE_FUNCTION float vector_logf(float x) {
  constexpr float kLn2Hi = 0.693145751953125f;         // ln 2 with the low 12 bits of the significand clear
  constexpr float kLn2Lo = 1.428606765330187045e-06f;  // ln 2 - kLn2Hi
  constexpr float kMinNormal = 1.17549435e-38f;
  const bool subnormal = x < kMinNormal;
  const float x_scaled = x * 8388608.0f;  // 2^23; computed unconditionally, then selected
  const float scaled = subnormal ? x_scaled : x;
  // Bit arithmetic in unsigned (wrapping) integers: negative and zero arguments (whose results
  // are selected away below) would overflow signed ones.
  const std::uint32_t bits = bits_of(scaled);
  // Exponent relative to sqrt(1/2) (0x3f3504f3), so that the mantissa lands in [sqrt(1/2), sqrt(2)).
  const std::int32_t e = static_cast<std::int32_t>(bits - 0x3f3504f3u) >> 23;
  const std::uint32_t m_bits = bits - (static_cast<std::uint32_t>(e) << 23);
  const float m = float_of(m_bits);
  // log1p(f) = f - f^2/2 + f^3 P(f), P a degree-7 least-squares fit (relative error of the
  // sum below 7e-9 on the interval, well under fp32 rounding); no division, so it vectorizes cheaply.
  const float f = m - 1.0f;
  float p = -0.0736284317f;
  p = p * f + 0.126203134f;
  p = p * f - 0.132021074f;
  p = p * f + 0.142271165f;
  p = p * f - 0.166213698f;
  p = p * f + 0.199998264f;
  p = p * f - 0.250008519f;
  p = p * f + 0.33333354f;
  const float f2 = f * f;
  const float log_m = f - 0.5f * f2 + f2 * f * p;
  const float ef = float(e) - (subnormal ? 23.0f : 0.0f);
  const float result = ef * kLn2Hi + (log_m + ef * kLn2Lo);
  // Special values, as selects so that the loop stays vectorizable.
  // From their bits: std::numeric_limits is host-only code for nvcc.
  const float inf = float_of(0x7f800000u), nan = float_of(0x7fc00000u);
  float r = x == 0.0f ? -inf : result;
  r = x < 0.0f ? nan : r;
  r = x == inf ? inf : r;
  return x != x ? x : r;  // NaN in, NaN out
}

}  // namespace klmini::math
