// An order-independent sum of doubles: every kernel's reduction accumulates into a FixedSum, so
// that the loss is bitwise the same whatever the ranks, threads, teams or launch shape.
//
// Each value added (a kernel's unit: a row's fp64 partial on hosts, a 16-byte chunk's partial
// on devices) is rounded once, to nearest-even, onto the grid 2^-96 and kept as a 448-bit two's
// complement integer (seven 64-bit words). Integer addition is exact, associative and
// commutative, so the total does not depend on the order or the grouping of the additions;
// it is converted to double once, correctly rounded. Non-finite values set sticky flags
// (+inf, -inf, NaN), which map to the result as an IEEE sum would: NaN wins, +inf + -inf is NaN.
//
// Range: values below 2^320 in magnitude are kept, beyond every unit's partial that finite fp32
// inputs give (a term t (log t - lp) stays below 2^257, a unit of at most 2^11 terms below 2^268).
// A finite value beyond the range sets the flag kBeyondRange, which callers turn into an error
// (the run's sum cannot be given), never into an infinity. The integer sum is exact modulo
// 2^448, so the total is right whenever the true total is below 2^351 in magnitude, whatever the
// intermediate sums: any kMaxValues values are.
//
// Error bound, for n values x_i (each exact or rounded once):
//   |to_double() - sum x_i| <= ulp(to_double()) / 2 + n * 2^-97
// (the second term is each value's rounding onto the grid, zero for multiples of 2^-96). The
// rounding inside a unit (fp32 or fp64 additions of its terms) comes on top, as before.
// Host and device code; no Kokkos (core/problem.hpp makes it a Kokkos reduction type).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "numerics/bit_cast.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini {

// A double rounded onto FixedSum's grid 2^-96, to nearest-even: |x| * 2^96 = magnitude * 2^bit
// (magnitude < 2^53), or, for a non-finite x or one beyond the range, the flag it sets
// (FixedSum::kPosInf, kNegInf or kNaN), or, for a finite |x| >= 2^range_exponent, kBeyondRange.
// The one rounding every fixed-point sum here shares.
struct GridValue {
  std::uint64_t magnitude = 0;
  int bit = 0;
  bool negative = false;
  std::uint64_t flag = 0;
};
KOKKOS_INLINE_FUNCTION GridValue on_grid(double x, int range_exponent);

struct FixedSum {
  static constexpr int kWords = 7;
  static constexpr int kFractionBits = 96;  // the grid: 2^-96
  static constexpr std::int64_t kMaxValues = std::int64_t(1) << 31;
  // kMaxValues (2^31) values below 2^kRangeExponent, in grids of 2^-96, stay below the sign bit:
  // kRangeExponent + 31 + 96 = 64 kWords - 1.
  static constexpr int kRangeExponent = 64 * kWords - 128;
  enum : std::uint64_t { kPosInf = 1, kNegInf = 2, kNaN = 4, kPoison = 8, kBeyondRange = 16 };

  std::uint64_t w[kWords] = {0, 0, 0, 0};  // little-endian words
  std::uint64_t flags = 0;

  FixedSum() = default;
  KOKKOS_INLINE_FUNCTION explicit FixedSum(double x) { add(x); }

  // Adds x, rounded onto the grid. (Static indices only: on devices the words stay in registers.)
  KOKKOS_INLINE_FUNCTION void add(double x);

  // Adds n * 2^(bit - 96), n whole: n at bit offset `bit` of the integer (modulo 2^256, as every
  // sum here). BinnedSum's bins enter this way, exactly.
  KOKKOS_INLINE_FUNCTION void add_grids(std::int64_t n, int bit) {
    const std::uint64_t u = static_cast<std::uint64_t>(n), fill = n < 0 ? ~std::uint64_t(0) : 0;
    const int word = bit / 64, shift = bit % 64;
    const std::uint64_t above = shift != 0 ? (u >> (64 - shift)) | (fill << shift) : fill;
    std::uint64_t a[kWords];
    for (int i = 0; i < kWords; ++i) a[i] = i < word ? 0 : i == word ? u << shift : i == word + 1 ? above : fill;
    add_words(a);
  }

  KOKKOS_INLINE_FUNCTION void add(const FixedSum& o) {
    add_words(o.w);
    flags |= o.flags;
  }

