// fused_grad: the loss and its gradient in one pass (gradient = true). Reads lp and t once,
// writes d(loss)/d(lp) (kl_grad, fp32) once, and reduces the fp64 sum of the terms.
// grad_only: the gradient alone (reads t, writes the gradient), the second pass of the two-pass
// alternative that fused_grad is measured against.
#pragma once

#include "kernels/writing.hpp"

namespace klmini::variants {

template <class TermOp, bool LogTarget>
struct LossAndGradientOp {
  static constexpr bool reads_lp = true;
  using value_type = typename TermOp::value_type;
  TermOp term;
  float g;  // the reduction's factor
  KOKKOS_INLINE_FUNCTION value_type operator()(float t, float lp, float& grad) const {
    grad = kl_grad(t, g, LogTarget);
    return term(t, lp);
  }
};

template <bool LogTarget>
struct GradientOnlyOp {
  static constexpr bool reads_lp = false;
  using value_type = float;
  float g;
  KOKKOS_INLINE_FUNCTION float operator()(float t, float, float& grad) const {
    grad = kl_grad(t, g, LogTarget);
    return 0.0f;
  }
};

template <class Space, class T>
void loss_and_gradient(const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& grad, float g,
                       const Result<Space>& sum) {
  with_term_op(p, [&](const auto& op) {
    using TermOp = std::decay_t<decltype(op)>;
    if (p.log_target)
      run_writing_kernel("klmini::fused_grad", p, grad, sum, LossAndGradientOp<TermOp, true>{op, g});
    else
      run_writing_kernel("klmini::fused_grad", p, grad, sum, LossAndGradientOp<TermOp, false>{op, g});
  });
}

template <class Space, class T>
void gradient_only(const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& grad, float g,
                   const Result<Space>& sum) {
  if (p.log_target)
    run_writing_kernel("klmini::grad_only", p, grad, sum, GradientOnlyOp<true>{g});
  else
    run_writing_kernel("klmini::grad_only", p, grad, sum, GradientOnlyOp<false>{g});
}

}  // namespace klmini::variants
