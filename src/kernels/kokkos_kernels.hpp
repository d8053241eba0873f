// kokkos_kernels: what a Kokkos user composes from library calls. KokkosBlas::dot gives the
// cross term sum(t * lp) (accumulated in fp64), one reduce gives the entropy term
// sum(xlogy(t, t)); loss = entropy - cross. With log-probability targets the weights exp(t)
// are materialized first (one extra array), then entropy = dot(p, t) and cross = dot(p, lp).
// An independent cross-check of `fused`: different code, same semantics.
#pragma once

#ifdef KLMINI_HAVE_KOKKOS_KERNELS

#include <KokkosBlas1_dot.hpp>

#include "core/problem.hpp"
#include "numerics/semantics.hpp"

namespace klmini::variants {

// The library's own accurate log, not the kernels': a cross-check shares no more than it must.
struct AccurateLog {
  KOKKOS_INLINE_FUNCTION float operator()(float x) const { return math::log(x); }
};

template <class Flat>
struct EntropyTerm {
  Flat t;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& acc) const {
    acc += double(xlogy_self(AccurateLog{}, t(i)));
  }
};

// fp32 inputs, precision = "fast" only (the configuration refuses anything else): the library's
// dot product takes fp32 vectors.
template <class Space>
void kokkos_kernels(const Problem<Space, float>& p, const Result<Space>& out) {
  using Flat = typename Problem<Space>::ConstFlat;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.elements());
  // The library's sums are fp64 in its own order: this variant's sum is one FixedSum unit, and
  // not reproducible across decompositions.
  using Sum = Kokkos::View<double, typename Space::memory_space>;
  Sum entropy("klmini::kokkos_kernels::entropy"), cross("klmini::kokkos_kernels::cross");
  if (!p.log_target) {
    Kokkos::parallel_reduce("klmini::kokkos_kernels::entropy", policy, EntropyTerm<Flat>{p.t_flat()}, entropy);
    KokkosBlas::dot(cross, p.t_flat(), p.lp_flat());
  } else {
    Kokkos::View<float*, typename Space::memory_space> weights(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::kokkos_kernels::exp_t"), p.elements());
    const Flat t = p.t_flat();
    Kokkos::parallel_for(
        "klmini::kokkos_kernels::exp_t", policy, KOKKOS_LAMBDA(const std::int64_t i) { weights(i) = math::exp(t(i)); });
    KokkosBlas::dot(entropy, weights, t);
    KokkosBlas::dot(cross, weights, p.lp_flat());
  }
  Kokkos::parallel_for(
      "klmini::kokkos_kernels::combine", Kokkos::RangePolicy<Space>(0, 1),
      KOKKOS_LAMBDA(const int) { out() = KernelSum<Space>(entropy() - cross()); });
}

}  // namespace klmini::variants

#endif
