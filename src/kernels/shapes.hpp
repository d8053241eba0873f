// The launch shapes of the chunked and row-wise kernels, templated on the per-element operation
// (term_ops.hpp: the term in either precision, or for the bandwidth probes, probes/ceiling.hpp,
// the same access pattern with a plain read instead) and on the input element type.
//
// The shapes a loss kernel may take on each space (shape_candidates, at the end of this file):
// * host spaces: a whole row per work item, so that one thread runs one long loop the compiler
//   can vectorize, or rows cut into 2048-column segments;
// * device spaces: persistent grids over 16-byte chunks of the flat arrays, several per thread
//   and step, so that each thread has independent 16-byte loads in flight (needed to approach
//   HBM bandwidth), or one team per row in a parallel_for, then a sum over the rows' sums;
//   when the arrays are not 16-byte aligned or vocab is not a multiple of the chunk's lanes,
//   short row segments with scalar loads instead.
// Which of them is fastest depends on the card, the row length and the element type
// (docs/PERFORMANCE.md), so fused times them in its run (run/runner.hpp). The alternatives only
// the benchmark sweeps (flat chunks, row teams in one parallel_reduce, grid blocks) are in
// bench/experimental_shapes.hpp, built from the loops here.
//
// Every shape adds its units' partials into the space's KernelSum (core/problem.hpp): a
// work item's fp64 partial for the row-wise shapes (on hosts a whole row, whatever the threads
// or ranks), a 16-byte chunk's partial for the chunked ones. A unit's partial is computed by the
// same code whatever shape reads it, so where the KernelSum is a FixedSum (one rounding onto its
// grid per unit, then exact integer sums) every shape of one unit gives the bitwise same sum,
// however the units are spread over threads, teams and ranks. Inside a thread the units go into
// the space's ThreadAccumulator (on devices a BinnedSum: the same total as a FixedSum's), or for
// the bandwidth probes a plain fp64 sum (ThreadSum, term_ops.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/problem.hpp"
#include "host/launch_shapes.hpp"
#include "kernels/term_ops.hpp"

// A unit's partial (a row segment's, a chunk's) on hosts: one out-of-line copy, called by every
// shape, space and thread, so that the compiler's vectorization and fused multiply-adds are the
// same for every unit whatever runs it. Inlined on devices.
#if defined(__CUDA_ARCH__)
#define KLMINI_UNIT_FUNCTION KOKKOS_INLINE_FUNCTION
#else
#define KLMINI_UNIT_FUNCTION KOKKOS_FUNCTION __attribute__((noinline))
#endif

