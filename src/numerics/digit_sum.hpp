// FixedSum's integer in a form whose additions carry nothing: Words 64-bit words, word i counting
// units of 2^(32 i - 96), each value added as at most three signed 32-bit digits.
//
// A FixedSum's four words carry into each other, so many threads cannot add into one FixedSum in
// memory with atomic operations. A DigitSum's words are independent: a value rounded onto the
// grid 2^-96 (FixedSum's rounding, on_grid) is cut into 32-bit digits, and each digit, with the
// value's sign, goes into its own word. Every word is then an exact sum of integers, which any
// order of atomic additions gives bitwise the same; to_fixed() carries the words into a FixedSum
// once, at the end. The total is the sum of the values each rounded once onto 2^-96, exactly as
// FixedSum has it (the same flags for non-finite values).
//
// Range: values below 2^(32 Words - 128). DigitSum (14 words) has FixedSum's range, 2^320, and is
// the hosts' kernel sum; CompactDigitSum (8 words, range 2^128, every finite fp32) keeps a Cuda
// thread's sum in fewer registers, and a value beyond its range sets kBeyondRange (an error for
// the run, never an infinity). Both carry into the same FixedSum, so where a value is in both
// ranges they give bitwise the same total.
//
// Bound: a digit is below 2^32 in magnitude, so a word stays exact for FixedSum::kMaxValues
// (2^31) additions, counting every value added into any DigitSum that is later joined to it.
// Host and device code; no Kokkos (core/problem.hpp adds the atomic addition and the reduction
// identity).
#pragma once

#include <cstdint>

#include "numerics/fixed_sum.hpp"

namespace klmini {

template <int Words>
struct BasicDigitSum {
  static constexpr int kWords = Words;
  static constexpr int kDigitBits = 32;
  // A value below 2^kRangeExponent spans digits up to word kWords - 2; kMaxValues of them sum
  // below 2^(kRangeExponent + 31), inside FixedSum's range.
  static constexpr int kRangeExponent = kDigitBits * kWords - 128;
  static_assert(kRangeExponent <= FixedSum::kRangeExponent, "the digits fit FixedSum's integer");

  std::uint64_t w[kWords] = {};  // two's complement, word i at bit 32 i
  std::uint64_t flags = 0;       // FixedSum's flags

  BasicDigitSum() = default;
  KOKKOS_INLINE_FUNCTION explicit BasicDigitSum(double x) { add(x); }

  KOKKOS_INLINE_FUNCTION void add(double x) {
    const GridValue g = on_grid(x, kRangeExponent);
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

  KOKKOS_INLINE_FUNCTION void add(const BasicDigitSum& o) {
    for (int i = 0; i < kWords; ++i) w[i] += o.w[i];
    flags |= o.flags;
  }

  KOKKOS_INLINE_FUNCTION BasicDigitSum& operator+=(double x) {
    add(x);
    return *this;
  }
  KOKKOS_INLINE_FUNCTION BasicDigitSum& operator+=(const BasicDigitSum& o) {
    add(o);
    return *this;
  }
  // Kokkos 3.x joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile BasicDigitSum& o) volatile {
    for (int i = 0; i < kWords; ++i) w[i] = w[i] + o.w[i];
    flags = flags | o.flags;
  }

  KOKKOS_INLINE_FUNCTION bool operator==(const BasicDigitSum& o) const {
    bool same = flags == o.flags;
    for (int i = 0; i < kWords; ++i) same = same && w[i] == o.w[i];
    return same;
  }

  // The words carried into one FixedSum (each word a signed 64-bit count: exact).
  KOKKOS_INLINE_FUNCTION FixedSum to_fixed() const {
    FixedSum s;
    for (int i = 0; i < kWords; ++i) s.add_grids(static_cast<std::int64_t>(w[i]), kDigitBits * i);
    s.flags = flags;
    return s;
  }

 private:
  // magnitude * 2^bit, with the sign, as the digits of words bit / 32 and the two above (inside
  // the words for any value in range). Static indices only, for registers on devices.
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

using DigitSum = BasicDigitSum<2 * FixedSum::kWords>;
using CompactDigitSum = BasicDigitSum<8>;

}  // namespace klmini
