#include "host/reference.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "numerics/semantics.hpp"

namespace klmini {

std::vector<RowTotals> reference_rows(const float* lp, const float* t, std::int64_t rows, std::int64_t vocab,
                                      bool log_target) {
  std::vector<RowTotals> out(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* lp_row = lp + r * vocab;
    const float* t_row = t + r * vocab;
    RowTotals acc;
    for (std::int64_t j = 0; j < vocab; ++j) {
      const double tj = t_row[j], lpj = lp_row[j];
      acc.sum += kl_term(tj, lpj, log_target);
      acc.magnitude += kl_term_magnitude(tj, lpj, log_target);
    }
    out[static_cast<std::size_t>(r)] = acc;
  }
  return out;
}

std::vector<std::int64_t> sample_rows(std::int64_t tokens, std::int64_t count, std::uint64_t seed) {
  std::vector<std::int64_t> rows;
  if (count >= tokens) {
    rows.resize(static_cast<std::size_t>(tokens));
    std::iota(rows.begin(), rows.end(), std::int64_t(0));
    return rows;
  }
  // Floyd's algorithm: `count` distinct values without materializing all `tokens`.
  std::mt19937_64 gen(seed ^ 0x6b6c6d696e69ull);
  std::vector<std::int64_t> picked;
  picked.reserve(static_cast<std::size_t>(count));
  for (std::int64_t j = tokens - count; j < tokens; ++j) {
    const std::int64_t v = std::uniform_int_distribution<std::int64_t>(0, j)(gen);
    picked.push_back(std::find(picked.begin(), picked.end(), v) == picked.end() ? v : j);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace klmini
