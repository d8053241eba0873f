// The data of one run on one execution space: this rank's rows of lp and t.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/backend_spaces.hpp"
#include "host/precision.hpp"
#include "numerics/binned_sum.hpp"
#include "numerics/digit_sum.hpp"
#include "numerics/dtype.hpp"
#include "numerics/fixed_sum.hpp"

// Lets the host compiler vectorize a loop's fp64 sum into `local` (reassociating it), without
// fast-math.
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define KLMINI_SIMD_SUM_LOCAL _Pragma("omp simd reduction(+ : local)")
#else
#define KLMINI_SIMD_SUM_LOCAL
#endif
// Lets the host compiler vectorize a loop whose iterations are independent lanes (no
// reassociation: each lane's arithmetic is as written).
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define KLMINI_SIMD_LANES _Pragma("omp simd")
#else
#define KLMINI_SIMD_LANES
#endif

namespace klmini {

template <class Space>
KOKKOS_INLINE_FUNCTION constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

// What the kernels of every execution space add their units into (kernels/shapes.hpp): an
// order-independent fixed-point sum, exact whatever the order of the additions, so that the
// loss does not depend on how a launch schedules threads and teams, and ranks add exactly
// (Comm::sum). A DigitSum: FixedSum's integer in words that threads can also add into
// atomically (numerics/digit_sum.hpp), so that a kernel of one team per row needs no second
// pass over the rows' sums.
// On devices the compact one (numerics/digit_sum.hpp: fewer registers, range 2^128).
template <class Space>
using KernelSum = std::conditional_t<is_host_space<Space>(), DigitSum, CompactDigitSum>;

// Whether each unit of the kernels is a fixed piece of the data, rounded onto the sum's grid on
// its own (a row's kHostUnitColumns on hosts; on devices a 16-byte chunk, or a row segment's
// columns): then every launch shape, thread count and rank count gives the bitwise same loss.
// Otherwise (the backend table's SumUnits::thread_partials: Cuda, unless the build asks for
// KLMINI_CUDA_FIXED_SUM) a unit is what one thread or one row's team adds up in fp64, which
// depends on the launch shape and, for the persistent grids, on the rows a rank holds.
template <class Space>
inline constexpr bool kFixedUnits = backend_info<Space>().sum_units == SumUnits::fixed;

// What one thread of a kernel adds its units into before its total joins the kernel's sum: the
// KernelSum itself on hosts (a unit is a long row piece); on devices with fixed units a
// BinnedSum (the same total in fp64 additions, cheaper per 16-byte chunk:
// numerics/binned_sum.hpp); else a plain fp64 sum.
template <class Space>
using ThreadAccumulator = std::conditional_t<is_host_space<Space>(), KernelSum<Space>,
                                             std::conditional_t<kFixedUnits<Space>, BinnedSum, double>>;

// T is the input element type (float, bf16 or fp16: dtype.hpp).
template <class Space, class T = float>
struct Problem {
  using execution_space = Space;
  using memory_space = typename Space::memory_space;
  using element_type = T;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, memory_space>;
  using ConstFlat = Kokkos::View<const T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Outputs (the `none` term matrix, the gradient) are fp32 whatever the inputs are.
  using OutMatrix = Kokkos::View<float**, Kokkos::LayoutRight, memory_space>;

  Matrix lp, t;             // tokens x vocab, row-major, unpadded
  std::int64_t tokens = 0;  // rows held here
  std::int64_t vocab = 0;
  bool log_target = false;
  // fast or exact (resolved: never backend_default); exact terms take the log's table from
  // kernels/term_ops.hpp.
  Precision precision = Precision::fast;

  std::int64_t elements() const { return tokens * vocab; }
  // Both matrices as flat arrays (for the element-wise and library variants).
  ConstFlat lp_flat() const { return ConstFlat(lp.data(), elements()); }
  ConstFlat t_flat() const { return ConstFlat(t.data(), elements()); }
};

// Where a kernel leaves its sum (a KernelSum) in the space's memory, so that a launch on a
// device is asynchronous (no copy to the host inside the timed region).
template <class Space>
using Result = Kokkos::View<KernelSum<Space>, typename Space::memory_space>;

// Poison: a sum that no kernel leaves (a flag of its own).
template <class Sum>
KOKKOS_INLINE_FUNCTION void make_poison(Sum& s) {
  s = Sum();
  s.flags = FixedSum::kPoison;
}
inline bool is_poison(const FixedSum& s) { return (s.flags & FixedSum::kPoison) != 0; }

// Adds a team's or thread's part x to the kernel's sum in memory, from any number of threads at
// once: each non-zero word atomically (integer additions: the total is the same in any order).
template <class Space>
KOKKOS_INLINE_FUNCTION void atomic_add_to(const Result<Space>& out, const KernelSum<Space>& x) {
  KernelSum<Space>& to = out();
  for (int i = 0; i < KernelSum<Space>::kWords; ++i)
    if (x.w[i] != 0) Kokkos::atomic_add(&to.w[i], x.w[i]);
  if (x.flags != 0) Kokkos::atomic_fetch_or(&to.flags, x.flags);
}

// Zeroes a kernel's sum before its threads add into it atomically: a memset of the words on the
// launch's stream (no kernel of its own).
template <class Space>
void zero_sum(const Result<Space>& out) {
  static_assert(sizeof(KernelSum<Space>) % sizeof(std::uint64_t) == 0, "a sum is whole words");
  const Kokkos::View<std::uint64_t*, typename Space::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> words(
      reinterpret_cast<std::uint64_t*>(out.data()), sizeof(KernelSum<Space>) / sizeof(std::uint64_t));
  Kokkos::deep_copy(Space(), words, std::uint64_t(0));
}

// Written by a labelled kernel (Kokkos' deep_copy of a scalar would show in Kokkos Tools as an
// anonymous Kokkos::ViewFill).
template <class Space>
void poison(const Result<Space>& r) {
  Kokkos::parallel_for(
      "klmini::poison_result", Kokkos::RangePolicy<Space>(0, 1), KOKKOS_LAMBDA(int) { make_poison(r()); });
}
template <class Space, class Matrix>
void poison(const Matrix& m, typename Matrix::non_const_value_type value, const std::string& kernel_name) {
  const std::int64_t columns = static_cast<std::int64_t>(m.extent(1));
  Kokkos::parallel_for(
      kernel_name, Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, static_cast<std::int64_t>(m.size())),
      KOKKOS_LAMBDA(const std::int64_t i) { m(i / columns, i % columns) = value; });
}

