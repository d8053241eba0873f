#include "host/reference.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "numerics/semantics.hpp"
#include "numerics/series_log.hpp"

namespace klmini {

namespace {

// One row's totals, in one loop the host compiler vectorizes (the fp64 sums reassociated).
template <bool LogTarget>
RowTotals row_totals(const float* lp, const float* t, std::int64_t vocab) {
  double sum = 0.0, magnitude = 0.0;
#pragma omp simd reduction(+ : sum, magnitude)
  for (std::int64_t j = 0; j < vocab; ++j) {
    const auto tm = kl_term_and_magnitude(math::SeriesLog{}, double(t[j]), double(lp[j]), LogTarget);
    sum += tm.term;
    magnitude += tm.magnitude;
  }
  return {sum, magnitude};
}

}  // namespace

std::vector<RowTotals> reference_rows(const float* lp, const float* t, std::int64_t rows, std::int64_t vocab,
                                      bool log_target) {
  std::vector<RowTotals> out(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* lp_row = lp + r * vocab;
    const float* t_row = t + r * vocab;
    out[static_cast<std::size_t>(r)] =
        log_target ? row_totals<true>(lp_row, t_row, vocab) : row_totals<false>(lp_row, t_row, vocab);
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
