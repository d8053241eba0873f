// fused: the product. One pass over both inputs, one parallel_reduce, fp32 terms accumulated
// in fp64 (a private accumulator per work item, then Kokkos's reduction).
//
// The work item's shape depends on the space:
// * host spaces: a whole row, so that one thread runs one long loop the compiler can vectorize;
// * device spaces: 16-byte chunks of the flat arrays, several per thread and step, so that
//   each thread has independent 16-byte loads in flight (needed to approach HBM bandwidth);
//   when the arrays are not 16-byte aligned or vocab is not a multiple of 4, short row segments
//   with scalar loads instead.
// The kernels are templated on the per-element operation so that the bandwidth ceiling
// (variants/ceiling.hpp) runs exactly the same access pattern with a plain read instead.
#pragma once

#include <cstdint>

#include "../problem.hpp"
#include "../semantics.hpp"

namespace klmini::variants {

// The per-element operations: the KL term, or (for the ceiling) just touching both values.
template <bool LogTarget>
struct KlTermOp {
  KOKKOS_INLINE_FUNCTION static float apply(float t, float lp) { return kl_term(t, lp, LogTarget); }
};
// For the benchmark's comparison of logarithms on devices: the polynomial host log everywhere.
template <bool LogTarget>
struct KlTermPolyLogOp {
  struct PolyLog {
    KOKKOS_INLINE_FUNCTION float operator()(float x) const { return math::vector_logf(x); }
  };
  KOKKOS_INLINE_FUNCTION static float apply(float t, float lp) { return kl_term_with(PolyLog{}, t, lp, LogTarget); }
};
struct ReadOp {
  KOKKOS_INLINE_FUNCTION static float apply(float t, float lp) { return t + lp; }
};

template <class Matrix, class Op>
struct SegmentSums {
  Matrix lp, t;
  RowSegments seg;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = seg.row(item), end = seg.end(item);
    const float* lp_row = &lp(row, 0);
    const float* t_row = &t(row, 0);
    double local = 0.0;
    KLMINI_SIMD_SUM_LOCAL
    for (std::int64_t j = seg.begin(item); j < end; ++j) local += double(Op::apply(t_row[j], lp_row[j]));
    acc += local;
  }
};

struct alignas(16) Chunk4 {
  float v[4];
};

// The work of every chunked shape: Unroll chunks of each array, at first + u * stride, u < Unroll
// (those before `end`). All loads first, then the math, so that the loads are independent and
// overlap in flight. Four fp32 terms are summed in fp32 before the fp64 accumulation: their
// rounding is of the same order as one term's and stays inside the verification bound.
template <int Unroll, class Op>
KOKKOS_INLINE_FUNCTION double sum_chunks(const Chunk4* lp, const Chunk4* t, std::int64_t first, std::int64_t stride,
                                         std::int64_t end) {
  Chunk4 a[Unroll], b[Unroll];
  for (int u = 0; u < Unroll; ++u)
    if (first + u * stride < end) {
      a[u] = lp[first + u * stride];
      b[u] = t[first + u * stride];
    }
  double sum = 0.0;
  for (int u = 0; u < Unroll; ++u)
    if (first + u * stride < end) {
      float part = 0.0f;
      for (int k = 0; k < 4; ++k) part += Op::apply(b[u].v[k], a[u].v[k]);
      sum += double(part);
    }
  return sum;
}

// Item i reads the chunks i + u * stride (u < Unroll): with stride = the item count, the arrays
// are cut into Unroll contiguous parts and neighbouring items read neighbouring chunks of each,
// so every load instruction of a warp is one coalesced 512-byte access; with stride = 1 an
// item reads Unroll consecutive chunks instead.
template <int Unroll, class Op>
struct FlatChunks {
  const Chunk4* lp;
  const Chunk4* t;
  std::int64_t chunks;  // elements / 4
  std::int64_t stride;  // distance between an item's chunks
  std::int64_t spacing; // distance between neighbouring items' first chunks (Unroll or 1)

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    acc += sum_chunks<Unroll, Op>(lp, t, item * spacing, stride, chunks);
  }
};

// One team per row: the team's threads stride over the row's 16-byte chunks, the row's sum is
// reduced in the team, and one thread adds it to the kernel's reduction.
template <class Space, int Unroll, class Op>
struct RowTeams {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk4* lp;
  const Chunk4* t;
  std::int64_t chunks_per_row;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const std::int64_t base = std::int64_t(team.league_rank()) * chunks_per_row;
    const std::int64_t groups = (chunks_per_row + Unroll - 1) / Unroll;
    double row = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, groups),
        [&](const std::int64_t g, double& part) {
          part += sum_chunks<Unroll, Op>(lp, t, base + g * Unroll, 1, base + chunks_per_row);
        },
        row);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += row; });
  }
};