namespace klmini::variants {

// Whether an Op offers the host loops a cheaper form for blocks of regular elements (KlTermOp).
template <class Op, class = void>
struct HasHostRegularForm {
  static constexpr bool value = false;
};
template <class Op>
struct HasHostRegularForm<Op, std::void_t<decltype(Op::has_host_regular_form)>> {
  static constexpr bool value = Op::has_host_regular_form;
};

// A host unit's partial, fp32 elements j to end, for an Op with a host regular form: when every
// t of the unit is a positive normal number (one pass over its t, in cache for the next), blocks
// of kRounds x kLanes elements in that form (Op::add_regular), lane k of a block adding its
// kRounds terms' parts in fp32 (3 roundings of a term's order, inside the verification's 8 u per
// term), then into its own fp64 sums; the other units, and a unit's tail after its last whole
// block, element by element in fp64 as the general loop. The lanes are an AVX-512 register's 16
// fp32 (two AVX2 registers), and the fp32 sums keep the conversions to fp64 out of the element
// loop. The order of every addition is fixed by the unit alone, so its partial is the same
// whatever shape reads it.
template <class Op>
KOKKOS_INLINE_FUNCTION double host_blocked_partial(const Op& op, const float* t, const float* lp, std::int64_t j,
                                                   const std::int64_t end) {
  constexpr int kLanes = 16, kRounds = 4, kBlock = kLanes * kRounds;
  constexpr double kLn2 = 0.6931471805599453;
  std::uint32_t worst = 0;  // the largest math::normal_offset of the unit's t
  for (std::int64_t i = j; i < end; ++i) {
    const std::uint32_t offset = math::normal_offset(t[i]);
    worst = offset > worst ? offset : worst;
  }
  double local = 0.0;
  const std::int64_t first = j;
  if (worst < math::kNormalSpan) {
    double lane_t_e[kLanes] = {}, lane_t_lp[kLanes] = {}, lane_rest[kLanes] = {};
    for (; j + kBlock <= end; j += kBlock) {
      float part_t_e[kLanes] = {}, part_t_lp[kLanes] = {}, part_rest[kLanes] = {};  // lanes side by side
      for (int r = 0; r < kRounds; ++r)
        for (int k = 0; k < kLanes; ++k) {
          const std::int64_t i = j + r * kLanes + k;
          Op::add_regular(part_t_e[k], part_t_lp[k], part_rest[k], t[i], lp[i]);
        }
      KLMINI_SIMD_LANES
      for (int k = 0; k < kLanes; ++k) {
        lane_t_e[k] += double(part_t_e[k]);
        lane_t_lp[k] += double(part_t_lp[k]);
        lane_rest[k] += double(part_rest[k]);
      }
    }
    double t_e = 0.0, t_lp = 0.0, rest = 0.0;
    for (int k = 0; k < kLanes; ++k) {
      t_e += lane_t_e[k];
      t_lp += lane_t_lp[k];
      rest += lane_rest[k];
    }
    local = kLn2 * t_e + rest - t_lp;
    // An fp32 part past fp32's range (t lp, t e of huge inputs; no seed deck comes near): the
    // unit again in the general loop, whose fp32 terms are each as the other backends have them.
    if (local - local != 0.0) local = 0.0, j = first;
  }
  KLMINI_SIMD_SUM_LOCAL
  for (std::int64_t i = j; i < end; ++i) local += double(op(t[i], lp[i]));
  return local;
}

// Where the host blocks pay (measured: docs/PERFORMANCE.md, Hosts): fp32 inputs in AVX-512 and
// AVX2 builds (which then give the same bits). With 16-bit inputs the conversions the general
// loop hides cost more than the blocks save.
template <class Space, class Matrix, class Op>
KOKKOS_INLINE_FUNCTION constexpr bool host_blocks_pay() {
#if defined(__AVX512F__) || defined(__AVX2__)
  return is_host_space<Space>() && HasHostRegularForm<Op>::value &&
         std::is_same_v<typename Matrix::non_const_value_type, float>;
#else
  return false;
#endif
}

// A writing kernel's Op (writing.hpp: the `none` terms, the gradient, the copy ceiling) with
// where it writes, one fp32 value per element: the output matrix for the row-wise kernels, its
// 16-byte chunks for the chunked ones. Op maps (t, lp) to the value it adds and, through its
// third argument, the element it writes. The loss kernels' loops run it as they run a loss
// Op, and write beside.
template <class Op, class Out>
struct Writes : Op {
  Out out;
};
template <class Op>
struct IsWriting : std::false_type {};
template <class Op, class Out>
struct IsWriting<Writes<Op, Out>> : std::true_type {};

// Whether Op reads lp (a writing Op may not: the gradient alone needs only t).
template <class Op, class = void>
struct ReadsLp : std::true_type {};
template <class Op>
struct ReadsLp<Op, std::void_t<decltype(Op::reads_lp)>> : std::bool_constant<Op::reads_lp> {};

// The row-wise kernels: a work item is a row segment (RowSegments), its units' partials added
// into the space's KernelSum.
template <class Space, class Matrix, class Op>
struct SegmentSums {
  Matrix lp, t;
  RowSegments seg;
  Op op;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, KernelSum<Space>& acc) const {
    for_each_unit<Space>(
        seg, item, [&](std::int64_t row, std::int64_t begin, std::int64_t end) { acc += partial(row, begin, end); });
  }

  KLMINI_UNIT_FUNCTION double partial(const std::int64_t row, const std::int64_t begin, const std::int64_t end) const {
    const auto* lp_row = &lp(row, 0);
    const auto* t_row = &t(row, 0);
    if constexpr (IsWriting<Op>::value) {
      float* out_row = &op.out(row, 0);
      double local = 0.0;
      KLMINI_SIMD_SUM_LOCAL
      for (std::int64_t j = begin; j < end; ++j)
        local += double(op(to_float(t_row[j]), ReadsLp<Op>::value ? to_float(lp_row[j]) : 0.0f, out_row[j]));
      return local;
    } else if constexpr (host_blocks_pay<Space, Matrix, Op>()) {
      return host_blocked_partial(op, t_row, lp_row, begin, end);
    } else {
      double local = 0.0;
      KLMINI_SIMD_SUM_LOCAL
      for (std::int64_t j = begin; j < end; ++j) local += double(op(to_float(t_row[j]), to_float(lp_row[j])));
      return local;
    }
  }
};

