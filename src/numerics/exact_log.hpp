// The logarithm of precision = "exact": ln(x) in fp64 of an fp32 argument, within 2 fp64 ulp
// (tests/numerics/test_exact_log.cpp), for about ten fp64 operations and one 16-byte table load
// (docs/PERFORMANCE.md has its cost on the H200 and on hosts).
//
// x = 2^e * m with m in [~sqrt(1/2), ~sqrt(2)), both read off x's bits with integer operations:
// the bits are offset by those of the range's lower end (`origin`), so that the exponent field
// of the difference is e and its low 23 bits are m's position above the origin, whose top
// TableBits bits pick the interval of m. The interval's table entry {c, T} has c an fp32 value
// near 1/m, so that r = m * c - 1 is exact in fp64 (a 48-bit product) and small, and
// ln(x) = e ln2 + (T + r q(r)) with T = -ln(c) and q(r) = log1p(r) / r, its Taylor polynomial
// to r^(Degree-1) by Horner's scheme. The two intervals next to x = 1 (1.0 starts an interval)
// use c = 1 (T = 0), so that near x = 1 nothing cancels and the result keeps its relative
// accuracy. e * ln2 is one rounded fp64 product (m >= ~sqrt(1/2) keeps the sum from
// cancelling: at most 2^-54 of the result).
//
// exact_log_normal() is that alone, for positive normal finite x: the kernels' hot path, with
// no special-value handling (add_chunks checks a whole chunk's elements first). exact_log()
// adds the rest: special values as log's (ln(0) = -inf, ln(x < 0) = NaN, ln(NaN) = NaN,
// ln(inf) = inf), and subnormal arguments scaled into the normal range first.
//
// Where the table is read: from global memory (load_entry), or on Cuda from a team's shared
// memory, copied there kExactLogCopies times so that a warp's loads do not conflict in banks
// (ScratchTable; the Cuda kernels stage it, docs/PERFORMANCE.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "numerics/bit_cast.hpp"

namespace klmini::math {

// The table has 2^TableBits intervals; log1p is its Taylor polynomial to r^Degree. 512 entries
// (8 KiB) are the most whose copies fit a Cuda team's scratch (4 x 8 KiB of the 48 KiB a block
// gets); degree 6 keeps that within 2 ulp (1.43 at worst).
inline constexpr int kExactLogTableBits = 9;
inline constexpr int kExactLogDegree = 6;

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

// Entry i of the table in global memory: one 16-byte load through the read-only cache on GPUs.
KOKKOS_INLINE_FUNCTION ExactLogEntry load_entry(const double* table, std::uint32_t i) {
#if defined(__CUDA_ARCH__)
  const double2 e = __ldg(reinterpret_cast<const double2*>(table) + i);
  return {e.x, e.y};
#else
  return {table[2 * i], table[2 * i + 1]};
#endif
}

// The table in a team's scratch (Cuda shared memory), kExactLogCopies copies interleaved: entry
// i of copy s is 16-byte word kExactLogCopies * i + s, and a thread reads the copy of its lane
// slot (lane mod kExactLogCopies). A warp's 16-byte shared loads are served a quarter warp (8
// threads) at a time, 8 bank groups of 16 bytes; with 4 copies, two threads of a quarter warp
// can only meet in a bank group when their entries' parities agree, so a warp's table load
// takes ~8 passes instead of the ~12 L1 wavefronts of the same gather from global memory
// (docs/PERFORMANCE.md, precision = "exact"). 8 copies would take the minimum, 4 passes, but
// only for tables of 256 entries, which need degree 7.
inline constexpr int kExactLogCopies = 4;

// The copies' bytes, and what a team needs to place them (16 more: they start 16-byte aligned).
template <int TableBits>
inline constexpr int kExactLogCopiesBytes = kExactLogCopies*(16 << TableBits);
template <int TableBits>
inline constexpr int kExactLogScratchBytes = kExactLogCopiesBytes<TableBits> + 16;

struct ScratchTable {
  const double* copies;  // the copies' first element
  std::uint32_t start;   // where this thread's copy starts: on Cuda its shared-window byte address, on hosts its word

  // Stages `table` (2^TableBits entries) into `scratch` (kExactLogCopiesBytes bytes): thread
  // `rank` of `threads` copies every threads-th word (the caller synchronizes before reads).
  template <int TableBits>
  KOKKOS_INLINE_FUNCTION static void fill(double* scratch, const double* table, int rank, int threads) {
    for (int w = rank; w < kExactLogCopies << TableBits; w += threads) {
      const int entry = w / kExactLogCopies;
      scratch[2 * w] = table[2 * entry];
      scratch[2 * w + 1] = table[2 * entry + 1];
    }
  }

