// fused: the product. One pass over both inputs, one parallel_reduce, fp32 terms (or fp64 with
// precision = "exact") accumulated in fp64: a private accumulator per work item, then Kokkos's
// reduction. It runs in the launch shape its run chose (shapes.hpp, run/runner.hpp).
#pragma once

#include "kernels/shapes.hpp"

namespace klmini::variants {

// shape = automatic: the rule's shape (no trial chose one: the benchmark, the tests).
template <class Space, class T>
void fused(const Problem<Space, T>& p, const Result<Space>& out, LaunchShape shape = LaunchShape::automatic) {
  with_term_op(p, [&](const auto& op) {
    if (shape == LaunchShape::automatic)
      run_product_shape("klmini::fused", p, out, op);
    else
      run_shape(shape, "klmini::fused", p, out, op);
  });
}

// The shapes fused may take on this problem, the rule's first.
template <class Space, class T>
std::vector<LaunchShape> fused_shape_candidates(const Problem<Space, T>& p) {
  std::vector<LaunchShape> shapes;
  with_term_op(p, [&](const auto& op) { shapes = shape_candidates<Space, T, std::decay_t<decltype(op)>>(p); });
  return shapes;
}

}  // namespace klmini::variants