// 16 bytes of elements of type T: the unit of every device load (4 fp32 or 8 bf16/fp16 values).
template <class T>
struct alignas(16) Chunk {
  static constexpr int lanes = 16 / int(sizeof(T));
  T v[lanes];
};

// A host compiler cannot see that a chunk is read only where it was loaded
// (-Wmaybe-uninitialized). The chunked shapes never run on hosts, so the host copy of a step's
// chunks starts zeroed, while device code gets no extra moves.
template <class T>
KOKKOS_INLINE_FUNCTION void zero_on_host([[maybe_unused]] Chunk<T>& c) {
#if !defined(__CUDA_ARCH__)
  c = Chunk<T>{};
#endif
}

// Whether an Op offers a cheaper form for regular elements (KlTermExactOp).
template <class Op, class = void>
struct HasRegularForm {
  static constexpr bool value = false;
};
template <class Op>
struct HasRegularForm<Op, std::void_t<decltype(Op::has_regular_form)>> {
  static constexpr bool value = Op::has_regular_form;
};

// One chunk's partial: its terms summed in Op::value_type in lane order, in the regular form
// when the Op has one and every element of the chunk is regular (one test per chunk instead of
// special-value handling per element).
template <class T, class Op>
KLMINI_UNIT_FUNCTION double chunk_partial(const Op& op, const Chunk<T>& lp, const Chunk<T>& t) {
  auto with = [&](auto term) {
    typename Op::value_type part = 0;
    for (int k = 0; k < Chunk<T>::lanes; ++k) part += term(to_float(t.v[k]), to_float(lp.v[k]));
    return double(part);
  };
  if constexpr (HasRegularForm<Op>::value) {
    bool regular = true;
    for (int k = 0; k < Chunk<T>::lanes; ++k)
      regular &= Op::regular(to_float(t.v[k]), to_float(lp.v[k]));  // no branch per element
    if (regular) return with([&](float tv, float lv) { return op.regular_term(tv, lv); });
  }
  return with([&](float tv, float lv) { return op(tv, lv); });
}

// A writing Op's chunk `index`: its terms summed in lane order, each element's output written to
// the chunk's place in op.out (lanes / 4 fp32 chunks per input chunk).
template <class T, class Op, class Out>
KOKKOS_INLINE_FUNCTION double chunk_partial(const Writes<Op, Out>& op, const Chunk<T>& lp, const Chunk<T>& t,
                                            const std::int64_t index) {
  constexpr int kOutPerIn = Chunk<T>::lanes / 4;
  Chunk<float> o[kOutPerIn];
  typename Op::value_type part = 0;
  for (int k = 0; k < Chunk<T>::lanes; ++k)
    part += op(to_float(t.v[k]), ReadsLp<Op>::value ? to_float(lp.v[k]) : 0.0f, o[k / 4].v[k % 4]);
  for (int q = 0; q < kOutPerIn; ++q) op.out[index * kOutPerIn + q] = o[q];
  return double(part);
}

