// fused_grad: the loss and its gradient in one pass (gradient = true). Reads lp and t once,
// writes d(loss)/d(lp) once (kl_grad), and reduces the fp64 sum of the terms, with the work
// items of the `none` matrix kernel (rows on hosts, short row segments on devices).
#pragma once

#include "../problem.hpp"
#include "../semantics.hpp"

namespace klmini::variants {

template <class Matrix, bool LogTarget>
struct LossAndGradient {
  Matrix lp, t, grad;
  float g;  // the reduction's factor
  RowSegments seg;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, double& acc) const {
    const std::int64_t row = seg.row(item), end = seg.end(item);
    const float* lp_row = &lp(row, 0);
    const float* t_row = &t(row, 0);
    float* grad_row = &grad(row, 0);
    double local = 0.0;
    KLMINI_SIMD_SUM_LOCAL
    for (std::int64_t j = seg.begin(item); j < end; ++j) {
      const float tj = t_row[j];
      local += double(kl_term(tj, lp_row[j], LogTarget));
      grad_row[j] = kl_grad(tj, g, LogTarget);
    }
    acc += local;
  }
};

template <class Space>
void loss_and_gradient(const Problem<Space>& p, const typename Problem<Space>::Matrix& grad, float g,
                       const Result<Space>& sum) {
  using Matrix = typename Problem<Space>::Matrix;
  const RowSegments seg = row_segments(p);
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::fused_grad", row_segment_policy(p, seg),
                            LossAndGradient<Matrix, true>{p.lp, p.t, grad, g, seg}, sum);
  else
    Kokkos::parallel_reduce("klmini::fused_grad", row_segment_policy(p, seg),
                            LossAndGradient<Matrix, false>{p.lp, p.t, grad, g, seg}, sum);
}

}  // namespace klmini::variants