// A kernel's sum, on the host, as one FixedSum.
template <class Space>
FixedSum read_sum(const Result<Space>& r) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  return host().to_fixed();
}

template <class Space>
double read_result(const Result<Space>& r) {
  return read_sum<Space>(r).to_double();
}

// Host spaces give each work item a whole row: one long loop with a private accumulator,
// which the compiler can vectorize. Device spaces give each thread a short segment of a row,
// so that neighbouring threads read neighbouring addresses (coalesced loads).
inline constexpr std::int64_t kDeviceSegmentColumns = 4;
template <class Space>
std::int64_t segment_width(std::int64_t vocab) {
  return is_host_space<Space>() ? vocab : (vocab < kDeviceSegmentColumns ? vocab : kDeviceSegmentColumns);
}

// The work items of the row-wise kernels (fused on hosts and for unaligned data, terms,
// fused_grad): item -> a row and its columns [begin, end), segment_width columns each.
struct RowSegments {
  std::int64_t vocab = 0, width = 1, per_row = 1;
  KOKKOS_INLINE_FUNCTION std::int64_t row(std::int64_t item) const { return item / per_row; }
  KOKKOS_INLINE_FUNCTION std::int64_t begin(std::int64_t item) const { return (item % per_row) * width; }
  KOKKOS_INLINE_FUNCTION std::int64_t end(std::int64_t item) const {
    return begin(item) + width < vocab ? begin(item) + width : vocab;
  }
};

// Where a space has fixed units, the units of the row-wise kernels are a row's columns cut at
// every multiple of unit_columns (the last unit of a row may be shorter): an item of whole rows
// or of segments whose width is a multiple of it (those the benchmark sweeps) adds the same
// units, so every such shape gives the bitwise same sum. On hosts a unit is 512 columns (a long
// vectorized loop); on devices it is the devices' own segment, so that their segment shapes of
// any multiple of its width agree. Elsewhere an item is one unit.
inline constexpr std::int64_t kHostUnitColumns = 512;
template <class Space>
KOKKOS_INLINE_FUNCTION constexpr std::int64_t unit_columns() {
  return is_host_space<Space>() ? kHostUnitColumns : kDeviceSegmentColumns;
}

// The most values a kernel of this space adds into its KernelSum for each row: every unit holds
// at least one of a row's pieces of unit_columns columns (a persistent grid's teams, fewer, add
// one value each).
template <class Space>
constexpr std::int64_t max_units_per_row(std::int64_t vocab) {
  return (vocab + unit_columns<Space>() - 1) / unit_columns<Space>();
}

// Calls f(row, begin, end) for each unit of `item`.
template <class Space, class F>
KOKKOS_INLINE_FUNCTION void for_each_unit(const RowSegments& seg, const std::int64_t item, const F& f) {
  const std::int64_t row = seg.row(item), end = seg.end(item);
  std::int64_t begin = seg.begin(item);
  if constexpr (kFixedUnits<Space>) {
    constexpr std::int64_t columns = unit_columns<Space>();
    while (begin < end) {
      const std::int64_t next = (begin / columns + 1) * columns;
      f(row, begin, next < end ? next : end);
      begin = next;
    }
  } else {
    f(row, begin, end);
  }
}

template <class Space, class T>
RowSegments row_segments(const Problem<Space, T>& p) {
  const std::int64_t width = segment_width<Space>(p.vocab);
  return {p.vocab, width, (p.vocab + width - 1) / width};
}

template <class Space, class T>
Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> row_segment_policy(const Problem<Space, T>& p,
                                                                               const RowSegments& s) {
  return {0, p.tokens * s.per_row};
}

}  // namespace klmini

// DigitSum and BinnedSum as Kokkos sum types (nested reductions start from the identity).
namespace Kokkos {
template <int Words>
struct reduction_identity<klmini::BasicDigitSum<Words>> {
  KOKKOS_FORCEINLINE_FUNCTION static klmini::BasicDigitSum<Words> sum() { return klmini::BasicDigitSum<Words>(); }
};
template <>
struct reduction_identity<klmini::BinnedSum> {
  KOKKOS_FORCEINLINE_FUNCTION static klmini::BinnedSum sum() { return klmini::BinnedSum(); }
};
}  // namespace Kokkos
