// The fp64 host reference: every term in double from the same fp32 inputs, via the same
// kl_term. Host-only (no Kokkos), so it is independent of every backend's kernels.
#pragma once

#include <cstdint>
#include <vector>

namespace klmini {

struct RowTotals {
  double sum = 0.0;        // sum of the row's terms, fp64
  double magnitude = 0.0;  // sum of the terms' error magnitudes (see kl_term_magnitude)
};

// fp64 totals of each row of a rows x vocab pair of matrices (row-major).
std::vector<RowTotals> reference_rows(const float* lp, const float* t, std::int64_t rows, std::int64_t vocab,
                                      bool log_target);

// Seeded choice of `count` distinct rows out of `tokens`, sorted (all rows if count >= tokens).
std::vector<std::int64_t> sample_rows(std::int64_t tokens, std::int64_t count, std::uint64_t seed);

}  // namespace klmini
