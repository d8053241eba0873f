// fused: the product. One pass over both inputs, one parallel_reduce, fp32 terms (or fp64 with
// precision = "exact") accumulated in fp64: a private accumulator per work item, then Kokkos's
// reduction. Its shape on each space is run_product_shape (shapes.hpp).
#pragma once

#include "kernels/shapes.hpp"

namespace klmini::variants {

template <class Space, class T>
void fused(const Problem<Space, T>& p, const Result<Space>& out) {
  with_term_op(p, [&](const auto& op) { run_product_shape("klmini::fused", p, out, op); });
}

}  // namespace klmini::variants
