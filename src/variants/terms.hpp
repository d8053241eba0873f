// terms: the `none` reduction. Writes the tokens x vocab term matrix and, in the same pass,
// reduces its fp64 sum (reported alongside the matrix).
#pragma once

#include "../problem.hpp"
#include "../semantics.hpp"

namespace klmini::variants {

template <class Matrix, class OutMatrix, bool LogTarget>
struct WriteTerms {
  Matrix lp, t;
  OutMatrix out;
  RowSegments seg;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = seg.row(item), end = seg.end(item);
    const float* lp_row = &lp(row, 0);
    const float* t_row = &t(row, 0);
    float* out_row = &out(row, 0);
    double local = 0.0;
    KLMINI_SIMD_SUM_LOCAL
    for (std::int64_t j = seg.begin(item); j < end; ++j) {
      const float term = kl_term(t_row[j], lp_row[j], LogTarget);
      out_row[j] = term;
      local += double(term);
    }
    acc += local;
  }
};

template <class Space>
void terms(const Problem<Space>& p, const typename Problem<Space>::Matrix& out, const Result<Space>& sum) {
  using Matrix = typename Problem<Space>::Matrix;
  const RowSegments seg = row_segments(p);
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::terms", row_segment_policy(p, seg),
                            WriteTerms<Matrix, Matrix, true>{p.lp, p.t, out, seg}, sum);
  else
    Kokkos::parallel_reduce("klmini::terms", row_segment_policy(p, seg),
                            WriteTerms<Matrix, Matrix, false>{p.lp, p.t, out, seg}, sum);
}

}  // namespace klmini::variants