// The work of every chunked shape: Unroll chunks of each array, at first + u * stride, u < Unroll
// (those before `end`). All loads first, then the math, so that the loads are independent and
// overlap in flight. Each chunk's partial (chunk_partial; for fp32 terms an fp32 sum, a
// rounding of the same order as one term's, inside the verification bound) is added to `sum`
// (into a FixedSum: rounded once onto its grid). A chunk's form never depends on its
// neighbours, so neither does its partial, whatever shape groups the chunks into steps.
// Checked = false: the caller guarantees that every chunk of the step lies before `end`, and the
// step is one straight block of code (no test per chunk), which the compiler interleaves.
// Index: the type of the chunk indices (32-bit ones where a caller knows they fit: fewer registers).
template <class I>
struct Nondeduced {
  using type = I;
};
template <int Unroll, bool Checked = true, class Index = std::int64_t, class Sum, class T, class Op>
KOKKOS_INLINE_FUNCTION void add_chunks(Sum& sum, const Op& op, const Chunk<T>* lp, const Chunk<T>* t,
                                       typename Nondeduced<Index>::type first, typename Nondeduced<Index>::type stride,
                                       typename Nondeduced<Index>::type end) {
  auto in_range = [&](int u) { return !Checked || first + u * stride < end; };
  Chunk<T> a[Unroll], b[Unroll];
  for (int u = 0; u < Unroll; ++u) {
    zero_on_host(a[u]);
    zero_on_host(b[u]);
    if (in_range(u)) {
      if (ReadsLp<Op>::value) a[u] = lp[first + u * stride];
      b[u] = t[first + u * stride];
    }
  }
  for (int u = 0; u < Unroll; ++u)
    if (in_range(u)) {
      if constexpr (IsWriting<Op>::value)
        sum += chunk_partial(op, a[u], b[u], first + u * stride);
      else
        sum += chunk_partial(op, a[u], b[u]);
    }
}

// Item first reads the chunks first, first + stride, ..., first + u * stride for every u with
// first + u * stride < end: whole steps of Unroll chunks without range tests, then at most one
// partial step.
template <int Unroll, class Index = std::int64_t, class Sum, class T, class Op>
KOKKOS_INLINE_FUNCTION void add_sweep(Sum& sum, const Op& op, const Chunk<T>* lp, const Chunk<T>* t,
                                      typename Nondeduced<Index>::type first, typename Nondeduced<Index>::type stride,
                                      typename Nondeduced<Index>::type end) {
  for (; first + (Unroll - 1) * stride < end; first += Unroll * stride)
    add_chunks<Unroll, false, Index>(sum, op, lp, t, first, stride, end);
  if (first < end) add_chunks<Unroll, true, Index>(sum, op, lp, t, first, stride, end);
}

// The end of a team of a parallel_for that sums: the team reduces what each of its threads adds
// up (thread_sum(r), its ThreadSum, for r = its rank; TeamThreadRange gives rank r index r on
// devices) and one thread adds the team's total to the kernel's DigitSum atomically
// (core/problem.hpp: atomic_add_to). Its teams end without the step with which every team of a
// Kokkos parallel_reduce ends (the team's partial stored, a fence, an atomic count): with that
// step, one team per row is slow (docs/PERFORMANCE.md, GPU launch shapes). The launch zeroes
// the sum first (zero_sum).
template <class Space, class Op, class Member, class ThreadPart>
KOKKOS_INLINE_FUNCTION void add_team_sum(const Member& team, const Result<Space>& out, const ThreadPart& thread_sum) {
  using Part = TeamSum<Space, Op>;
  Part team_part{};
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, team.team_size()), [&](const int r, Part& part) { part += thread_sum(r); },
      team_part);
  Kokkos::single(Kokkos::PerTeam(team), [&]() {
    KernelSum<Space> total{};  // a fixed-unit part is exact already; an fp64 part rounds once
    total += team_part;
    atomic_add_to<Space>(out, total);
  });
}

// One team per row in a parallel_for: the team reduces its row and adds the row's sum to the
// kernel's sum (add_team_sum), so that the kernel is the whole sum; without the end of a
// parallel_reduce's teams, long rows read faster than the persistent grid.
template <class Space, int Unroll, class T, class Op>
struct RowSums {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk<T>* lp;
  const Chunk<T>* t;
  std::int64_t chunks_per_row;
  Op op;
  Result<Space> out;

  // Chunk indices within the row are 32-bit (row_shapes_apply checks that they fit): the row's
  // base pointers are formed once, in 64 bits.
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::int64_t base = std::int64_t(team.league_rank()) * chunks_per_row;
    const Chunk<T>* lp_row = lp + base;
    const Chunk<T>* t_row = t + base;
    const int row_chunks = static_cast<int>(chunks_per_row);
    add_team_sum<Space, Op>(team, out, [&](const int r) {
      ThreadSum<Space, Op> sum{};
      add_sweep<Unroll, int>(sum, op, lp_row, t_row, r, team.team_size(), row_chunks);
      return sum;
    });
  }
};

