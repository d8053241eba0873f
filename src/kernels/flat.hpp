// flat: the first-pass baseline. A RangePolicy with one element per work item, each term
// added straight into Kokkos's reduction (a FixedSum: one rounding onto its grid per term).
#pragma once

#include "core/problem.hpp"
#include "kernels/term_ops.hpp"

namespace klmini::variants {

template <class Flat, class Op>
struct FlatElements {
  Flat lp, t;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, FixedSum& acc) const {
    acc += double(op(to_float(t(i)), to_float(lp(i))));
  }
};

template <class Space, class T>
void flat(const Problem<Space, T>& p, const Result<Space>& out) {
  using Flat = typename Problem<Space, T>::ConstFlat;
  const Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> policy(0, p.elements());
  with_term_op(p, [&](const auto& op) {
    Kokkos::parallel_reduce("klmini::flat", policy,
                            FlatElements<Flat, std::decay_t<decltype(op)>>{p.lp_flat(), p.t_flat(), op}, out);
  });
}

}  // namespace klmini::variants
