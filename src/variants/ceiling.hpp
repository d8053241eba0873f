// The bandwidth ceiling: a STREAM-like read of the same bytes the variants read (both
// matrices once), with exactly the work-item shape and launch of `fused` but a plain sum
// instead of logarithms. Every variant is reported as a fraction of its achieved GB/s.
#pragma once

#include "fused.hpp"

namespace klmini::variants {

template <class Space>
void read_ceiling(const Problem<Space>& p, const Result<Space>& out) {
  run_product_shape<ReadOp>("klmini::ceiling_read", p, out);
}

}  // namespace klmini::variants
