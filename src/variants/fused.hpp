// fused: the product. One pass over both inputs, one parallel_reduce over row segments,
// fp32 terms accumulated in fp64 (a private accumulator per segment, then Kokkos's reduction).
#pragma once

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

template <class Space>
double fused(const Problem<Space>& p) {
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
