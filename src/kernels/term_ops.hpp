// The per-element operations every kernel is templated on: an Op maps one (t, lp) pair, already
// converted to fp32, to its term of type Op::value_type (float or double). The kernels sum
// value_types and accumulate in fp64. One Op per precision (deck key `precision`), plus the
// bandwidth ceiling's plain read (the benchmark's alternative logs are in bench_variants.cpp).
#pragma once

#include <type_traits>
#include <vector>

#include "core/problem.hpp"
#include "numerics/exact_log.hpp"
#include "numerics/fast_log.hpp"
#include "numerics/semantics.hpp"

namespace klmini::variants {

// What a thread of a shape on Space adds an Op's units into: the space's ThreadAccumulator
// (core/problem.hpp), or Op::sum_type (the bandwidth probes' plain fp64 sum, so that a ceiling
// times the reads, not the order-independent sum); the kernel's sum takes either.
template <class Op, class Sum, class = void>
struct SumOf {
  using type = Sum;
};
template <class Op, class Sum>
struct SumOf<Op, Sum, std::void_t<typename Op::sum_type>> {
  using type = typename Op::sum_type;
};
template <class Space, class Op>
using ThreadSum = typename SumOf<Op, ThreadAccumulator<Space>>::type;
// What a team reduces its threads' sums in: a thread's own (every ThreadSum has an exact join).
template <class Space, class Op>
using TeamSum = ThreadSum<Space, Op>;

// precision = "fast": the fp32 term with the kernel log (math::kernel_log).
// On hosts, whose log is a polynomial with selects for its special values, the row-wise shapes
// of AVX-512 builds read fp32 units whose t are all positive normal numbers in a form without
// those selects and with a shorter polynomial (host_blocked_partial, shapes.hpp); on devices the
// log's special cases cost nothing.
template <bool LogTarget>
struct KlTermOp {
  using value_type = float;
  static constexpr bool has_host_regular_form = !LogTarget;
  KOKKOS_INLINE_FUNCTION float operator()(float t, float lp) const { return kl_term(t, lp, LogTarget); }
  // The regular form of the term, t (e ln2 + log1p(f)) - t lp for t = 2^e (1 + f), in three sums
  // that no rounding at the magnitude of lp or of e ln2 touches: t e, whose total the caller
  // multiplies by ln 2 in fp64 (no split constant), t lp, and t (f + f^2 r(f)), below 0.35 t
  // (math::log1p_tail). A rounding of each element's log - lp, a function of few distinct pairs
  // for 16-bit inputs, biased their loss (docs/PERFORMANCE.md, Hosts).
  static KOKKOS_INLINE_FUNCTION void add_regular(float& t_e, float& t_lp, float& rest, const float t, const float lp) {
    const math::LogReduced r = math::reduce_for_log(bits_of(t));
    t_e += t * r.e;
    t_lp += t * lp;
    rest += t * (r.f * r.f * math::log1p_tail(r.f) + r.f);
  }
};

// precision = "exact": the term in fp64 from the fp32 values, with math::exact_log (whose table
// and polynomial sizes the benchmark varies; the product uses the defaults).
template <int TableBits = math::kExactLogTableBits, int Degree = math::kExactLogDegree>
struct ExactLog {
  const double* table;
  // Its argument is always an fp32 value widened to fp64 (every input is), so narrowing is exact.
  KOKKOS_INLINE_FUNCTION double operator()(double x) const {
    return math::exact_log<TableBits, Degree>(static_cast<float>(x), table);
  }
};
template <bool LogTarget, int TableBits, int Degree>
struct KlTermExactScratchOp;

// Besides the term of any (t, lp), it offers the chunked kernels (add_chunks) a form for
// `regular` elements, a positive normal t, that skips every special-value case: t log t needs
// no zero case and the log none of its own. The two forms differ only in fp64 rounding.
template <bool LogTarget, int TableBits = math::kExactLogTableBits, int Degree = math::kExactLogDegree>
struct KlTermExactOp {
  using value_type = double;
  static constexpr bool has_regular_form = !LogTarget;
  // Cuda kernels stage the table in team scratch for the regular form (shapes.hpp, GridStride):
  // its bytes there, or 0 where there is no regular form or the copies would not fit a team's
  // 48 KiB.
  static constexpr int scratch_bytes =
      has_regular_form && math::kExactLogCopiesBytes<TableBits> <= 32768 ? math::kExactLogScratchBytes<TableBits> : 0;
  const double* table;  // in global memory
  KOKKOS_INLINE_FUNCTION double operator()(float t, float lp) const {
    return kl_term_with(ExactLog<TableBits, Degree>{table}, double(t), double(lp), LogTarget);
  }
  static KOKKOS_INLINE_FUNCTION bool regular(float t, float /*lp*/) { return math::positive_normal(t); }
  // t (log t - lp): xlogy(t, t) - t lp for t > 0.
  KOKKOS_INLINE_FUNCTION double regular_term(float t, float lp) const {
    return double(t) * (math::exact_log_normal<TableBits, Degree>(t, table) - double(lp));
  }
  // The op whose regular form reads the table from `team`'s scratch, after the team copied it
  // there (every thread of the team must call this).
  template <class Member>
  KOKKOS_INLINE_FUNCTION KlTermExactScratchOp<LogTarget, TableBits, Degree> staged(const Member& team) const;
};

template <bool LogTarget, int TableBits, int Degree>
struct KlTermExactScratchOp : KlTermExactOp<LogTarget, TableBits, Degree> {
  math::ScratchTable scratch;
  KOKKOS_INLINE_FUNCTION double regular_term(float t, float lp) const {
    return double(t) * (math::exact_log_normal<TableBits, Degree>(t, scratch) - double(lp));
  }
};

template <bool LogTarget, int TableBits, int Degree>
template <class Member>
KOKKOS_INLINE_FUNCTION KlTermExactScratchOp<LogTarget, TableBits, Degree>
KlTermExactOp<LogTarget, TableBits, Degree>::staged(const Member& team) const {
  static_assert(scratch_bytes > 0, "the table's copies do not fit a team's scratch");
  // (Values: get_shmem takes references, and static members have no device-side definition.)
  const int bytes = math::kExactLogCopiesBytes<TableBits>, alignment = 16;  // for 16-byte loads
  double* scratch = static_cast<double*>(team.team_shmem().get_shmem_aligned(bytes, alignment));
  math::ScratchTable::fill<TableBits>(scratch, table, team.team_rank(), team.team_size());
  team.team_barrier();
  return {{table}, math::ScratchTable::for_lane(scratch, team.team_rank() % 32)};
}

// The bandwidth ceiling: touch both values, no math; a plain fp64 sum (ThreadSum).
struct ReadOp {
  using value_type = float;
  using sum_type = double;
  KOKKOS_INLINE_FUNCTION float operator()(float t, float lp) const { return t + lp; }
};

// exact_log_table<TableBits>() in a memory space, for KlTermExactOp's `table`: made on first
// use and kept until Kokkos finalizes (a run that takes the exact terms makes it before timing).
template <class MemorySpace, int TableBits = math::kExactLogTableBits>
const double* exact_log_table_on() {
  static Kokkos::View<double*, MemorySpace> table;
  if (table.data() == nullptr) {
    const std::vector<double> host = math::exact_log_table<TableBits>();
    table = Kokkos::View<double*, MemorySpace>("klmini::exact_log_table", host.size());
    Kokkos::deep_copy(table, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                 host.data(), host.size()));
    Kokkos::push_finalize_hook([] { table = {}; });
  }
  return table.data();
}

// Calls f(op) with the term Op of the problem's precision and target form.
template <class Space, class T, class F>
void with_term_op(const Problem<Space, T>& p, F&& f) {
  if (p.precision == Precision::exact) {
    const double* table = exact_log_table_on<typename Space::memory_space>();
    if (p.log_target)
      f(KlTermExactOp<true>{table});
    else
      f(KlTermExactOp<false>{table});
  } else {
    if (p.log_target)
      f(KlTermOp<true>{});
    else
      f(KlTermOp<false>{});
  }
}

}  // namespace klmini::variants
