// The bandwidth ceiling: a STREAM-like read of the same bytes the variants read (both
// matrices once), with the same work-item shape as `fused` but no logarithms. Its achieved
// GB/s is what every variant is reported against.
#pragma once

#include "../problem.hpp"

namespace klmini::variants {

template <class Matrix>
struct ReadBoth {
  Matrix lp, t;
  std::int64_t vocab, width, segments_per_row;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = item / segments_per_row;
    const std::int64_t begin = (item % segments_per_row) * width;
    const std::int64_t end = begin + width < vocab ? begin + width : vocab;
    float local = 0.0f;  // the value only keeps the loads alive; its precision is irrelevant
    for (std::int64_t j = begin; j < end; ++j) local += lp(row, j) + t(row, j);
    acc += double(local);
  }
};

template <class Space>
double read_ceiling(const Problem<Space>& p) {
  using Matrix = typename Problem<Space>::Matrix;
  const std::int64_t width = segment_width<Space>(p.vocab);
  const std::int64_t per_row = (p.vocab + width - 1) / width;
  double sum = 0.0;
  Kokkos::parallel_reduce("klmini::ceiling_read",
                          Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, p.tokens * per_row),
                          ReadBoth<Matrix>{p.lp, p.t, p.vocab, width, per_row}, sum);
  return sum;
}

}  // namespace klmini::variants
