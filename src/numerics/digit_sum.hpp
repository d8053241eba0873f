// FixedSum's integer in a form whose additions carry nothing: eight 64-bit words, word i counting
// units of 2^(32 i - 96), each value added as at most three signed 32-bit digits.
//
// A FixedSum's four words carry into each other, so many threads cannot add into one FixedSum in
// memory with atomic operations. A DigitSum's words are independent: a value rounded onto the
// grid 2^-96 (FixedSum's rounding, on_grid) is cut into 32-bit digits, and each digit, with the
// value's sign, goes into its own word. Every word is then an exact sum of integers, which any
// order of atomic additions gives bitwise the same; to_fixed() carries the words into a FixedSum
// once, at the end. The total is the sum of the values each rounded once onto 2^-96, exactly as
// FixedSum has it (the same flags for non-finite values, the same range).
//
// Bound: a digit is below 2^32 in magnitude, so a word stays exact for FixedSum::kMaxValues
// (2^31) additions, counting every value added into any DigitSum that is later joined to it.
// Host and device code; no Kokkos (core/problem.hpp adds the atomic addition and the reduction
// identity).
#pragma once

#include <cstdint>

#include "numerics/fixed_sum.hpp"

namespace klmini {

struct DigitSum {
  static constexpr int kWords = 8;
  static constexpr int kDigitBits = 32;
  static_assert(kWords * kDigitBits == FixedSum::kWords * 64, "the digits span FixedSum's integer");

  std::uint64_t w[kWords] = {0, 0, 0, 0, 0, 0, 0, 0};  // two's complement, word i at bit 32 i
  std::uint64_t flags = 0;                             // FixedSum's flags

  DigitSum() = default;
  KOKKOS_INLINE_FUNCTION explicit DigitSum(double x) { add(x); }

  KOKKOS_INLINE_FUNCTION void add(double x) {
    const GridValue g = on_grid(x);
    if (g.flag != 0)
      flags |= g.flag;
    else
      add_placed(g.magnitude, g.bit, g.negative);
  }

  // Adds n * 2^(bit - 96), n whole (FixedSum::add_grids: BinnedSum's bins enter this way).
  KOKKOS_INLINE_FUNCTION void add_grids(std::int64_t n, int bit) {
    const bool negative = n < 0;
    add_placed(negative ? std::uint64_t(0) - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n), bit,
               negative);
  }

  KOKKOS_INLINE_FUNCTION void add(const DigitSum& o) {
    for (int i = 0; i < kWords; ++i) w[i] += o.w[i];
    flags |= o.flags;
  }

  KOKKOS_INLINE_FUNCTION DigitSum& operator+=(double x) {
    add(x);
    return *this;
  }
  KOKKOS_INLINE_FUNCTION DigitSum& operator+=(const DigitSum& o) {
    add(o);
    return *this;
  }
  // Kokkos 3.x joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile DigitSum& o) volatile {
    for (int i = 0; i < kWords; ++i) w[i] = w[i] + o.w[i];
    flags = flags | o.flags;
  }

  KOKKOS_INLINE_FUNCTION bool operator==(const DigitSum& o) const {
    bool same = flags == o.flags;
    for (int i = 0; i < kWords; ++i) same = same && w[i] == o.w[i];
    return same;
  }

  // The words carried into one FixedSum (exact, modulo 2^256 as every sum here).
  KOKKOS_INLINE_FUNCTION FixedSum to_fixed() const {
    FixedSum s;
    for (int i = 0; i < kWords; ++i) s.add_grids(static_cast<std::int64_t>(w[i]), kDigitBits * i);
    s.flags = flags;
    return s;
  }

 private:
  // magnitude * 2^bit, with the sign, as the digits of words bit / 32 and the two above (those
  // beyond the top word drop out: modulo 2^256). Static indices only, for registers on devices.
  KOKKOS_INLINE_FUNCTION void add_placed(std::uint64_t magnitude, int bit, bool negative) {
    const int word = bit / kDigitBits, shift = bit % kDigitBits;
    const std::uint64_t lo = magnitude << shift, hi = shift != 0 ? magnitude >> (64 - shift) : 0;
    const std::uint64_t low_digits = std::uint64_t(0xffffffff);
    for (int i = 0; i < kWords; ++i) {
      const std::uint64_t d = i == word ? lo & low_digits : i == word + 1 ? lo >> 32 : i == word + 2 ? hi : 0;
      w[i] += negative ? std::uint64_t(0) - d : d;
    }
  }
};

}  // namespace klmini
