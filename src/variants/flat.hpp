// flat: the first-pass baseline. A RangePolicy with one element per work item, each term
// added straight into Kokkos's fp64 reduction.
#pragma once

#include "../problem.hpp"
#include "../semantics.hpp"

namespace klmini::variants {

template <class Flat, bool LogTarget>
struct FlatElements {
  Flat lp, t;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& acc) const {
    acc += double(kl_term(t(i), lp(i), LogTarget));
  }
};

template <class Space>
void flat(const Problem<Space>& p, const Result<Space>& out) {
  using Flat = typename Problem<Space>::ConstFlat;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.elements());
  if (p.log_target)
    Kokkos::parallel_reduce("klmini::flat", policy, FlatElements<Flat, true>{p.lp_flat(), p.t_flat()}, out);
  else
    Kokkos::parallel_reduce("klmini::flat", policy, FlatElements<Flat, false>{p.lp_flat(), p.t_flat()}, out);
}

}  // namespace klmini::variants
