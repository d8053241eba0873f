// The data of one run on one execution space: this rank's rows of lp and t.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "numerics/binned_sum.hpp"
#include "numerics/dtype.hpp"
#include "numerics/fixed_sum.hpp"

// Lets the host compiler vectorize a loop's fp64 sum into `local` (reassociating it), without
// fast-math.
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define KLMINI_SIMD_SUM_LOCAL _Pragma("omp simd reduction(+ : local)")
#else
#define KLMINI_SIMD_SUM_LOCAL
#endif

namespace klmini {

// What the kernels of an execution space add their units into (kernels/shapes.hpp): an
// order-independent FixedSum, so that the loss is bitwise the same for any ranks, threads and
// shapes; on Cuda a plain fp64 sum unless the build asks for FixedSum (KLMINI_CUDA_FIXED_SUM):
// there its cost against the memory bandwidth is not yet measured on every card.
template <class Space>
struct KernelSumOf {
  using type = FixedSum;
};
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KLMINI_CUDA_FIXED_SUM)
template <>
struct KernelSumOf<Kokkos::Cuda> {
  using type = double;
};
#endif
template <class Space>
using KernelSum = typename KernelSumOf<Space>::type;
template <class Space>
inline constexpr bool kFixedPointSum = std::is_same_v<KernelSum<Space>, FixedSum>;

template <class Space>
constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

// What one thread of a kernel adds its units into before its total joins the kernel's sum: the
// KernelSum itself, except on devices whose KernelSum is a FixedSum, where a thread keeps a
// BinnedSum (the same total, in fp64 additions: numerics/binned_sum.hpp).
template <class Space>
using ThreadAccumulator =
    std::conditional_t<kFixedPointSum<Space> && !is_host_space<Space>(), BinnedSum, KernelSum<Space>>;

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
  // precision = "exact": terms in fp64 with math::exact_log, whose table lives here.
  bool exact = false;
  Kokkos::View<double*, memory_space> log_table;
  // Devices: one sum per row, for the shape that reduces long rows in two kernels.
  Kokkos::View<KernelSum<Space>*, memory_space> row_sums;

  std::int64_t elements() const { return tokens * vocab; }
  // Both matrices as flat arrays (for the element-wise and library variants).
  ConstFlat lp_flat() const { return ConstFlat(lp.data(), elements()); }
  ConstFlat t_flat() const { return ConstFlat(t.data(), elements()); }
};

// Where a kernel leaves its sum (a KernelSum) in the space's memory, so that a launch on a
// device is asynchronous (no copy to the host inside the timed region).
template <class Space>
using Result = Kokkos::View<KernelSum<Space>, typename Space::memory_space>;

// Poison: a sum that no kernel leaves (a flag of its own for a FixedSum).
inline constexpr double kPoisonSum = -1.2345678901234567e300;
KOKKOS_INLINE_FUNCTION void make_poison(FixedSum& s) {
  s = FixedSum();
  s.flags = FixedSum::kPoison;
}
KOKKOS_INLINE_FUNCTION void make_poison(double& s) { s = kPoisonSum; }
inline bool is_poison(const FixedSum& s) { return (s.flags & FixedSum::kPoison) != 0; }
inline bool is_poison(double s) { return s == kPoisonSum; }
inline double to_double(const FixedSum& s) { return s.to_double(); }
inline double to_double(double s) { return s; }

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

template <class Space>
KernelSum<Space> read_sum(const Result<Space>& r) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
  return host();
}

template <class Space>
double read_result(const Result<Space>& r) {
  return to_double(read_sum<Space>(r));
}

// Host spaces give each work item a whole row: one long loop with a private accumulator,
// which the compiler can vectorize. Device spaces give each thread a short segment of a row,
// so that neighbouring threads read neighbouring addresses (coalesced loads).
template <class Space>
std::int64_t segment_width(std::int64_t vocab) {
  return is_host_space<Space>() ? vocab : (vocab < 4 ? vocab : 4);
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

// Where a space's sum is a FixedSum, the units of the row-wise kernels are a row's columns cut
// at every multiple of kUnitColumns (the last unit of a row may be shorter): an item of whole rows
// or of segments whose width is a multiple of it (those the benchmark sweeps) adds the same
// units, so every such shape gives the bitwise same sum. Elsewhere an item is one unit.
inline constexpr std::int64_t kUnitColumns = 512;

// Calls f(row, begin, end) for each unit of `item`.
template <class Space, class F>
KOKKOS_INLINE_FUNCTION void for_each_unit(const RowSegments& seg, const std::int64_t item, const F& f) {
  const std::int64_t row = seg.row(item), end = seg.end(item);
  std::int64_t begin = seg.begin(item);
  if constexpr (kFixedPointSum<Space>) {
    while (begin < end) {
      const std::int64_t next = (begin / kUnitColumns + 1) * kUnitColumns;
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

// FixedSum as a Kokkos sum type (nested reductions start from the identity).
namespace Kokkos {
template <>
struct reduction_identity<klmini::FixedSum> {
  KOKKOS_FORCEINLINE_FUNCTION static klmini::FixedSum sum() { return klmini::FixedSum(); }
};
}  // namespace Kokkos