  KOKKOS_INLINE_FUNCTION static ScratchTable for_lane(const double* scratch, int lane) {
    const double* mine = scratch + 2 * (lane % kExactLogCopies);
#if defined(__CUDA_ARCH__)
    return {scratch, static_cast<std::uint32_t>(__cvta_generic_to_shared(mine))};
#else
    (void)mine;
    return {scratch, static_cast<std::uint32_t>(lane % kExactLogCopies)};
#endif
  }

  KOKKOS_INLINE_FUNCTION ExactLogEntry operator()(std::uint32_t i) const {
#if defined(__CUDA_ARCH__)
    // A 32-bit shared address (the compiler cannot tell that a scratch pointer is shared, and
    // would load through a generic 64-bit one). Volatile: never moved above the fill's barrier.
    double c, minus_log_c;
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];"
                 : "=d"(c), "=d"(minus_log_c)
                 : "r"(start + i * (16 * kExactLogCopies)));
    return {c, minus_log_c};
#else
    const std::uint32_t w = kExactLogCopies * i + start;
    return {copies[2 * w], copies[2 * w + 1]};
#endif
  }
};

// Entry i of a table that a kernel keeps elsewhere (ScratchTable).
template <class Table>
KOKKOS_INLINE_FUNCTION ExactLogEntry load_entry(const Table& table, std::uint32_t i) {
  return table(i);
}

// q(r) = log1p(r) / r = 1 - r/2 + r^2/3 - ... to r^(Degree-1), by Horner's scheme. (Estrin's
// scheme, half the dependency chain for two more multiplies, was no faster on the H200.)
template <int Degree>
KOKKOS_INLINE_FUNCTION double log1p_quotient(double r) {
  double q = (Degree % 2 ? 1.0 : -1.0) / double(Degree);
  for (int k = Degree - 1; k >= 1; --k) q = q * r + (k % 2 ? 1.0 : -1.0) / double(k);
  return q;
}

// x's bits less the smallest normal's: below kNormalSpan exactly when x is a positive normal
// finite fp32 value (the biased exponent in [1, 254], the sign clear). Unsigned, so that a
// loop can test many values at once by their largest offset.
inline constexpr std::uint32_t kNormalSpan = 0x7f000000u;
KOKKOS_INLINE_FUNCTION std::uint32_t normal_offset(float x) { return bits_of(x) - 0x00800000u; }

// Whether x is a positive normal finite fp32 value: the arguments exact_log_normal() takes.
KOKKOS_INLINE_FUNCTION bool positive_normal(float x) { return normal_offset(x) < kNormalSpan; }

// ln(2^exponent_offset * x) for positive normal finite x (any bits give a finite table index,
// and some double). `table` is exact_log_table<TableBits>()'s data in memory the caller's
// space can read, or a ScratchTable of it.
template <int TableBits = kExactLogTableBits, int Degree = kExactLogDegree, class Table>
KOKKOS_INLINE_FUNCTION double exact_log_normal(float x, const Table& table, int exponent_offset = 0) {
  constexpr double kLn2 = 0.69314718055994530942;  // e * ln2 in one rounding: 2^-54 of the result next to e = -1
  constexpr std::uint32_t origin = exact_log_origin<TableBits>();
  const std::int32_t offset_bits = static_cast<std::int32_t>(bits_of(x) - origin);
  const std::int32_t exponent = offset_bits >> 23;  // arithmetic shift: the floor, also below 1
  const std::uint32_t position = static_cast<std::uint32_t>(offset_bits) & 0x7fffffu;  // m's bits above the origin's
  // m as fp64: on GPUs from its bits (an fp32's bits times 2^29 plus the exponent's rebias, the
  // origin's bits folded into the constant), on hosts by conversion, which vectorizes better.
  // The same value.
#if defined(__CUDA_ARCH__)
  // In PTX: written in C++, the multiply by 2^29 became shifts and masks (6 instructions);
  // this way ptxas emits 2.
  constexpr std::uint64_t rebias = (std::uint64_t(origin) << 29) + (std::uint64_t(1023 - 127) << 52);
  std::uint64_t m_bits;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(m_bits) : "r"(position), "r"(1u << 29), "l"(rebias));
  const double m = double_of(m_bits);
#else
  const double m = float_of(origin + position);
#endif
  const ExactLogEntry entry = load_entry(table, position >> (23 - TableBits));
  const double r = m * entry.c - 1.0;  // exact: a 48-bit product
  return double(exponent + exponent_offset) * kLn2 + (log1p_quotient<Degree>(r) * r + entry.minus_log_c);
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