// Whether Cuda kernels stage Op's table in team scratch first (Op::scratch_bytes > 0: the exact
// term's log table, read there without bank conflicts instead of gathered through L1).
template <class Space, class Op, class = void>
struct StagesTable : std::false_type {};
#ifdef KOKKOS_ENABLE_CUDA
template <class Op>
struct StagesTable<Kokkos::Cuda, Op, std::void_t<decltype(Op::scratch_bytes)>>
    : std::bool_constant<(Op::scratch_bytes > 0)> {};
#endif

// A persistent grid: `league` teams of `team` threads; every thread strides over the flat
// chunks by the whole grid's width, Unroll chunks of each array per step, with a private sum
// (ThreadSum); each team adds its threads' total to the kernel's sum once (add_team_sum). All
// threads sweep the arrays together, front to back. (The launch gives the team scratch for a
// staged table.)
template <class Space, int Unroll, class T, class Op>
struct GridStride {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk<T>* lp;
  const Chunk<T>* t;
  std::int64_t chunks;
  Op op;
  Result<Space> out;

  KOKKOS_INLINE_FUNCTION void operator()(const member& m) const {
    if constexpr (StagesTable<Space, Op>::value)
      sweep(m, op.staged(m));
    else
      sweep(m, op);
  }

  template <class AnyOp>
  KOKKOS_INLINE_FUNCTION void sweep(const member& m, const AnyOp& any_op) const {
    const std::int64_t width = std::int64_t(m.league_size()) * m.team_size();
    add_team_sum<Space, AnyOp>(m, out, [&](const int r) {
      ThreadSum<Space, AnyOp> sum{};
      add_sweep<Unroll>(sum, any_op, lp, t, std::int64_t(m.league_rank()) * m.team_size() + r, width, chunks);
      return sum;
    });
  }
};

template <class T, class View>
const Chunk<T>* as_chunks(const View& v) {
  return reinterpret_cast<const Chunk<T>*>(v.data());
}

template <int Unroll, class... PolicyTraits, class Space, class T, class Op>
void run_row_sums(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op,
                  int team_size) {
  zero_sum<Space>(out);
  Kokkos::parallel_for(
      label, Kokkos::TeamPolicy<Space, PolicyTraits...>(static_cast<int>(p.tokens), team_size),
      RowSums<Space, Unroll, T, Op>{as_chunks<T>(p.lp), as_chunks<T>(p.t), p.vocab / Chunk<T>::lanes, op, out});
}

template <int Unroll, class... PolicyTraits, class Space, class T, class Op>
void run_grid_stride(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op, int league,
                     int team) {
  Kokkos::TeamPolicy<Space, PolicyTraits...> policy(league, team);
  if constexpr (StagesTable<Space, Op>::value) policy.set_scratch_size(0, Kokkos::PerTeam(Op::scratch_bytes));
  zero_sum<Space>(out);
  Kokkos::parallel_for(
      label, policy,
      GridStride<Space, Unroll, T, Op>{as_chunks<T>(p.lp), as_chunks<T>(p.t), p.elements() / Chunk<T>::lanes, op, out});
}

// width = 0: the space's own segment width (segment_width).
template <class Space, class T, class Op>
void run_row_segments(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op,
                      std::int64_t width = 0) {
  const RowSegments seg = width > 0 ? RowSegments{p.vocab, width, (p.vocab + width - 1) / width} : row_segments(p);
  Kokkos::parallel_reduce(label, row_segment_policy(p, seg),
                          SegmentSums<Space, typename Problem<Space, T>::Matrix, Op>{p.lp, p.t, seg, op}, out);
}

// Whether the chunked device shapes apply: rows a whole number of 16-byte chunks, both arrays
// 16-byte aligned.
template <class Space, class T, class... Views>
bool chunks_apply(const Problem<Space, T>& p, const Views&... more) {
  auto aligned = [](const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; };
  return !is_host_space<Space>() && p.vocab % Chunk<T>::lanes == 0 && aligned(p.lp.data()) && aligned(p.t.data()) &&
         (aligned(more.data()) && ...);
}

