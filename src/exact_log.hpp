// The logarithm of precision = "exact": ln(x) in fp64 of an fp32 argument, within 2 fp64 ulp
// (tests/test_numerics.cpp), for about ten fp64 operations and one cached 16-byte table
// load (docs/PERFORMANCE.md has its cost on the H200 and on hosts).
//
// x = 2^e * m with m in [~sqrt(1/2), ~sqrt(2)), both read off x's bits with integer operations:
// the bits are offset by those of the range's lower end (`origin`), so that the exponent field
// of the difference is e and its top TableBits mantissa bits pick the interval of m. The
// interval's table entry {c, T} has c an fp32 value near 1/m, so that r = m * c - 1 is exact in
// fp64 (a 48-bit product) and small, and ln(x) = e ln2 + T + log1p(r) with T = -ln(c). The two
// intervals next to x = 1 (1.0 starts an interval) use c = 1 (T = 0), so that near x = 1
// nothing cancels and the result keeps its relative accuracy. log1p(r) is its Taylor
// polynomial to r^Degree; e * ln2 is one rounded fp64 product (m >= ~sqrt(1/2) keeps the sum
// from cancelling: at most 2^-54 of the result).
//
// exact_log_normal() is that alone, for positive normal finite x: the kernels' hot path, with
// no special-value handling (sum_chunks checks a whole step's elements first). exact_log()
// adds the rest: special values as log's (ln(0) = -inf, ln(x < 0) = NaN, ln(NaN) = NaN,
// ln(inf) = inf), and subnormal arguments scaled into the normal range first.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "bit_cast.hpp"

namespace klmini::math {

// The table has 2^TableBits intervals; log1p is its Taylor polynomial to r^Degree. The
// product's choice is the fastest measured on the H200 (docs/PERFORMANCE.md).
inline constexpr int kExactLogTableBits = 10;
inline constexpr int kExactLogDegree = 5;

// The bits of m's lowest value: 1.0's bits less a whole number of intervals, the number that
// puts it nearest sqrt(1/2) (bits 0x3f3504f3), so that 1.0 starts an interval.
template <int TableBits>
KOKKOS_INLINE_FUNCTION constexpr std::uint32_t exact_log_origin() {
  constexpr std::uint32_t one = 0x3f800000u, width = 1u << (23 - TableBits);
  return one - ((one - 0x3f3504f3u + width / 2) / width) * width;
}

// The table, built on the host: entry i is {c_i, T_i = -ln(c_i)}, 16 bytes (one load on a GPU).
// c_i is the fp32 value nearest the reciprocal of the interval's middle; exactly 1 for the
// intervals on either side of 1.0.
template <int TableBits = kExactLogTableBits>
std::vector<double> exact_log_table() {
  constexpr int size = 1 << TableBits;
  constexpr std::uint32_t width = 1u << (23 - TableBits), origin = exact_log_origin<TableBits>();
  std::vector<double> table(2 * size);
  for (int i = 0; i < size; ++i) {
    const std::uint32_t low = origin + std::uint32_t(i) * width;  // an interval never spans a binade
    const double middle = 0.5 * (double(float_of(low)) + double(float_of(low + width)));
    const bool next_to_one = low == 0x3f800000u || low + width == 0x3f800000u;
    const float c = next_to_one ? 1.0f : static_cast<float>(1.0 / middle);
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

// (log1p(r) - r) / r^2 = -1/2 + r/3 - r^2/4 + ... to r^(Degree-2), by Horner's scheme. (Estrin's
// scheme, half the dependency chain for two more multiplies, was no faster on the H200.)
template <int Degree>
KOKKOS_INLINE_FUNCTION double log1p_tail(double r) {
  double p = (Degree % 2 ? 1.0 : -1.0) / double(Degree);
  for (int k = Degree - 1; k >= 2; --k) p = p * r + (k % 2 ? 1.0 : -1.0) / double(k);
  return p;
}

// Whether x is a positive normal finite fp32 value: the arguments exact_log_normal() takes.
KOKKOS_INLINE_FUNCTION bool positive_normal(float x) {
  return bits_of(x) - 0x00800000u < 0x7f000000u;  // the biased exponent in [1, 254], the sign clear
}

// ln(2^exponent_offset * x) for positive normal finite x (any bits give a finite table index,
// and some double). `table` is exact_log_table<TableBits>()'s data, in memory the caller's
// space can read.
template <int TableBits = kExactLogTableBits, int Degree = kExactLogDegree>
KOKKOS_INLINE_FUNCTION double exact_log_normal(float x, const double* table, int exponent_offset = 0) {
  constexpr double kLn2 = 0.69314718055994530942;  // e * ln2 in one rounding: 2^-54 of the result next to e = -1
  const std::uint32_t bits = bits_of(x);
  const std::int32_t offset_bits = static_cast<std::int32_t>(bits - exact_log_origin<TableBits>());
  const std::int32_t exponent = offset_bits >> 23;  // arithmetic shift: the floor, also below 1
  const int i = (offset_bits >> (23 - TableBits)) & ((1 << TableBits) - 1);
  const std::uint32_t m_bits = bits - (static_cast<std::uint32_t>(exponent) << 23);
  // m as fp64: on GPUs from its bits (one integer multiply-add: an fp32's bits times 2^29 plus
  // the exponent's rebias), on hosts by conversion, which vectorizes better. The same value.
#if defined(__CUDA_ARCH__)
  const double m = double_of(std::uint64_t(m_bits) * (1u << 29) + (std::uint64_t(1023 - 127) << 52));
#else
  const double m = float_of(m_bits);
#endif
  const ExactLogEntry entry = load_entry(table, i);
  const double r = m * entry.c - 1.0;  // exact: a 48-bit product
  const double log1p_r = r + (r * r) * log1p_tail<Degree>(r);  // r - r^2/2 + r^3/3 - ... to r^Degree
  return double(exponent + exponent_offset) * kLn2 + (entry.minus_log_c + log1p_r);
}

// ln(x) for every fp32 x, special values included.
template <int TableBits = kExactLogTableBits, int Degree = kExactLogDegree>
KOKKOS_INLINE_FUNCTION double exact_log(float x, const double* table) {
  constexpr float kMinNormal = 1.17549435e-38f;
  const bool subnormal = x < kMinNormal;
  const double result =
      exact_log_normal<TableBits, Degree>(subnormal ? x * 8388608.0f : x, table, subnormal ? -23 : 0);  // 2^23
  // Special values, as selects so that host loops stay vectorizable; constants from their bits
  // (std::numeric_limits is host-only code for nvcc).
  const double inf = double_of(0x7ff0000000000000ull), nan = double_of(0x7ff8000000000000ull);
  double out = x == 0.0f ? -inf : result;
  out = x < 0.0f ? nan : out;
  out = x == float(inf) ? inf : out;
  return x != x ? double(x) : out;
}

}  // namespace klmini::math
