// The logarithm of precision = "exact": ln(x) in fp64 of an fp32 argument, within 2 fp64 ulp
// (tests/test_numerics.cpp), at a cost a bandwidth-bound kernel can hide (about a dozen fp64
// operations and one cached table load; CUDA's accurate fp64 log() takes about twice as many,
// and an H200's fp64 issue rate only just keeps up with its memory at ~28 per element).
//
// x = 2^e * m, m in [1, 2). The top kExactLogTableBits bits of m's mantissa pick an interval
// and its table entry {c, T}: c is an fp32 value near 1/m, so r = m * c - 1 is exact in fp64
// (a 48-bit product) and small (|r| < 2^-7), and ln(x) = e ln2 + T + log1p(r) with T = -ln(c).
// Intervals above sqrt(2) are folded down one binade (m/2 in [sqrt(1/2), 1) and e + 1), and the
// intervals next to 1 on either side use c = 1 (T = 0), so that near x = 1 nothing cancels and
// the result keeps its relative accuracy. log1p(r) is its Taylor polynomial to r^8
// (truncation below r^9 / 9 < 2^-58 relative); ln2 is split so that e * ln2_hi is exact.
// Special values as log's: ln(0) = -inf, ln(x < 0) = NaN, ln(NaN) = NaN, ln(inf) = inf;
// subnormal arguments are scaled into the normal range first.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini::math {

inline constexpr int kExactLogTableBits = 7;
inline constexpr int kExactLogTableSize = 1 << kExactLogTableBits;
// Intervals from this index up (m >= 1 + 53/128 ~ sqrt(2)) are folded into the binade below.
inline constexpr int kExactLogFoldIndex = 53;

// The table, built on the host: entry i is {c_i, T_i = -ln(c_i)}. c_i is the fp32 value nearest
// the reciprocal of the interval's middle, doubled for folded intervals (whose m is halved);
// exactly 1 for the first and the folded last interval, the neighbours of x = 1.
inline std::vector<double> exact_log_table() {
  std::vector<double> table(2 * kExactLogTableSize);
  for (int i = 0; i < kExactLogTableSize; ++i) {
    const bool folded = i >= kExactLogFoldIndex;
    float c = static_cast<float>((folded ? 2.0 : 1.0) / (1.0 + (i + 0.5) / kExactLogTableSize));
    if (i == 0 || i == kExactLogTableSize - 1) c = 1.0f;
    table[2 * i] = c;
    table[2 * i + 1] = -std::log(static_cast<double>(c));
  }
  return table;
}

KOKKOS_INLINE_FUNCTION double load_table(const double* table, int index) {
#if defined(__CUDA_ARCH__)
  return __ldg(table + index);  // read-only cache: the table is 2 KiB, read by every thread
#else
  return table[index];
#endif
}

// `table` is exact_log_table()'s data, in memory the caller's space can read.
KOKKOS_INLINE_FUNCTION double exact_log(float x, const double* table) {
  constexpr float kMinNormal = 1.17549435e-38f;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with its low 32 bits clear: e * kLn2Hi is exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
  const bool subnormal = x < kMinNormal;
  const float scaled = subnormal ? x * 8388608.0f : x;  // 2^23
  std::uint32_t bits;
  std::memcpy(&bits, &scaled, sizeof bits);
  const std::uint32_t mantissa = bits & 0x7fffffu;
  const int i = static_cast<int>(mantissa >> (23 - kExactLogTableBits));
  const int folded = i >= kExactLogFoldIndex ? 1 : 0;
  const int e = static_cast<int>((bits >> 23) & 0xffu) - 127 - (subnormal ? 23 : 0) + folded;
  // m in [1, 2), halved in folded intervals (exponent 126 instead of 127).
  const std::uint32_t m_bits = mantissa | (static_cast<std::uint32_t>(127 - folded) << 23);
  float m;
  std::memcpy(&m, &m_bits, sizeof m);
  const double c = load_table(table, 2 * i), t = load_table(table, 2 * i + 1);
  const double r = double(m) * c - 1.0;  // exact: a 48-bit product
  double p = -1.0 / 8.0;
  p = p * r + 1.0 / 7.0;
  p = p * r - 1.0 / 6.0;
  p = p * r + 1.0 / 5.0;
  p = p * r - 1.0 / 4.0;
  p = p * r + 1.0 / 3.0;
  p = p * r - 1.0 / 2.0;
  const double log1p_r = r + (r * r) * p;
  const double ed = double(e);
  const double result = ed * kLn2Hi + ((t + log1p_r) + ed * kLn2Lo);
  // Special values, as selects so that host loops stay vectorizable.
  // From their bits: std::numeric_limits is host-only code for nvcc.
  const std::uint64_t inf_bits = 0x7ff0000000000000ull, nan_bits = 0x7ff8000000000000ull;
  double inf, nan;
  std::memcpy(&inf, &inf_bits, sizeof inf);
  std::memcpy(&nan, &nan_bits, sizeof nan);
  double out = x == 0.0f ? -inf : result;
  out = x < 0.0f ? nan : out;
  out = x == float(inf) ? inf : out;
  return x != x ? double(x) : out;
}

}  // namespace klmini::math
