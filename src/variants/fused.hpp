// fused: the product. One pass over both inputs, one parallel_reduce, fp32 terms accumulated
// in fp64 (a private accumulator per work item, then Kokkos's reduction).
//
// The work item's shape depends on the space:
// * host spaces: a whole row, so that one thread runs one long loop the compiler can vectorize;
// * device spaces: Unroll 16-byte chunks of the flat arrays, so that each thread has
//   2 * Unroll independent 16-byte loads in flight (needed to approach HBM bandwidth); when
//   the arrays are not 16-byte aligned or vocab is not a multiple of 4, short row segments with
//   scalar loads instead.
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
struct ReadOp {
  KOKKOS_INLINE_FUNCTION static float apply(float t, float lp) { return t + lp; }
};

template <class Matrix, class Op>
struct RowSegments {
  Matrix lp, t;
  std::int64_t vocab, width, segments_per_row;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = item / segments_per_row;
    const std::int64_t begin = (item % segments_per_row) * width;
    const std::int64_t end = begin + width < vocab ? begin + width : vocab;
    double local = 0.0;
    for (std::int64_t j = begin; j < end; ++j) local += double(Op::apply(t(row, j), lp(row, j)));
    acc += local;
  }
};

struct alignas(16) Chunk4 {
  float v[4];
};

template <int Unroll, class Op>
struct FlatChunks {
  const Chunk4* lp;
  const Chunk4* t;
  std::int64_t chunks;  // elements / 4

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t first = item * Unroll;
    Chunk4 a[Unroll], b[Unroll];
    // All loads first, then the math: the loads are independent and overlap in flight.
    for (int u = 0; u < Unroll; ++u)
      if (first + u < chunks) {
        a[u] = lp[first + u];
        b[u] = t[first + u];
      }
    double local = 0.0;
    for (int u = 0; u < Unroll; ++u)
      if (first + u < chunks) {
        // Four fp32 terms summed in fp32 before the fp64 accumulation: their rounding is of
        // the same order as one term's and stays inside the verification bound.
        float part = 0.0f;
        for (int k = 0; k < 4; ++k) part += Op::apply(b[u].v[k], a[u].v[k]);
        local += double(part);
      }
    acc += local;
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
          Chunk4 a[Unroll], b[Unroll];
          const std::int64_t first = g * Unroll;
          for (int u = 0; u < Unroll; ++u)
            if (first + u < chunks_per_row) {
              a[u] = lp[base + first + u];
              b[u] = t[base + first + u];
            }
          for (int u = 0; u < Unroll; ++u)
            if (first + u < chunks_per_row) {
              float s = 0.0f;
              for (int k = 0; k < 4; ++k) s += Op::apply(b[u].v[k], a[u].v[k]);
              part += double(s);
            }
        },
        row);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { acc += row; });
  }
};

// Launch shapes, kept as templates so that the benchmark can sweep them.
template <class Op, int Unroll, class... PolicyTraits, class Space>
void run_flat_chunks(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  const std::int64_t chunks = p.elements() / 4;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>, PolicyTraits...> policy(
      0, (chunks + Unroll - 1) / Unroll);
  Kokkos::parallel_reduce(label, policy,
                          FlatChunks<Unroll, Op>{reinterpret_cast<const Chunk4*>(p.lp.data()),
                                                 reinterpret_cast<const Chunk4*>(p.t.data()), chunks},
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

template <class Op, class Space>
void run_row_segments(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  using Matrix = typename Problem<Space>::Matrix;
  const std::int64_t width = segment_width<Space>(p.vocab);
  const std::int64_t per_row = (p.vocab + width - 1) / width;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, p.tokens * per_row),
                          RowSegments<Matrix, Op>{p.lp, p.t, p.vocab, width, per_row}, out);
}

template <class Space>
bool chunks_apply(const Problem<Space>& p) {
  return !is_host_space<Space>() && p.vocab % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.lp.data()) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(p.t.data()) % 16 == 0;
}

// The production shape for each space (chosen by measurement: docs/PERFORMANCE.md).
inline constexpr int kDeviceUnroll = 4;

template <class Op, class Space>
void run_product_shape(const char* label, const Problem<Space>& p, const Result<Space>& out) {
  if (chunks_apply(p)) run_flat_chunks<Op, kDeviceUnroll>(label, p, out);
  else run_row_segments<Op>(label, p, out);
}

template <class Space>
void fused(const Problem<Space>& p, const Result<Space>& out) {
  if (p.log_target) run_product_shape<KlTermOp<true>>("klmini::fused", p, out);
  else run_product_shape<KlTermOp<false>>("klmini::fused", p, out);
}

}  // namespace klmini::variants