// The launch shapes of the loss kernels (host/launch_shapes.hpp names them). fused runs in the
// shape its run chose among shape_candidates (run/runner.hpp: by trial unless the deck names
// one); the read ceiling times every candidate with a plain read (probes/ceiling.hpp).
// Device shapes: teams of 256 threads; a persistent grid's league fills half the resident
// threads (528 teams on an H100 or H200), a quarter, or all of them. A kernel that stages a
// table takes teams of 1024 threads (one scratch copy per SM) at half occupancy, held to 64
// registers by its launch bounds, and 8 elements per step (for 16-bit types one chunk: two
// would spill). The row shapes give each row one team (RowSums); left alone the compiler gives
// its fp32 loop 56 registers (4 teams an SM: half occupancy), its 16-bit one 80; the lean one
// caps them at 32 (launch bounds of 8 teams an SM: full occupancy), the b5 one at 48 (5 teams),
// each with the most chunks a step that fit without spilling; for fp32 the u8 one takes 8
// chunks a step (94 registers, 2 teams an SM): long rows read fastest with few teams. Two
// wide row shapes give long rows more threads: teams of 512 with 32 elements a thread a step
// (fp32: 8 chunks, 16-bit: 4), and teams of 1024 with 16 (held to 64 registers).
inline constexpr int kDeviceUnroll = 2;
inline constexpr int kDeviceTeam = 256;
inline constexpr int kStagingTeam = 1024;
inline constexpr int kRowSumsUnroll = 4;
// Chunks a step of the lean row shape: 2 of fp32 (16 registers of loads), 1 of 16-bit types,
// whose conversions would otherwise spill under the 32-register cap.
template <class T>
inline constexpr int kLeanRowsUnroll = sizeof(T) == 4 ? 2 : 1;
inline constexpr int kLeanRowsTeamsPerSM = 8;
inline constexpr int kWideTeam = 512;
// Chunks a step of the wide row shapes: 32 elements a thread (teams of 512), 16 (teams of 1024).
template <class T>
inline constexpr int kWideRowsUnroll = 32 / Chunk<T>::lanes;
template <class T>
inline constexpr int kWidestRowsUnroll = 16 / Chunk<T>::lanes;
inline constexpr int kWidestTeam = 1024;
// The farthest a row shape's step reaches, in chunks: the wide shape's fp32 step, which no other
// row shape's (nor a 16-bit one's) exceeds; row_shapes_apply keeps a row's indices clear of it.
inline constexpr int kRowsStepReach = kWideRowsUnroll<float> * kWideTeam;
static_assert(kWidestRowsUnroll<float> * kWidestTeam <= kRowsStepReach &&
              2 * kRowSumsUnroll * kDeviceTeam <= kRowsStepReach);
// The b5 row shape: 4 chunks a step of fp32, 2 of 16-bit types (4 spill under 48 registers).
template <class T>
inline constexpr int kB5RowsUnroll = sizeof(T) == 4 ? 4 : 2;
inline constexpr int kB5RowsTeamsPerSM = 5;
// The rule where no trial chooses (the benchmark's and tests' run_product_shape): fp32 rows
// of at least this many columns read fastest one team per row on the H100 and the H200.
inline constexpr std::int64_t kRowSumsMinVocab = 65536;

// Whether the one-team-per-row shapes apply: chunked rows on a device, the rows fit a league,
// and a row's chunk indices fit 32 bits with a step's reach beyond them.
template <class Space, class T>
bool row_shapes_apply(const Problem<Space, T>& p) {
  const std::int64_t chunks_per_row = p.vocab / Chunk<T>::lanes;
  return chunks_apply(p) && p.tokens <= 2147483647 && chunks_per_row + kRowsStepReach < 2147483647;
}

template <class Space>
int device_league(int team = kDeviceTeam) {
  const int resident = static_cast<int>(Space().concurrency());
  return resident / (2 * team) > 0 ? resident / (2 * team) : 1;
}

template <class Space>
int quarter_league() {
  return device_league<Space>() / 2 > 0 ? device_league<Space>() / 2 : 1;
}

