// The bandwidth ceilings every variant is reported against: STREAM-like kernels over the same
// bytes with exactly the work-item shapes and launches of the real kernels, but a plain sum
// instead of logarithms.
// * read: both matrices once (fused's shape), for the loss variants;
// * copy: both matrices read and one fp32 matrix written (the writing kernels' shape), for
//   fused_grad and the `none` term matrix.
#pragma once

#include "kernels/writing.hpp"

namespace klmini::variants {

template <class Space, class T>
void read_ceiling(const Problem<Space, T>& p, const Result<Space>& out) {
  run_product_shape("klmini::ceiling_read", p, out, ReadOp{});
}

struct CopyOp {
  static constexpr bool reads_lp = true;
  using value_type = float;
  KOKKOS_INLINE_FUNCTION float operator()(float t, float lp, float& out) const {
    out = t + lp;
    return out;
  }
};

template <class Space, class T>
void copy_ceiling(const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& out,
                  const Result<Space>& sum) {
  run_writing_kernel("klmini::ceiling_copy", p, out, sum, CopyOp{});
}

}  // namespace klmini::variants
