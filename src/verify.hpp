// Verification of a kernel's result against the fp64 reference, with stated tolerances.
//
// Each fp32 term t*log(t) - t*lp carries a rounding error of at most a few units of fp32
// roundoff u = 2^-24 times its magnitude |t*log t| + |t*lp| (logf within 2 ulp, the product
// and the difference 0.5 ulp each, fp64 accumulation negligible). So a sum of terms passes when
//     |got - ref| <= kTermTolerance * sum(magnitudes),   kTermTolerance = 8 u ~ 4.8e-7,
// a bound that stays meaningful when entropy and cross-entropy nearly cancel (loss near 0).
// NaN passes only against NaN, an infinity only against the same infinity.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "reference.hpp"

namespace klmini {

inline constexpr double kFp32Roundoff = 1.0 / 16777216.0;  // 2^-24
inline constexpr double kTermTolerance = 8.0 * kFp32Roundoff;
// Sampled verification accepts the loss within this many standard errors of the estimate.
inline constexpr double kSampleSigmas = 6.0;

struct Verification {
  VerifyMode mode = VerifyMode::off;
  bool passed = true;
  double expected = 0.0;        // scaled reference (or estimate) of the loss
  double relative_error = 0.0;  // |got - expected| / |expected| (absolute when expected == 0)
  double tolerance = 0.0;       // the bound on |got - expected| that was applied (scaled)
  std::int64_t rows_checked = 0;
  std::string detail;           // one line for the report
};

// Compare a scaled result `got` with the scaled reference `expected`, given the bound.
Verification compare_scalar(double got, double expected, double bound);

// What verification needs of a set of reference rows; sums of these over ranks combine them.
struct ReferenceSummary {
  double rows = 0.0, sum = 0.0, sum_of_squares = 0.0, magnitude = 0.0;
};
ReferenceSummary summarize(const std::vector<RowTotals>& rows);

// Full: every row of the reference. `scale` is the reduction's.
Verification verify_full(double got_sum, const ReferenceSummary& ref, double scale);
Verification verify_full(double got_sum, const std::vector<RowTotals>& rows, double scale);

// Sample: the loss estimated from rows drawn at random out of `tokens`; passes within
// kSampleSigmas standard errors (with the finite-population correction) plus rounding.
Verification verify_sample(double got_sum, const ReferenceSummary& sample, std::int64_t tokens, double scale);
Verification verify_sample(double got_sum, const std::vector<RowTotals>& rows, std::int64_t tokens,
                           double scale);

// The `none` matrix: every element of the given rows against its fp64 term, each within
// kTermTolerance of its own magnitude. `out`, `lp`, `t` hold rows.size() rows of `vocab`.
Verification verify_terms(const float* out, const float* lp, const float* t, std::int64_t rows,
                          std::int64_t vocab, bool log_target);

// The gradient: every element of the given rows against kl_grad in fp64 with the same g;
// each within kTermTolerance of its own magnitude. `grad`, `t` hold rows.size() rows.
Verification verify_gradient(const float* grad, const float* t, std::int64_t rows, std::int64_t vocab,
                             bool log_target, double g);

}  // namespace klmini