// The shapes a loss kernel with term Op may take on this problem, the rule's first: a tie
// between trials goes to the earlier (fastest_shape).
template <class Space, class T, class Op>
std::vector<LaunchShape> shape_candidates(const Problem<Space, T>& p) {
  using S = LaunchShape;
  if (is_host_space<Space>()) {
    if (p.vocab > 2048) return {S::rows, S::segments_2048};
    return {S::rows};
  }
  if (!chunks_apply(p)) return {S::segments};
  if constexpr (StagesTable<Space, Op>::value) return {S::grid_staged_t1024};
  std::vector<S> shapes{S::grid_u2_half, S::grid_u4_quarter, S::grid_u4_full};
  if (row_shapes_apply(p)) {
    const bool rows_first = sizeof(T) == 4 && p.vocab >= kRowSumsMinVocab;
    shapes.insert(rows_first ? shapes.begin() : shapes.end(), S::rows_u4_t256);
    shapes.push_back(S::rows_t256_lean);
    shapes.push_back(S::rows_t256_b5);
    if (sizeof(T) == 4) shapes.push_back(S::rows_u8_t256);
    shapes.push_back(S::rows_u8_t512);
    shapes.push_back(S::rows_u4_t1024);
  }
  return shapes;
}

template <class Space, class T, class Op>
bool shape_applies(LaunchShape shape, const Problem<Space, T>& p) {
  for (const LaunchShape s : shape_candidates<Space, T, Op>(p))
    if (s == shape) return true;
  return false;
}

// Runs the loss kernel in `shape`, which must be one of shape_candidates (else throws).
template <class Space, class T, class Op>
void run_shape(LaunchShape shape, const char* label, const Problem<Space, T>& p, const Result<Space>& out,
               const Op& op) {
  using S = LaunchShape;
  if (!shape_applies<Space, T, Op>(shape, p))
    throw std::logic_error("launch shape '" + std::string(shape_name(shape)) + "' does not apply to this run");
  switch (shape) {
    case S::rows: return run_row_segments(label, p, out, op, p.vocab);
    case S::segments_2048: return run_row_segments(label, p, out, op, 2048);
    case S::segments: return run_row_segments(label, p, out, op);
    case S::grid_u2_half: return run_grid_stride<kDeviceUnroll>(label, p, out, op, device_league<Space>(), kDeviceTeam);
    case S::grid_u4_quarter: return run_grid_stride<4>(label, p, out, op, quarter_league<Space>(), kDeviceTeam);
    case S::grid_u4_full: return run_grid_stride<4>(label, p, out, op, 2 * device_league<Space>(), kDeviceTeam);
    case S::rows_u4_t256: return run_row_sums<kRowSumsUnroll>(label, p, out, op, kDeviceTeam);
    case S::rows_t256_lean:
      return run_row_sums<kLeanRowsUnroll<T>, Kokkos::LaunchBounds<kDeviceTeam, kLeanRowsTeamsPerSM>>(label, p, out, op,
                                                                                                      kDeviceTeam);
    case S::rows_u8_t256: return run_row_sums<2 * kRowSumsUnroll>(label, p, out, op, kDeviceTeam);
    case S::rows_u8_t512:
      return run_row_sums<kWideRowsUnroll<T>, Kokkos::LaunchBounds<kWideTeam, 1>>(label, p, out, op, kWideTeam);
    case S::rows_u4_t1024:
      return run_row_sums<kWidestRowsUnroll<T>, Kokkos::LaunchBounds<kWidestTeam, 1>>(label, p, out, op, kWidestTeam);
    case S::rows_t256_b5:
      return run_row_sums<kB5RowsUnroll<T>, Kokkos::LaunchBounds<kDeviceTeam, kB5RowsTeamsPerSM>>(label, p, out, op,
                                                                                                  kDeviceTeam);
    case S::grid_staged_t1024:
      if constexpr (StagesTable<Space, Op>::value)
        return run_grid_stride<8 / Chunk<T>::lanes, Kokkos::LaunchBounds<kStagingTeam, 1>>(
            label, p, out, op, device_league<Space>(kStagingTeam), kStagingTeam);
      break;
    case S::automatic: break;
  }
  throw std::logic_error("run_shape: no kernel for launch shape '" + std::string(shape_name(shape)) + "'");
}

// The rule's shape, where no trial chose one.
template <class Space, class T, class Op>
void run_product_shape(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op) {
  run_shape(shape_candidates<Space, T, Op>(p).front(), label, p, out, op);
}

}  // namespace klmini::variants
