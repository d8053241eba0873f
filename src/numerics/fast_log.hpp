// A branch-free fp32 natural logarithm that compilers vectorize (no libm call, no fast-math
// flags): the host kernels' log. x = 2^e * m with m in [sqrt(1/2), sqrt(2)), f = m - 1, a
// polynomial for log1p(f), and log(x) = e ln2 + log1p(f) with ln2 split in two. Measured error
// against fp64 over sampled fp32 arguments: tests/numerics/test_fast_log.cpp asserts it stays <= 3 ulp.
// Special values as log's: log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN, log(inf) = inf;
// subnormal arguments are scaled into the normal range first. The host kernels' blocks of
// positive normal values use the range reduction alone with a shorter polynomial (log1p_tail).
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"

namespace klmini::math {

// x = 2^e m with m in [sqrt(1/2), sqrt(2)), from the bits of a positive normal finite x (any
// other bits give some finite e and f, which the callers select away): e as a float, f = m - 1.
struct LogReduced {
  float e, f;
};
KOKKOS_INLINE_FUNCTION LogReduced reduce_for_log(const std::uint32_t bits) {
  // Bit arithmetic in unsigned (wrapping) integers: special arguments would overflow signed ones.
  // Exponent relative to sqrt(1/2) (0x3f3504f3), so that the mantissa lands in [sqrt(1/2), sqrt(2)).
  const std::int32_t e = static_cast<std::int32_t>(bits - 0x3f3504f3u) >> 23;
  const std::uint32_t m_bits = bits - (static_cast<std::uint32_t>(e) << 23);
  return {float(e), float_of(m_bits) - 1.0f};
}

// (log1p(f) - f) / f^2 on [sqrt(1/2) - 1, sqrt(2) - 1], a degree-7 fit: the host blocks' log,
// log x = e ln2 + f + f^2 r(f), with the e ln2 part summed apart (kernels/shapes.hpp). With r
// in fp32, f + f^2 r(f) is within 1.3e-8 of log1p(f) and averages within 1e-9 of it, on every
// fp32, bf16 and fp16 mantissa (tests/numerics/test_fast_log.cpp): r's rounding reaches the log
// only through f^2 <= 0.18. 8 fused multiply-adds and a product where vector_logf spends 14.
KOKKOS_INLINE_FUNCTION float log1p_tail(const float f) {
  float r = 0.0873266309f;
  r = r * f - 0.144405887f;
  r = r * f + 0.149790704f;
  r = r * f - 0.165525064f;
  r = r * f + 0.199536502f;
  r = r * f - 0.250024855f;
  r = r * f + 0.333342254f;
  return r * f - 0.499999821f;
}

KOKKOS_INLINE_FUNCTION float vector_logf(float x) {
  constexpr float kLn2Hi = 0.693145751953125f;         // ln 2 with the low 12 bits of the significand clear
  constexpr float kLn2Lo = 1.428606765330187045e-06f;  // ln 2 - kLn2Hi
  constexpr float kMinNormal = 1.17549435e-38f;
  const bool subnormal = x < kMinNormal;
  const float x_scaled = x * 8388608.0f;  // 2^23; computed unconditionally, then selected
  const LogReduced r = reduce_for_log(bits_of(subnormal ? x_scaled : x));
  // log1p(f) = f - f^2/2 + f^3 P(f), P a degree-7 least-squares fit (relative error of the
  // sum below 7e-9 on the interval, well under fp32 rounding); no division, so it vectorizes cheaply.
  const float f = r.f;
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
  const float ef = r.e - (subnormal ? 23.0f : 0.0f);
  const float result = ef * kLn2Hi + (log_m + ef * kLn2Lo);
  // Special values, as selects so that the loop stays vectorizable.
  // From their bits: std::numeric_limits is host-only code for nvcc.
  const float inf = float_of(0x7f800000u), nan = float_of(0x7fc00000u);
  float out = x == 0.0f ? -inf : result;
  out = x < 0.0f ? nan : out;
  out = x == inf ? inf : out;
  return x != x ? x : out;  // NaN in, NaN out
}

}  // namespace klmini::math
