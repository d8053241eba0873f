// The kernels that write a tokens x vocab fp32 matrix while they reduce: the `none` term matrix
// (terms.hpp), the gradient (gradient.hpp) and the copy ceiling they are measured against
// (probes/ceiling.hpp). One read of the inputs, one write of the output, one sum (the space's
// KernelSum of its units' partials, a row on hosts and a 16-byte chunk on devices, as fused's:
// shapes.hpp).
//
// A writing Op maps (t, lp), converted to fp32, to the value it adds to the sum (its value_type)
// and, through `out`, the element it writes. Op::reads_lp = false skips the lp array entirely
// (the gradient alone needs only t).
//
// Shapes as fused's: on hosts whole rows (one vectorizable loop per row); on devices a
// persistent grid over 16-byte chunks when the rows are whole chunks and every array is
// 16-byte aligned, short row segments otherwise.
#pragma once

#include "kernels/shapes.hpp"

namespace klmini::variants {

template <class Space, class Matrix, class OutMatrix, class Op>
struct WriteSegments {
  Matrix lp, t;
  OutMatrix out;
  RowSegments seg;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item, KernelSum<Space>& acc) const {
    for_each_unit<Space>(
        seg, item, [&](std::int64_t row, std::int64_t begin, std::int64_t end) { acc += partial(row, begin, end); });
  }

  // As SegmentSums'.
  KLMINI_UNIT_FUNCTION double partial(const std::int64_t row, const std::int64_t begin, const std::int64_t end) const {
    const auto* lp_row = &lp(row, 0);
    const auto* t_row = &t(row, 0);
    float* out_row = &out(row, 0);
    double local = 0.0;
    KLMINI_SIMD_SUM_LOCAL
    for (std::int64_t j = begin; j < end; ++j) {
      const float lp_j = Op::reads_lp ? to_float(lp_row[j]) : 0.0f;
      local += double(op(to_float(t_row[j]), lp_j, out_row[j]));
    }
    return local;
  }
};

// Every thread strides over the input chunks by the grid's width, Unroll chunks per step (all
// loads first), and writes the matching output chunks (lanes / 4 fp32 chunks per input chunk);
// each team adds its threads' total to the sum once (add_team_sum, shapes.hpp).
template <class Space, int Unroll, class T, class Op>
struct WriteGridStride {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  static constexpr int kOutPerIn = Chunk<T>::lanes / 4;
  const Chunk<T>* lp;
  const Chunk<T>* t;
  Chunk<float>* out;
  std::int64_t chunks;
  Op op;
  Result<Space> sum;

  KOKKOS_INLINE_FUNCTION void operator()(const member& m) const {
    add_team_sum<Space, Op>(m, sum, [&](const int r) { return thread_part(m, r); });
  }

  KOKKOS_INLINE_FUNCTION ThreadSum<Space, Op> thread_part(const member& m, const int r) const {
    const std::int64_t width = std::int64_t(m.league_size()) * m.team_size();
    ThreadSum<Space, Op> local{};
    for (std::int64_t c = std::int64_t(m.league_rank()) * m.team_size() + r; c < chunks; c += Unroll * width) {
      Chunk<T> a[Unroll], b[Unroll];
      for (int u = 0; u < Unroll; ++u) {
        zero_on_host(a[u]);
        zero_on_host(b[u]);
        if (c + u * width < chunks) {
          if (Op::reads_lp) a[u] = lp[c + u * width];
          b[u] = t[c + u * width];
        }
      }
      for (int u = 0; u < Unroll; ++u)
        if (c + u * width < chunks) {
          Chunk<float> o[kOutPerIn];
          typename Op::value_type part = 0;
          for (int k = 0; k < Chunk<T>::lanes; ++k)
            part += op(to_float(b[u].v[k]), Op::reads_lp ? to_float(a[u].v[k]) : 0.0f, o[k / 4].v[k % 4]);
          for (int q = 0; q < kOutPerIn; ++q) out[(c + u * width) * kOutPerIn + q] = o[q];
          local += double(part);
        }
    }
    return local;
  }
};

// On devices: the product's grid (league = 0) or a grid of `league` teams, Unroll chunks a step.
template <int Unroll = kDeviceUnroll, class Space, class T, class Op>
void run_writing_kernel(const char* label, const Problem<Space, T>& p, const typename Problem<Space, T>::OutMatrix& out,
                        const Result<Space>& sum, const Op& op, int league = 0) {
  if (chunks_apply(p, out)) {
    zero_sum<Space>(sum);
    Kokkos::parallel_for(label, Kokkos::TeamPolicy<Space>(league > 0 ? league : device_league<Space>(), kDeviceTeam),
                         WriteGridStride<Space, Unroll, T, Op>{as_chunks<T>(p.lp), as_chunks<T>(p.t),
                                                               reinterpret_cast<Chunk<float>*>(out.data()),
                                                               p.elements() / Chunk<T>::lanes, op, sum});
  } else {
    const RowSegments seg = row_segments(p);
    Kokkos::parallel_reduce(
        label, row_segment_policy(p, seg),
        WriteSegments<Space, typename Problem<Space, T>::Matrix, typename Problem<Space, T>::OutMatrix, Op>{
            p.lp, p.t, out, seg, op},
        sum);
  }
}

}  // namespace klmini::variants
