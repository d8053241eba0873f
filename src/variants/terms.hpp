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
  std::int64_t vocab, width, segments_per_row;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = item / segments_per_row;
    const std::int64_t begin = (item % segments_per_row) * width;
    const std::int64_t end = begin + width < vocab ? begin + width : vocab;
    const float* lp_row = &lp(row, 0);
    const float* t_row = &t(row, 0);
    float* out_row = &out(row, 0);
    double local = 0.0;
    KLMINI_SIMD_SUM_LOCAL
    for (std::int64_t j = begin; j < end; ++j) {
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
  const std::int64_t width = segment_width<Space>(p.vocab);
  const std::int64_t per_row = (p.vocab + width - 1) / width;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.tokens * per_row);
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::terms", policy,
                            WriteTerms<Matrix, Matrix, true>{p.lp, p.t, out, p.vocab, width, per_row}, sum);
  else
    Kokkos::parallel_reduce("klmini::terms", policy,
                            WriteTerms<Matrix, Matrix, false>{p.lp, p.t, out, p.vocab, width, per_row}, sum);
}

}  // namespace klmini::variants
