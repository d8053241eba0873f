// A thread's private order-independent sum on devices: the same total as adding every value to
// a FixedSum, in fp64 additions instead of 256-bit integer ones.
//
// Adding a double to a FixedSum takes ~150 instructions on a GPU (shifts and selects to place
// its bits, four-word carries); once per 16-byte chunk that would make the fused kernel
// instruction-bound on Hopper. BinnedSum keeps kBins fp64 bins instead, bin k on the grid
// 2^(-96 + kBinBits (kBins - 1 - k)), and splits each value exactly over them: adding then
// subtracting 1.5 * 2^52 grids rounds a value below 2^51 grids to the bin's grid (one fp64
// rounding, to nearest-even), the bin takes that part and the next bins the remainder, down to
// the last bin, whose grid is FixedSum's. Every bin's sum stays exact (a bounded multiple of its
// grid), so the bins hold exactly the sum of the values each rounded once onto 2^-96, as
// FixedSum does: add_to() gives a FixedSum the bitwise same total as adding each value to it.
// Values below 2^24 in magnitude (every chunk of ordinary inputs) start at the bin of grid
// 2^-16: 11 fp64 additions; larger ones, and non-finite ones, take the top bins.
//
// Threads' BinnedSums join exactly (operator+=(BinnedSum)), so a team reduces its threads' bins in
// fp64 and converts only its total.
//
// Bounds: between renormalizations (every kRenormalizeEvery values and joins, each bin's multiple
// of the next coarser grid carried up, exactly) a bin below the top holds less than 2^53 grids; the
// top bin (grid 2^104) is exact while a thread's total stays below 2^157 in magnitude, which
// 2^29 values below CompactDigitSum's range (2^128) cannot exceed. A finite value beyond that
// range makes the total's flag kBeyondRange, as a CompactDigitSum's own would.
#pragma once

#include <cstdint>

#include "numerics/bit_cast.hpp"
#include "numerics/digit_sum.hpp"
#include "numerics/fixed_sum.hpp"

namespace klmini {

struct BinnedSum {
  static constexpr int kBins = 6;
  static constexpr int kBinBits = 40;
  static constexpr int kRenormalizeEvery = 2048;
  static constexpr int kFirstOrdinaryBin = 3;  // grid 2^-16, for values below 2^24
  static_assert(FixedSum::kFractionBits == 96 && kBins * kBinBits >= CompactDigitSum::kRangeExponent + 96 + 16,
                "the bins span FixedSum's grid and CompactDigitSum's range");

  double bin[kBins] = {0, 0, 0, 0, 0, 0};
  int pending = 0;  // values added since the last renormalization
  // Added to the top bin for each value beyond the range: far above any total in range (2^157),
  // of one sign, so that no cancellation removes it.
  static constexpr double kBeyondRangeMark = 0x1p200;

  // 1.5 * 2^52 grids of bin k (literals: static arrays have no device-side storage).
  KOKKOS_INLINE_FUNCTION static constexpr double splitter(int k) {
    return k == 0   ? 0x1.8p156
           : k == 1 ? 0x1.8p116
           : k == 2 ? 0x1.8p76
           : k == 3 ? 0x1.8p36
           : k == 4 ? 0x1.8p-4
                    : 0x1.8p-44;
  }
  // 1 / grid of bin k: a bin's value times it is its whole number of grids.
  KOKKOS_INLINE_FUNCTION static constexpr double inverse_grid(int k) {
    return k == 0 ? 0x1p-104 : k == 1 ? 0x1p-64 : k == 2 ? 0x1p-24 : k == 3 ? 0x1p16 : k == 4 ? 0x1p56 : 0x1p96;
  }

  KOKKOS_INLINE_FUNCTION void add(double x) {
    constexpr double kOrdinary = 0x1p24, kRange = 0x1p128;
    if (x < kOrdinary && -x < kOrdinary) {
      split_from<kFirstOrdinaryBin>(x);
    } else if (x < kRange && -x < kRange) {
      split_from<0>(x);
    } else if (x - x != 0) {  // NaN or an infinity
      bin[0] += x;
    } else {  // beyond CompactDigitSum's range: a mark no sum in range reaches (add_to)
      bin[0] += kBeyondRangeMark;
    }
    if (++pending >= kRenormalizeEvery) renormalize();
  }

  KOKKOS_INLINE_FUNCTION BinnedSum& operator+=(double x) {
    add(x);
    return *this;
  }

  // Joins another thread's bins, exactly, without renormalizing either: a bin below the top
  // holds less than (pending + 1) 2^40 grids (an addition puts at most 2^40 grids into each, a
  // renormalization leaves at most 2^39, a join adds two such bounds), so the joined bins, below
  // (pending + o.pending + 2) 2^40 < 2^53 grids, are exact, and the joined count keeps the bound
  // for the further joins of a team's reduction tree. A join is then kBins fp64 additions, which
  // a team of one row (RowSums) pays at every level of its tree.
  KOKKOS_INLINE_FUNCTION BinnedSum& operator+=(const BinnedSum& o) {
    for (int k = 0; k < kBins; ++k) bin[k] += o.bin[k];
    pending += o.pending + 1;
    if (pending >= kRenormalizeEvery) renormalize();
    return *this;
  }

  // Carries each bin's multiple of the next coarser grid up into that bin (exact).
  KOKKOS_INLINE_FUNCTION void renormalize() {
    for (int k = kBins - 1; k > 0; --k) {
      const double carry = (bin[k] + splitter(k - 1)) - splitter(k - 1);
      bin[k] -= carry;
      bin[k - 1] += carry;
    }
    pending = 0;
  }

  // Adds the bins' total to s (a FixedSum or a DigitSum): each bin is a whole number of its grids
  // below 2^53, placed at its bit offset in s's integer.
  template <class Sum>
  KOKKOS_INLINE_FUNCTION void add_to(Sum& s) const {
    const double top = bin[0];
    if (top - top != 0) {  // NaN or an infinity: only the top bin takes them
      s.add(top);
      return;
    }
    if (top >= kBeyondRangeMark / 2) {
      s.flags |= FixedSum::kBeyondRange;
      return;
    }
    for (int k = 0; k < kBins; ++k)
      s.add_grids(static_cast<std::int64_t>(bin[k] * inverse_grid(k)), kBinBits * (kBins - 1 - k));
  }

 private:
  template <int First>
  KOKKOS_INLINE_FUNCTION void split_from(double rest) {
    for (int k = First; k < kBins - 1; ++k) {
      const double part = (rest + splitter(k)) - splitter(k);
      bin[k] += part;
      rest -= part;
    }
    bin[kBins - 1] += (rest + splitter(kBins - 1)) - splitter(kBins - 1);
  }
};

KOKKOS_INLINE_FUNCTION FixedSum& operator+=(FixedSum& s, const BinnedSum& b) {
  b.add_to(s);
  return s;
}
template <int Words>
KOKKOS_INLINE_FUNCTION BasicDigitSum<Words>& operator+=(BasicDigitSum<Words>& s, const BinnedSum& b) {
  b.add_to(s);
  return s;
}

}  // namespace klmini
