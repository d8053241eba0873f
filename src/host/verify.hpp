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

#include "host/config.hpp"
#include "host/reference.hpp"

namespace klmini {

inline constexpr double kFp32Roundoff = 1.0 / 16777216.0;  // 2^-24
inline constexpr double kTermTolerance = 8.0 * kFp32Roundoff;
// precision = "exact": terms in fp64 (exact_log within a few fp64 ulp, then fp64 products and
// sums). 1024 fp64 roundoffs per unit of magnitude (~1.1e-13) leaves room for the summation
// order, which differs between kernels and reference, and still catches any fp32 step.
inline constexpr double kExactTermTolerance = 1024.0 / 9007199254740992.0;  // 2^10 * 2^-53
// The per-term tolerance of a sum computed at the given precision (resolved, not backend_default).
inline double sum_tolerance(Precision p) { return p == Precision::exact ? kExactTermTolerance : kTermTolerance; }
// Sampled verification accepts the loss within a critical number of standard errors of the
// estimate, chosen so that a correct result fails as rarely as a normal beyond kSampleSigmas
// (about 2e-9). The standard error is itself estimated from the sampled rows, so the critical
// value is Student's t quantile for rows - 1 degrees of freedom at that rate: 6.0 for large
// samples, far wider for a handful of rows (whose spread can look much smaller than it is).
inline constexpr double kSampleSigmas = 6.0;
// Degrees of freedom beyond this count as this many (t's quantile is then within 0.1% of
// the normal's, and the cap keeps the series short).
inline constexpr std::int64_t kSampleDofCap = 10000;
// P(|T| > t) for Student's t with `dof` >= 1 degrees of freedom (exact series for integer dof).
double student_t_two_sided_tail(double t, std::int64_t dof);
// The t with student_t_two_sided_tail(t, dof) equal to a normal's two-sided tail beyond
// kSampleSigmas (dof capped at kSampleDofCap).
double sample_critical_value(std::int64_t dof);

struct Verification {
  VerifyMode mode = VerifyMode::off;
  bool passed = true;
  double expected = 0.0;        // scaled reference (or estimate) of the loss
  double relative_error = 0.0;  // |got - expected| / |expected| (absolute when expected == 0)
  double tolerance = 0.0;       // the bound on |got - expected| that was applied (scaled)
  std::int64_t rows_checked = 0;
  std::string detail;  // one line for the report
};

// Compare a scaled result `got` with the scaled reference `expected`, given the bound.
Verification compare_scalar(double got, double expected, double bound);

// What verification needs of a set of reference rows; sums of these over ranks combine them.
struct ReferenceSummary {
  double rows = 0.0, sum = 0.0, sum_of_squares = 0.0, magnitude = 0.0;
};
ReferenceSummary summarize(const std::vector<RowTotals>& rows);

// Full: every row of the reference. `scale` is the reduction's.
// `tolerance` is the per-term tolerance of the kernel's precision (sum_tolerance).
Verification verify_full(double got_sum, const ReferenceSummary& ref, double scale, double tolerance = kTermTolerance);
Verification verify_full(double got_sum, const std::vector<RowTotals>& rows, double scale,
                         double tolerance = kTermTolerance);

// Sample: the loss estimated from rows drawn at random out of `tokens`; passes within
// sample_critical_value(rows - 1) standard errors (with the finite-population correction) plus
// rounding. Fewer than 2 rows cannot estimate a spread: that fails, saying so.
Verification verify_sample(double got_sum, const ReferenceSummary& sample, std::int64_t tokens, double scale,
                           double tolerance = kTermTolerance);
Verification verify_sample(double got_sum, const std::vector<RowTotals>& rows, std::int64_t tokens, double scale,
                           double tolerance = kTermTolerance);

// The `none` matrix: every element of the given rows against its fp64 term, each within
// kTermTolerance of its own magnitude. The gradient: every element against kl_grad in fp64
// with the same g, each within kTermTolerance of its own magnitude. Fed block by block of
// rows, in row order (the inputs need not be on the host all at once); rows of a block are
// checked in parallel, and the result does not depend on the blocks or the threads. One
// object checks one matrix (terms or gradient).
class ElementChecks {
 public:
  explicit ElementChecks(std::int64_t vocab) : vocab_(vocab) {}
  // `out`, `lp`, `t` (`grad`, `t`) hold `rows` rows of `vocab`, the next ones in order.
  void add_terms(const float* out, const float* lp, const float* t, std::int64_t rows, bool log_target);
  void add_gradient(const float* grad, const float* t, std::int64_t rows, bool log_target, double g);
  Verification terms() const;
  Verification gradient() const;

  struct Tally {
    std::int64_t bad = 0, first_bad = -1;  // first_bad: element index over all rows fed
    double worst_ratio = 0.0, diff_sq = 0.0, ref_sq = 0.0;
  };

 private:
  std::int64_t vocab_, rows_ = 0;
  Tally tally_;
};

// One block of rows: `rows` rows in `out`, `lp`, `t` (or `grad`, `t`).
Verification verify_terms(const float* out, const float* lp, const float* t, std::int64_t rows, std::int64_t vocab,
                          bool log_target);
Verification verify_gradient(const float* grad, const float* t, std::int64_t rows, std::int64_t vocab, bool log_target,
                             double g);

}  // namespace klmini
