// fused: the product. One pass over both inputs, one parallel_reduce, fp32 terms accumulated
// in fp64 (a private accumulator per work item, then Kokkos's reduction).
//
// The work item's shape depends on the space:
// * host spaces: a whole row, so that one thread runs one long loop the compiler can vectorize;
// * device spaces: kUnroll 16-byte chunks of the flat arrays, so that each thread has
//   2 * kUnroll independent 16-byte loads in flight (needed to approach the HBM bandwidth);
//   when the arrays are not 16-byte aligned or vocab is not a multiple of 4, short row
//   segments with scalar loads instead.
#pragma once

#include <cstdint>

#include "../problem.hpp"
#include "../semantics.hpp"

namespace klmini::variants {

template <class Matrix, bool LogTarget>
struct FusedSegments {
  Matrix lp, t;
  std::int64_t vocab, width, segments_per_row;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = item / segments_per_row;
    const std::int64_t begin = (item % segments_per_row) * width;
    const std::int64_t end = begin + width < vocab ? begin + width : vocab;
    double local = 0.0;
    for (std::int64_t j = begin; j < end; ++j) local += double(kl_term(t(row, j), lp(row, j), LogTarget));
    acc += local;
  }
};

struct alignas(16) Chunk4 {
  float v[4];
};

template <int Unroll, bool LogTarget>
struct FusedChunks {
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
        float part = 0.0f;
        // Four fp32 terms summed in fp32 before the fp64 accumulation: their rounding is of
        // the same order as one term's and stays inside the verification bound.
        for (int k = 0; k < 4; ++k) part += kl_term(b[u].v[k], a[u].v[k], LogTarget);
        local += double(part);
      }
    acc += local;
  }
};

inline constexpr int kDeviceUnroll = 4;

template <int Unroll, class Space>
double fused_chunks(const Problem<Space>& p) {
  const std::int64_t chunks = p.elements() / 4;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, (chunks + Unroll - 1) / Unroll);
  const auto* lp = reinterpret_cast<const Chunk4*>(p.lp.data());
  const auto* t = reinterpret_cast<const Chunk4*>(p.t.data());
  double sum = 0.0;
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::fused", policy, FusedChunks<Unroll, true>{lp, t, chunks}, sum);
  else
    Kokkos::parallel_reduce("klmini::fused", policy, FusedChunks<Unroll, false>{lp, t, chunks}, sum);
  return sum;
}

template <class Space>
bool chunks_apply(const Problem<Space>& p) {
  return !is_host_space<Space>() && p.vocab % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.lp.data()) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(p.t.data()) % 16 == 0;
}

template <class Space>
double fused(const Problem<Space>& p) {
  if (chunks_apply(p)) return fused_chunks<kDeviceUnroll>(p);
  using Matrix = typename Problem<Space>::Matrix;
  const std::int64_t width = segment_width<Space>(p.vocab);
  const std::int64_t per_row = (p.vocab + width - 1) / width;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.tokens * per_row);
  double sum = 0.0;
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::fused", policy,
                            FusedSegments<Matrix, true>{p.lp, p.t, p.vocab, width, per_row}, sum);
  else
    Kokkos::parallel_reduce("klmini::fused", policy,
                            FusedSegments<Matrix, false>{p.lp, p.t, p.vocab, width, per_row}, sum);
  return sum;
}

}  // namespace klmini::variants
