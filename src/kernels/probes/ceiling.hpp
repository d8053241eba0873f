// The bandwidth ceilings every variant is reported against: STREAM-like kernels over the same
// bytes with the work-item shapes of the real kernels (and for reads, a few others), but a
// plain sum instead of logarithms.
// * read: both matrices once, for the loss variants: the fastest of read_ceiling_shapes;
// * copy: both matrices read and one fp32 matrix written, for fused_grad and the `none` term
//   matrix: the fastest of copy_ceiling_shapes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernels/writing.hpp"

namespace klmini::variants {

template <class Space, class T>
void read_ceiling(const Problem<Space, T>& p, const Result<Space>& out) {
  run_product_shape("klmini::ceiling_read", p, out, ReadOp{});
}

// The read ceiling is the fastest of a few read shapes over the same bytes, all timed in the
// run: the product's own shape, persistent grids with 4 chunks of each array per step at a
// quarter and at full occupancy, and one team per row (RowSums, where the product's shape is
// not already that), so that it measures the device and not one launch shape
// (docs/PERFORMANCE.md: which wins where on the H200). On hosts: whole rows (the product's)
// and rows cut into segments of 2048.
template <class Space>
struct CeilingShape {
  std::string name;
  std::function<void(const Result<Space>&)> run;
};

template <class Space, class T>
std::vector<CeilingShape<Space>> read_ceiling_shapes(const Problem<Space, T>& p) {
  std::vector<CeilingShape<Space>> shapes{{"product", [&p](const Result<Space>& r) { read_ceiling(p, r); }}};
  if (chunks_apply(p)) {
    shapes.push_back({"grid_u4_full", [&p](const Result<Space>& r) {
                        run_grid_stride<4>("klmini::ceiling_read_grid_u4_full", p, r, ReadOp{},
                                           2 * device_league<Space>(), kDeviceTeam);
                      }});
    shapes.push_back({"grid_u4_quarter", [&p](const Result<Space>& r) {
                        run_grid_stride<4>("klmini::ceiling_read_grid_u4_quarter", p, r, ReadOp{},
                                           quarter_league<Space>(), kDeviceTeam);
                      }});
    if (!row_sums_apply(p) && p.row_sums.extent(0) == std::size_t(p.tokens))
      shapes.push_back({"rows_u4_t256", [&p](const Result<Space>& r) {
                          run_row_sums<kRowSumsUnroll>("klmini::ceiling_read_rows", p, r, ReadOp{}, kDeviceTeam);
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

// The copy ceiling is the fastest of the writing kernels' shape and, on devices, persistent
// grids with 4 chunks a step at a quarter and 2 at full occupancy.
template <class Space, class T>
std::vector<CeilingShape<Space>> copy_ceiling_shapes(const Problem<Space, T>& p,
                                                     const typename Problem<Space, T>::OutMatrix& out) {
  std::vector<CeilingShape<Space>> shapes{{"product", [&p, out](const Result<Space>& r) { copy_ceiling(p, out, r); }}};
  if (chunks_apply(p, out)) {
    shapes.push_back({"grid_u4_quarter", [&p, out](const Result<Space>& r) {
                        run_writing_kernel<4>("klmini::ceiling_copy_grid_u4_quarter", p, out, r, CopyOp{},
                                              quarter_league<Space>());
                      }});
    shapes.push_back({"grid_u2_full", [&p, out](const Result<Space>& r) {
                        run_writing_kernel<2>("klmini::ceiling_copy_grid_u2_full", p, out, r, CopyOp{},
                                              2 * device_league<Space>());
                      }});
  }
  return shapes;
}

}  // namespace klmini::variants