// A persistent grid: `league` teams of `team` threads; every thread strides over the flat
// chunks by the whole grid's width, Unroll chunks of each array per step, with a private fp64
// accumulator that it adds to the kernel's reduction once. All threads sweep the arrays
// together, front to back.
template <class Space, int Unroll, class Op>
struct GridStride {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk4* lp;
  const Chunk4* t;
  std::int64_t chunks;

  KOKKOS_INLINE_FUNCTION void operator()(const member& m, double& acc) const {
    const std::int64_t width = std::int64_t(m.league_size()) * m.team_size();
    std::int64_t c = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
    double local = 0.0;
    for (; c < chunks; c += Unroll * width) local += sum_chunks<Unroll, Op>(lp, t, c, width, chunks);
    acc += local;
  }
};

// Launch shapes, kept as templates so that the benchmark can sweep them.
enum class ChunkOrder { interleaved, consecutive };

template <class Op, int Unroll, ChunkOrder Order = ChunkOrder::interleaved, class... PolicyTraits, class Space>
void run_flat_chunks(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  const std::int64_t chunks = p.elements() / 4;
  const std::int64_t items = (chunks + Unroll - 1) / Unroll;
  const bool interleaved = Order == ChunkOrder::interleaved;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>, PolicyTraits...> policy(0, items);
  Kokkos::parallel_reduce(label, policy,
                          FlatChunks<Unroll, Op>{reinterpret_cast<const Chunk4*>(p.lp.data()),
                                                 reinterpret_cast<const Chunk4*>(p.t.data()), chunks,
                                                 interleaved ? items : 1, interleaved ? 1 : Unroll},
                          out);
}

template <class Op, int Unroll, class Space>
void run_row_teams(const char* label, const Problem<Space>& p, const Result<Space>& out, int team_size) {
  const Kokkos::TeamPolicy<Space> policy(static_cast<int>(p.tokens), team_size);
  Kokkos::parallel_reduce(label, policy,
                          RowTeams<Space, Unroll, Op>{reinterpret_cast<const Chunk4*>(p.lp.data()),
                                                      reinterpret_cast<const Chunk4*>(p.t.data()), p.vocab / 4},
                          out);
}

template <class Op, int Unroll, class Space>
void run_grid_stride(const char* label, const Problem<Space>& p, const Result<Space>& out, int league, int team) {
  Kokkos::parallel_reduce(label, Kokkos::TeamPolicy<Space>(league, team),
                          GridStride<Space, Unroll, Op>{reinterpret_cast<const Chunk4*>(p.lp.data()),
                                                        reinterpret_cast<const Chunk4*>(p.t.data()), p.elements() / 4},
                          out);
}

template <class Op, class Space>
void run_row_segments(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  const RowSegments seg = row_segments(p);
  Kokkos::parallel_reduce(label, row_segment_policy(p, seg), SegmentSums<typename Problem<Space>::Matrix, Op>{p.lp, p.t, seg},
                          out);
}

template <class Space>
bool chunks_apply(const Problem<Space>& p) {
  return !is_host_space<Space>() && p.vocab % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.lp.data()) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(p.t.data()) % 16 == 0;
}

// The production shape for each space, chosen by measurement on the H200
// (docs/PERFORMANCE.md): on devices a persistent grid at half occupancy (teams of 256 threads,
// as many as fill half the resident threads: 528 on an H200), two 16-byte chunks of each
// array per step; on hosts whole rows.
inline constexpr int kDeviceUnroll = 2;
inline constexpr int kDeviceTeam = 256;

template <class Space>
int device_league() {
  const int resident = static_cast<int>(Space().concurrency());
  return resident / (2 * kDeviceTeam) > 0 ? resident / (2 * kDeviceTeam) : 1;
}

template <class Op, class Space>
void run_product_shape(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  if (chunks_apply(p)) run_grid_stride<Op, kDeviceUnroll>(label, p, out, device_league<Space>(), kDeviceTeam);
  else run_row_segments<Op>(label, p, out);
}

template <class Space>
void fused(const Problem<Space>& p, const Result<Space>& out) {
  if (p.log_target) run_product_shape<KlTermOp<true>>("klmini::fused", p, out);
  else run_product_shape<KlTermOp<false>>("klmini::fused", p, out);
}

}  // namespace klmini::variants