  KOKKOS_INLINE_FUNCTION FixedSum& operator+=(double x) {
    add(x);
    return *this;
  }
  KOKKOS_INLINE_FUNCTION FixedSum& operator+=(const FixedSum& o) {
    add(o);
    return *this;
  }
  // Kokkos 3.x joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile FixedSum& o) volatile {
    FixedSum a = load(*this);
    a.add(load(o));
    for (int i = 0; i < kWords; ++i) w[i] = a.w[i];
    flags = a.flags;
  }
  KOKKOS_INLINE_FUNCTION static FixedSum load(const volatile FixedSum& v) {
    FixedSum a;
    for (int i = 0; i < kWords; ++i) a.w[i] = v.w[i];
    a.flags = v.flags;
    return a;
  }

  KOKKOS_INLINE_FUNCTION bool operator==(const FixedSum& o) const {
    bool same = flags == o.flags;
    for (int i = 0; i < kWords; ++i) same = same && w[i] == o.w[i];
    return same;
  }
  KOKKOS_INLINE_FUNCTION bool operator!=(const FixedSum& o) const { return !(*this == o); }

  // Whether a finite value beyond the range entered the sum (then to_double() is NaN).
  bool beyond_range() const { return (flags & kBeyondRange) != 0; }

  // The sum, correctly rounded to double (nearest-even); an exact zero is +0.
  double to_double() const {
    if ((flags & (kNaN | kBeyondRange)) != 0 || (flags & (kPosInf | kNegInf)) == (kPosInf | kNegInf))
      return std::numeric_limits<double>::quiet_NaN();
    if ((flags & kPosInf) != 0) return std::numeric_limits<double>::infinity();
    if ((flags & kNegInf) != 0) return -std::numeric_limits<double>::infinity();
    const bool negative = (w[kWords - 1] >> 63) != 0;
    std::uint64_t mag[kWords];
    std::uint64_t carry = negative ? 1 : 0;
    for (int i = 0; i < kWords; ++i) {
      mag[i] = (negative ? ~w[i] : w[i]) + carry;
      carry = carry != 0 && mag[i] == 0 ? 1 : 0;
    }
    int top = kWords - 1;
    while (top >= 0 && mag[top] == 0) --top;
    if (top < 0) return 0.0;
    const int lz = __builtin_clzll(mag[top]);
    // The 64 bits from the highest set one down, and whether any bit below them is set.
    std::uint64_t window = mag[top] << lz;
    bool sticky = false;
    if (top > 0) {
      if (lz > 0) window |= mag[top - 1] >> (64 - lz);
      sticky = lz > 0 ? (mag[top - 1] << lz) != 0 : mag[top - 1] != 0;
      for (int i = 0; i < top - 1; ++i) sticky = sticky || mag[i] != 0;
    }
    std::uint64_t r = window >> 11;
    const std::uint64_t rem = window & 0x7ff;
    if (rem > 0x400 || (rem == 0x400 && (sticky || (r & 1) != 0))) ++r;
    // window's top bit has weight 2^(64 top + 63 - lz - 96); r's lowest bit is 11 below window's.
    const double v = std::ldexp(double(r), 64 * top + 63 - lz - 52 - kFractionBits);
    return negative ? -v : v;
  }

 private:
  KOKKOS_INLINE_FUNCTION void add_words(const std::uint64_t* a) {
    std::uint64_t carry = 0;
    for (int i = 0; i < kWords; ++i) {
      const std::uint64_t s = w[i] + a[i];
      const std::uint64_t c1 = s < a[i] ? 1 : 0;
      w[i] = s + carry;
      carry = c1 | (w[i] < carry ? 1 : 0);
    }
  }
};

KOKKOS_INLINE_FUNCTION GridValue on_grid(double x, const int range_exponent) {
  const std::uint64_t b = bits_of(x);
  GridValue g;
  g.negative = (b >> 63) != 0;
  int e = int((b >> 52) & 0x7ff);
  std::uint64_t m = b & ((std::uint64_t(1) << 52) - 1);
  if (e == 0x7ff) {
    g.flag = m != 0       ? std::uint64_t(FixedSum::kNaN)
             : g.negative ? std::uint64_t(FixedSum::kNegInf)
                          : std::uint64_t(FixedSum::kPosInf);
    return g;
  }
  if (e >= 1023 + range_exponent) {
    g.flag = FixedSum::kBeyondRange;
    return g;
  }
  if (e == 0)
    e = 1;  // subnormal
  else
    m |= std::uint64_t(1) << 52;
  // |x| * 2^96 = m * 2^s
  const int s = e - 1075 + FixedSum::kFractionBits;
  if (s >= 0) {
    g.magnitude = m;
    g.bit = s;
  } else if (-s < 64) {  // else |x| * 2^96 < 2^-11: rounds to 0
    const int sh = -s;
    const std::uint64_t rem = m & ((std::uint64_t(1) << sh) - 1), half = std::uint64_t(1) << (sh - 1);
    g.magnitude = m >> sh;
    if (rem > half || (rem == half && (g.magnitude & 1) != 0)) ++g.magnitude;
  }
  return g;
}

KOKKOS_INLINE_FUNCTION void FixedSum::add(double x) {
  const GridValue g = on_grid(x, kRangeExponent);
  if (g.flag != 0) {
    flags |= g.flag;
    return;
  }
  const int word = g.bit / 64, bit = g.bit % 64;
  const std::uint64_t lo = g.magnitude << bit, hi = bit != 0 ? g.magnitude >> (64 - bit) : 0;
  std::uint64_t a[kWords];
  for (int i = 0; i < kWords; ++i) a[i] = i == word ? lo : i == word + 1 ? hi : 0;
  if (g.negative) {
    std::uint64_t carry = 1;
    for (int i = 0; i < kWords; ++i) {
      a[i] = ~a[i] + carry;
      carry = carry != 0 && a[i] == 0 ? 1 : 0;
    }
  }
  add_words(a);
}

}  // namespace klmini
