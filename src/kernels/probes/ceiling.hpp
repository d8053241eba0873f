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

// The rule's shape with a plain read (the benchmark's reference read).
template <class Space, class T>
void read_ceiling(const Problem<Space, T>& p, const Result<Space>& out) {
  run_product_shape("klmini::ceiling_read", p, out, ReadOp{});
}

// The read ceiling is the fastest of the loss kernels' launch shapes (shape_candidates) with a
// plain read, all timed in the run, so that it measures the device and not one launch shape.
template <class Space>
struct CeilingShape {
  std::string name;
  std::function<void(const Result<Space>&)> run;
};

template <class Space, class T>
std::vector<CeilingShape<Space>> read_ceiling_shapes(const Problem<Space, T>& p) {
  std::vector<CeilingShape<Space>> shapes;
  for (const LaunchShape shape : shape_candidates<Space, T, ReadOp>(p))
    shapes.push_back({std::string(shape_name(shape)), [&p, shape](const Result<Space>& r) {
                        run_shape(shape, "klmini::ceiling_read", p, r, ReadOp{});
                      }});
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
