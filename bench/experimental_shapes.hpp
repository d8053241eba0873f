// Launch shapes that only the benchmark (bench_variants.cpp) times: alternatives to the
// product's shapes (src/kernels/shapes.hpp) that fused does not choose, kept to show what they
// cost. They read through the product's loop helpers (add_chunks, add_sweep), so that a chunk's
// partial is the one every chunked shape of the product adds; tests/bench/test_experimental_shapes.cpp
// checks them against the fp64 reference and, with fixed units, bitwise against the product's grid.
#pragma once

#include <cstdint>

#include "kernels/shapes.hpp"

namespace klmini::variants::experimental {

// Item i reads the chunks i + u * stride (u < Unroll): with stride = the item count, the arrays
// are cut into Unroll contiguous parts and neighbouring items read neighbouring chunks of each,
// so every load instruction of a warp is one coalesced 512-byte access; with stride = 1 an
// item reads Unroll consecutive chunks instead.
template <class Space, int Unroll, class T, class Op>
struct FlatChunks {
  const Chunk<T>* lp;
  const Chunk<T>* t;
  std::int64_t chunks;   // elements / lanes
  std::int64_t stride;   // distance between an item's chunks
  std::int64_t spacing;  // distance between neighbouring items' first chunks (Unroll or 1)
  Op op;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, KernelSum<Space>& acc) const {
    ThreadSum<Space, Op> sum{};
    add_chunks<Unroll>(sum, op, lp, t, item * spacing, stride, chunks);
    acc += sum;
  }
};

// How a row team's threads take the row's chunks.
enum class ChunkOrder { interleaved, consecutive };

// One team per row. consecutive: each thread takes groups of Unroll neighbouring chunks.
// interleaved: the threads side by side, thread r reading the row's chunks r, r + team, ...,
// Unroll of them per step, so that each load instruction of a warp is one coalesced access and
// each thread has Unroll independent loads of each array in flight. Every thread adds its part
// straight to its own share of the kernel's reduction: no reduction inside the team per row,
// whose barriers would leave the team without loads in flight between rows. Teams live for one
// row each and the hardware keeps as many resident as fit.
template <class Space, int Unroll, class T, class Op, ChunkOrder Order>
struct RowTeams {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk<T>* lp;
  const Chunk<T>* t;
  std::int64_t chunks_per_row;
  Op op;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, KernelSum<Space>& acc) const {
    const std::int64_t base = std::int64_t(team.league_rank()) * chunks_per_row, end = base + chunks_per_row;
    ThreadSum<Space, Op> sum{};
    if constexpr (Order == ChunkOrder::interleaved) {
      add_sweep<Unroll>(sum, op, lp, t, base + team.team_rank(), team.team_size(), end);
    } else {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, (chunks_per_row + Unroll - 1) / Unroll),
          [&](const std::int64_t i) { add_chunks<Unroll>(sum, op, lp, t, base + i * Unroll, 1, end); });
    }
    acc += sum;
  }
};

// A persistent grid over blocks of team * Unroll contiguous chunks: team k reads blocks k,
// k + league, ...; in a block thread r reads chunks r, r + team, ..., so that each team reads
// one contiguous stretch at a time (as a kernel with one short-lived block per row does) while
// the grid stays resident.
template <class Space, int Unroll, class T, class Op>
struct GridBlocks {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const Chunk<T>* lp;
  const Chunk<T>* t;
  std::int64_t chunks;
  Op op;

  KOKKOS_INLINE_FUNCTION void operator()(const member& m, KernelSum<Space>& acc) const {
    const std::int64_t team = m.team_size(), block = team * Unroll;
    const std::int64_t blocks = (chunks + block - 1) / block;
    ThreadSum<Space, Op> local{};
    for (std::int64_t b = m.league_rank(); b < blocks; b += m.league_size()) {
      const std::int64_t first = b * block + m.team_rank();
      if ((b + 1) * block <= chunks)
        add_chunks<Unroll, false>(local, op, lp, t, first, team, chunks);
      else
        add_chunks<Unroll>(local, op, lp, t, first, team, chunks);
    }
    acc += local;
  }
};

template <int Unroll, ChunkOrder Order = ChunkOrder::interleaved, class... PolicyTraits, class Space, class T, class Op>
void run_flat_chunks(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op) {
  const std::int64_t chunks = p.elements() / Chunk<T>::lanes;
  const std::int64_t items = (chunks + Unroll - 1) / Unroll;
  const bool interleaved = Order == ChunkOrder::interleaved;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>, PolicyTraits...> policy(0, items);
  Kokkos::parallel_reduce(label, policy,
                          FlatChunks<Space, Unroll, T, Op>{as_chunks<T>(p.lp), as_chunks<T>(p.t), chunks,
                                                           interleaved ? items : 1, interleaved ? 1 : Unroll, op},
                          out);
}

template <int Unroll, ChunkOrder Order = ChunkOrder::consecutive, class Space, class T, class Op>
void run_row_teams(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op,
                   int team_size) {
  const Kokkos::TeamPolicy<Space> policy(static_cast<int>(p.tokens), team_size);
  Kokkos::parallel_reduce(
      label, policy,
      RowTeams<Space, Unroll, T, Op, Order>{as_chunks<T>(p.lp), as_chunks<T>(p.t), p.vocab / Chunk<T>::lanes, op}, out);
}

template <int Unroll, class Space, class T, class Op>
void run_grid_blocks(const char* label, const Problem<Space, T>& p, const Result<Space>& out, const Op& op, int league,
                     int team) {
  Kokkos::parallel_reduce(
      label, Kokkos::TeamPolicy<Space>(league, team),
      GridBlocks<Space, Unroll, T, Op>{as_chunks<T>(p.lp), as_chunks<T>(p.t), p.elements() / Chunk<T>::lanes, op}, out);
}

}  // namespace klmini::variants::experimental
