// The bandwidth ceilings every variant is reported against: STREAM-like kernels over the same
// bytes with the work-item shapes of the real kernels (and for reads, a few others), but a
// plain sum instead of logarithms.
// * read: both matrices once, for the loss variants: the fastest of read_ceiling_shapes;
// * copy: both matrices read and one fp32 matrix written (the writing kernels' shape), for
//   fused_grad and the `none` term matrix.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kernels/writing.hpp"

namespace klmini::variants {

template <class Space, class T>
void read_ceiling(const Problem<Space, T>& p, const Result<Space>& out) {
  run_product_shape("klmini::ceiling_read", p, out, ReadOp{});
}

// A team per row of at most 512 threads, each with Unroll chunks of each array per step: as
// many threads as a row's steps keep busy, at least two warps.
template <int Unroll, class Space, class T>
int row_team_size(const Problem<Space, T>& p) {
  const std::int64_t chunks = p.vocab / Chunk<T>::lanes;
  int team = 64;
  while (team < 512 && 2 * team * Unroll <= chunks) team *= 2;
  return team;
}

// The read ceiling is the fastest of a few read shapes over the same bytes, all timed in the
// run: the product's own shape, and persistent grids with 4 chunks of each array per step at a
// quarter and at full occupancy, and one team per row, so that it measures the device and not
// one launch shape (docs/PERFORMANCE.md: which wins where on the H200). On hosts: whole rows
// (the product's) and rows cut into segments of 2048.
template <class Space>
struct ReadShape {
  std::string name;
  std::function<void(const Result<Space>&)> run;
};

template <class Space, class T>
std::vector<ReadShape<Space>> read_ceiling_shapes(const Problem<Space, T>& p) {
  std::vector<ReadShape<Space>> shapes{{"product", [&p](const Result<Space>& r) { read_ceiling(p, r); }}};
  if (chunks_apply(p)) {
    shapes.push_back({"grid_u4_full", [&p](const Result<Space>& r) {
                        run_grid_stride<4>("klmini::ceiling_read_grid_u4_full", p, r, ReadOp{},
                                           2 * device_league<Space>(), kDeviceTeam);
                      }});
    shapes.push_back({"grid_u4_quarter", [&p](const Result<Space>& r) {
                        run_grid_stride<4>("klmini::ceiling_read_grid_u4_quarter", p, r, ReadOp{},
                                           std::max(1, device_league<Space>() / 2), kDeviceTeam);
                      }});
    const int team = row_team_size<4>(p);
    shapes.push_back({"rowteam_u4_t" + std::to_string(team), [&p, team](const Result<Space>& r) {
                        run_row_teams<4, ChunkOrder::interleaved>("klmini::ceiling_read_rowteam", p, r, ReadOp{}, team);
                      }});
  } else if (is_host_space<Space>() && p.vocab > 2048) {
    shapes.push_back({"segments_2048", [&p](const Result<Space>& r) {
                        run_row_segments("klmini::ceiling_read_segments", p, r, ReadOp{}, 2048);
                      }});
  }
  return shapes;
}

struct CopyOp {
  static constexpr bool reads_lp = true;
  using value_type = float;
  using sum_type = double;
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
