// terms: the `none` reduction. Writes the tokens x vocab term matrix (fp32) and, in the same
// pass, reduces its fp64 sum (reported alongside the matrix).
#pragma once

#include "kernels/writing.hpp"

namespace klmini::variants {

template <class TermOp>
struct WriteTermOp {
  static constexpr bool reads_lp = true;
  using value_type = typename TermOp::value_type;
  TermOp term;
  KOKKOS_INLINE_FUNCTION value_type operator()(float t, float lp, float& out) const {
    const value_type v = term(t, lp);
    out = static_cast<float>(v);
    return v;
  }
};

template <class Space, class T>
void terms(const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& out, const Result<Space>& sum) {
  with_term_op(p, [&](const auto& op) {
    run_writing_kernel("klmini::terms", p, out, sum, WriteTermOp<std::decay_t<decltype(op)>>{op});
  });
}

}  // namespace klmini::variants
