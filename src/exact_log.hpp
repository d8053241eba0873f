// The logarithm of precision = "exact": ln(x) in fp64 of an fp32 argument, within 2 fp64 ulp
// (tests/test_numerics.cpp), for about a dozen fp64 operations and one cached 16-byte table
// load. On the H200 the fused kernel with it takes 1.6-1.8x the time of the fp32 kernel
// (docs/PERFORMANCE.md: latency-bound at half occupancy), against 2.3-2.4x with CUDA's fp64 log().
//
// x = 2^e * m, m in [1, 2). The top TableBits bits of m's mantissa pick an interval and its
// table entry {c, T}: c is an fp32 value near 1/m, so r = m * c - 1 is exact in fp64 (a 48-bit
// product) and small (|r| < 2^-(TableBits+1), 2^-TableBits next to 1), and
// ln(x) = e ln2 + T + log1p(r) with T = -ln(c). Intervals above sqrt(2) are folded down one
// binade (m/2 in [sqrt(1/2), 1) and e + 1), and the intervals next to 1 on either side use
// c = 1 (T = 0), so that near x = 1 nothing cancels and the result keeps its relative accuracy.
// log1p(r) is its Taylor polynomial to r^Degree; ln2 is split so that e * ln2_hi is exact.
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

// The table has 2^TableBits intervals; log1p is its Taylor polynomial to r^Degree. The
// product's choice (128 entries, 2 KiB, degree 8) was the fastest of those measured on the H200
// (32 entries with degree 10 and 16 with degree 12 were 3-6% slower: docs/PERFORMANCE.md).
inline constexpr int kExactLogTableBits = 7;
inline constexpr int kExactLogDegree = 8;

// Intervals whose m lies above sqrt(2) are folded into the binade below.
template <int TableBits>
KOKKOS_INLINE_FUNCTION constexpr int exact_log_fold_index() {
  // The first interval [1 + i/2^B, ...) that starts at or above sqrt(2) ~ 1.41421.
  int i = 0;
  while (1.0 + double(i) / double(1 << TableBits) < 1.41421356) ++i;
  return i;
}

// The table, built on the host: entry i is {c_i, T_i = -ln(c_i)}, 16 bytes (one load on a GPU).
// c_i is the fp32 value nearest the reciprocal of the interval's middle, doubled for folded
// intervals (whose m is halved); exactly 1 for the first and the folded last interval, the
// neighbours of x = 1, so that nothing cancels there.
template <int TableBits = kExactLogTableBits>
std::vector<double> exact_log_table() {
  constexpr int size = 1 << TableBits;
  std::vector<double> table(2 * size);
  for (int i = 0; i < size; ++i) {
    const bool folded = i >= exact_log_fold_index<TableBits>();
    float c = static_cast<float>((folded ? 2.0 : 1.0) / (1.0 + (i + 0.5) / size));
    if (i == 0 || i == size - 1) c = 1.0f;
    table[2 * i] = c;
    table[2 * i + 1] = -std::log(static_cast<double>(c));
  }
  return table;
}

struct ExactLogEntry {
  double c, minus_log_c;
};

KOKKOS_INLINE_FUNCTION ExactLogEntry load_entry(const double* table, int i) {
#if defined(__CUDA_ARCH__)
  const double2 e = __ldg(reinterpret_cast<const double2*>(table) + i);  // one 16-byte read-only load
  return {e.x, e.y};
#else
  return {table[2 * i], table[2 * i + 1]};
#endif
}

KOKKOS_INLINE_FUNCTION double double_from_bits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// (log1p(r) - r) / r^2 = -1/2 + r/3 - r^2/4 + ... to r^(Degree-2), by Horner's scheme. (Estrin's
// scheme, half the dependency chain for two more multiplies, was no faster on the H200.)
template <int Degree>
KOKKOS_INLINE_FUNCTION double log1p_tail(double r) {
  double p = (Degree % 2 ? 1.0 : -1.0) / double(Degree);
  for (int k = Degree - 1; k >= 2; --k) p = p * r + (k % 2 ? 1.0 : -1.0) / double(k);
  return p;
}

// ln(x) for every fp32 x, special values included. `table` is exact_log_table<TableBits>()'s
// data, in memory the caller's space can read.
template <int TableBits = kExactLogTableBits, int Degree = kExactLogDegree>
KOKKOS_INLINE_FUNCTION double exact_log(float x, const double* table) {
  constexpr float kMinNormal = 1.17549435e-38f;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with its low 32 bits clear: e * kLn2Hi is exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
  const bool subnormal = x < kMinNormal;
  const float scaled = subnormal ? x * 8388608.0f : x;  // 2^23
  std::uint32_t bits;
  std::memcpy(&bits, &scaled, sizeof bits);
  const std::uint32_t mantissa = bits & 0x7fffffu;
  const int i = static_cast<int>(mantissa >> (23 - TableBits));
  constexpr int kFoldIndex = exact_log_fold_index<TableBits>();
  const int folded = i >= kFoldIndex ? 1 : 0;
  const int e = static_cast<int>((bits >> 23) & 0xffu) - 127 - (subnormal ? 23 : 0) + folded;
  // m in [1, 2), halved in folded intervals, and e, as fp64. On GPUs from their bits, because
  // conversion instructions to and from fp64 run at a quarter of the fp64 rate there; on hosts
  // by conversion, which vectorizes better than 64-bit integer arithmetic. The same values.
#if defined(__CUDA_ARCH__)
  const double m = double_from_bits((std::uint64_t(1023 - folded) << 52) | (std::uint64_t(mantissa) << 29));
  const double ed = double_from_bits(0x4330000000000000ull + std::uint64_t(std::int64_t(e) + 1024)) -
                    (4503599627370496.0 + 1024.0);  // 2^52 + (e + 1024), minus 2^52 + 1024: exact
#else
  const std::uint32_t m_bits = mantissa | (std::uint32_t(127 - folded) << 23);
  float m_float;
  std::memcpy(&m_float, &m_bits, sizeof m_float);
  const double m = m_float, ed = e;
#endif
  const ExactLogEntry entry = load_entry(table, i);
  const double r = m * entry.c - 1.0;  // exact: a 48-bit product
  const double log1p_r = r + (r * r) * log1p_tail<Degree>(r);  // r - r^2/2 + r^3/3 - ... to r^Degree
  const double result = ed * kLn2Hi + ((entry.minus_log_c + log1p_r) + ed * kLn2Lo);
  // Special values, as selects so that host loops stay vectorizable; constants from their bits
  // (std::numeric_limits is host-only code for nvcc).
  const double inf = double_from_bits(0x7ff0000000000000ull), nan = double_from_bits(0x7ff8000000000000ull);
  double out = x == 0.0f ? -inf : result;
  out = x < 0.0f ? nan : out;
  out = x == float(inf) ? inf : out;
  return x != x ? double(x) : out;
}

}  // namespace klmini::math
