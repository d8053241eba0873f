// The one statement of KL-divergence semantics (PyTorch's kl_div, see docs/SEMANTICS.md):
// every kernel variant and the fp64 host reference call these, so they cannot disagree.
#pragma once

#include "numerics/math.hpp"

namespace klmini {

// xlogy(t, t) - t * lp, or exp(t) * (t - lp) when the target is given as log-probabilities.
// Written without isnan() on purpose: t == 0 contributes 0 only through the xlogy branch,
// while 0 * lp still turns lp = -inf or NaN into NaN, as PyTorch does; NaN and negative t
// propagate through log(). That keeps the semantics intact under -ffast-math style flags
// that fold isnan() to false.
// xlogy(t, t) = t log t, and 0 for t == 0 (also when log(0) = -inf). The log is taken
// unconditionally and the zero case selected afterwards: a branch-free body that host compilers
// vectorize (they do not speculate a conditional log themselves). `Log` is the logarithm used.
template <class Log, class Real>
KOKKOS_INLINE_FUNCTION Real xlogy_self(Log log, Real t) {
  const Real t_log_t = t * log(t);
  return (t == Real(0)) ? Real(0) : t_log_t;
}

// `Log` is the logarithm used for xlogy; kl_term below uses the kernels' own (kernel_log).
template <class Log, class Real>
KOKKOS_INLINE_FUNCTION Real kl_term_with(Log log, Real t, Real lp, bool log_target) {
  if (log_target) return math::exp(t) * (t - lp);
  return xlogy_self(log, t) - t * lp;
}

struct KernelLog {
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real operator()(Real x) const {
    return math::kernel_log(x);
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION Real kl_term(Real t, Real lp, bool log_target) {
  return kl_term_with(KernelLog{}, t, lp, log_target);
}

// d(loss)/d(lp) of one element for an upstream factor g (1/tokens for batchmean, 1 for sum and
// none, 1/(tokens*vocab) for mean): -t g, or -exp(t) g for log-probability targets.
template <class Real>
KOKKOS_INLINE_FUNCTION Real kl_grad(Real t, Real g, bool log_target) {
  return -(log_target ? math::exp(t) : t) * g;
}

// The magnitude that bounds the error of one term computed in fp32, in units of the
// verification's per-term tolerance (host/verify.hpp): |xlogy(t,t)| + |t*lp| for the roundings, plus
// |t| for the device log's absolute error (2^-21.41 < 8 * 2^-24 per unit of t), or
// exp(t) * (|t| + |lp|) for log-probability targets. Tolerances scale with its sum.
template <class Real>
KOKKOS_INLINE_FUNCTION Real kl_term_magnitude(Real t, Real lp, bool log_target) {
  if (log_target) return math::exp(t) * (math::abs(t) + math::abs(lp));
  const Real entropy_part = (t == Real(0)) ? Real(0) : t * math::log(t);
  return math::abs(entropy_part) + math::abs(t * lp) + math::abs(t);
}

// A term and its magnitude together, each log or exp taken once (the fp64 reference's form):
// the same values as kl_term_with(log, ...) and kl_term_magnitude when `log` is log.
template <class Real>
struct TermAndMagnitude {
  Real term, magnitude;
};
template <class Log, class Real>
KOKKOS_INLINE_FUNCTION TermAndMagnitude<Real> kl_term_and_magnitude(Log log, Real t, Real lp, bool log_target) {
  if (log_target) {
    const Real p = math::exp(t);
    return {p * (t - lp), p * (math::abs(t) + math::abs(lp))};
  }
  const Real entropy_part = xlogy_self(log, t), cross = t * lp;
  return {entropy_part - cross, math::abs(entropy_part) + math::abs(cross) + math::abs(t)};
}

}  // namespace klmini
