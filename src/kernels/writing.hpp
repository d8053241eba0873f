// The kernels that write a tokens x vocab fp32 matrix while they reduce: the `none` term matrix
// (terms.hpp), the gradient (gradient.hpp) and the copy ceiling they are measured against
// (probes/ceiling.hpp). One read of the inputs, one write of the output, one sum (the space's
// KernelSum of its units' partials, as fused's).
//
// A writing Op maps (t, lp), converted to fp32, to the value it adds to the sum (its value_type)
// and, through its third argument, the element it writes. Op::reads_lp = false skips the lp
// array entirely (the gradient alone needs only t).
//
// They run the loss kernels' loops (shapes.hpp: GridStride, SegmentSums) with the Op and where
// it writes (Writes): on hosts whole rows (one vectorizable loop per row); on devices the
// persistent grid over 16-byte chunks when the rows are whole chunks and every array is 16-byte
// aligned, short row segments otherwise.
#pragma once

#include "kernels/shapes.hpp"

namespace klmini::variants {

// On devices: the product's grid (league = 0) or a grid of `league` teams, Unroll chunks a step.
template <int Unroll = kDeviceUnroll, class Space, class T, class Op>
void run_writing_kernel(const char* label, const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& out,
                        const Result<Space>& sum, const Op& op, int league = 0) {
  if (chunks_apply(p, out)) {
    using Chunked = Writes<Op, Chunk<float>*>;
    zero_sum<Space>(sum);
    Kokkos::parallel_for(
        label, Kokkos::TeamPolicy<Space>(league > 0 ? league : device_league<Space>(), kDeviceTeam),
        GridStride<Space, Unroll, T, Chunked>{as_chunks<T>(p.lp), as_chunks<T>(p.t), p.elements() / Chunk<T>::lanes,
                                              Chunked{op, reinterpret_cast<Chunk<float>*>(out.data())}, sum});
  } else {
    using RowWise = Writes<Op, typename Problem<Space, T>::OutMatrix>;
    const RowSegments seg = row_segments(p);
    Kokkos::parallel_reduce(
        label, row_segment_policy(p, seg),
        SegmentSums<Space, typename Problem<Space, T>::Matrix, RowWise>{p.lp, p.t, seg, RowWise{op, out}}, sum);
  }
}

}  // namespace klmini::variants
