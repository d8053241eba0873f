// flat: the first-pass baseline, what a Kokkos user writes first. A RangePolicy with one element
// per work item, each term added straight into Kokkos's fp64 reduction, whose order (and so the
// sum's last bits) depends on the threads; on hosts each rank's sum is one FixedSum unit. Not bitwise
// reproducible across decompositions, as a baseline should not pay for being.
#pragma once

#include "core/problem.hpp"
#include "kernels/term_ops.hpp"

namespace klmini::variants {

template <class Flat, class Op>
struct FlatElements {
  Flat lp, t;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& acc) const {
    acc += double(op(to_float(t(i)), to_float(lp(i))));
  }
};

template <class Space, class T>
void flat(const Problem<Space, T>& p, const Result<Space>& out) {
  using Flat = typename Problem<Space, T>::ConstFlat;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.elements());
  // Kokkos' own fp64 sum, in its order, then onto the kernel's sum.
  const Kokkos::View<double, typename Space::memory_space> sum("klmini::flat::sum");
  with_term_op(p, [&](const auto& op) {
    Kokkos::parallel_reduce("klmini::flat", policy,
                            FlatElements<Flat, std::decay_t<decltype(op)>>{p.lp_flat(), p.t_flat(), op}, sum);
  });
  Kokkos::parallel_for(
      "klmini::flat::result", Kokkos::RangePolicy<Space>(0, 1),
      KOKKOS_LAMBDA(const int) { out() = KernelSum<Space>(sum()); });
}

}  // namespace klmini::variants
