#include "host/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "numerics/semantics.hpp"
#include "numerics/series_log.hpp"

namespace klmini {

namespace {

template <class... Args>
std::string format_line(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// The rule for values that are not finite, shared by scalars and elements: NaN matches only
// NaN, an infinity only the same infinity. Empty when both are finite.
std::optional<bool> non_finite_match(double got, double ref) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
  if (std::isinf(ref) || std::isinf(got)) return got == ref;
  return std::nullopt;
}

// Element-by-element comparison of fp32 results with their fp64 references.
void add_element(ElementChecks::Tally& tally, std::int64_t i, double got, double ref, double bound) {
  bool ok;
  if (const auto special = non_finite_match(got, ref)) {
    ok = *special;
  } else {
    const double d = std::fabs(got - ref);
    ok = d <= bound;
    tally.worst_ratio = std::max(tally.worst_ratio, d / bound);
    tally.diff_sq += d * d;
    tally.ref_sq += ref * ref;
  }
  if (!ok && tally.bad++ == 0) tally.first_bad = i;
}

// `into` then `row` (a later row): the first bad element stays the earliest.
void merge(ElementChecks::Tally& into, const ElementChecks::Tally& row) {
  if (into.bad == 0) into.first_bad = row.first_bad;
  into.bad += row.bad;
  into.worst_ratio = std::max(into.worst_ratio, row.worst_ratio);
  into.diff_sq += row.diff_sq;
  into.ref_sq += row.ref_sq;
}

std::string failure(const ElementChecks::Tally& tally, const std::string& what, std::int64_t vocab) {
  return std::to_string(tally.bad) + " " + what + "(s) outside their bound; first at checked row " +
         std::to_string(tally.first_bad / vocab) + ", column " + std::to_string(tally.first_bad % vocab);
}

// Each row's tally in parallel, then merged in row order (the same result for any thread count).
template <class CheckRow>
void check_rows(ElementChecks::Tally& tally, std::int64_t first_row, std::int64_t rows, CheckRow check_row) {
  std::vector<ElementChecks::Tally> per_row(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t r = 0; r < rows; ++r) check_row(per_row[std::size_t(r)], first_row + r, r);
  for (const auto& row : per_row) merge(tally, row);
}

}  // namespace

Verification compare_scalar(double got, double expected, double bound) {
  Verification v;
  v.expected = expected;
  v.tolerance = bound;
  if (const auto special = non_finite_match(got, expected)) {
    v.passed = *special;
    v.relative_error = v.passed ? 0.0 : std::numeric_limits<double>::infinity();
    if (std::isnan(expected) || std::isnan(got))
      v.detail =
          v.passed ? "NaN, as the reference" : (std::isnan(got) ? "NaN, reference is finite" : "reference is NaN");
    else
      v.detail = v.passed                  ? "infinite, as the reference"
                 : std::isfinite(expected) ? "infinite where the reference is finite: an fp32 term or sum past fp32's "
                                             "range (precision = \"exact\" takes the terms in fp64)"
                                           : "infinity does not match the reference";
    return v;
  }
  const double diff = std::fabs(got - expected);
  v.relative_error = expected != 0.0 ? diff / std::fabs(expected) : diff;
  v.passed = diff <= bound;
  v.detail = format_line("|error| %.3e, bound %.3e", diff, bound);
  return v;
}

ReferenceSummary summarize(const std::vector<RowTotals>& rows) {
  ReferenceSummary r;
  double c = 0.0;
  for (const RowTotals& row : rows) {  // Kahan-Babuska: the reference's own error stays negligible
    const double y = row.sum;
    const double s = r.sum + y;
    c += std::fabs(r.sum) >= std::fabs(y) ? (r.sum - s) + y : (y - s) + r.sum;
    r.sum = s;
    r.sum_of_squares += y * y;
    r.magnitude += row.magnitude;
  }
  // An infinite or NaN row leaves the plain IEEE sum (the compensation would turn inf into NaN).
  if (std::isfinite(r.sum)) r.sum += c;
  r.rows = double(rows.size());
  return r;
}

Verification verify_full(double got_sum, const ReferenceSummary& ref, double scale, double tolerance) {
  Verification v =
      compare_scalar(got_sum * scale, ref.sum * scale,
                     tolerance * ref.magnitude * std::fabs(scale) + std::numeric_limits<double>::denorm_min());
  v.mode = VerifyMode::full;
  v.rows_checked = static_cast<std::int64_t>(ref.rows);
  return v;
}

Verification verify_full(double got_sum, const std::vector<RowTotals>& rows, double scale, double tolerance) {
  return verify_full(got_sum, summarize(rows), scale, tolerance);
}

double student_t_two_sided_tail(double t, std::int64_t dof) {
  // With theta = atan(t / sqrt(dof)), P(|T| <= t) is a finite series in cos^2(theta)
  // (Abramowitz and Stegun 26.7.3-4): odd dof (2/pi)(theta + sin cos (1 + 2/3 c2 + 2*4/(3*5) c2^2 ...)),
  // even dof sin (1 + 1/2 c2 + 1*3/(2*4) c2^2 ...), up to c2^((dof-3)/2) and c2^((dof-2)/2).
  const double theta = std::atan(t / std::sqrt(double(dof)));
  const double s = std::sin(theta), c = std::cos(theta), c2 = c * c;
  double series = 0.0, term = 1.0;
  if (dof % 2 == 1) {
    for (std::int64_t k = 1; 2 * k + 1 <= dof; ++k) {
      series += term;
      term *= c2 * double(2 * k) / double(2 * k + 1);
    }
    constexpr double kTwoOverPi = 0.63661977236758134308;
    return 1.0 - kTwoOverPi * (theta + s * c * series);
  }
  for (std::int64_t k = 1; 2 * k <= dof; ++k) {
    series += term;
    term *= c2 * double(2 * k - 1) / double(2 * k);
  }
  return 1.0 - s * series;
}

double sample_critical_value(std::int64_t dof) {
  dof = std::min(dof, kSampleDofCap);
  const double target = std::erfc(kSampleSigmas / std::sqrt(2.0));  // a normal's two-sided tail
  // The tail falls as t grows, and t's quantile lies above the normal's: bisect in log t
  // between kSampleSigmas and 1e10 (one degree of freedom needs about 3.2e8).
  double lo = kSampleSigmas, hi = 1e10;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * lo; ++i) {
    const double mid = std::sqrt(lo * hi);
    (student_t_two_sided_tail(mid, dof) > target ? lo : hi) = mid;
  }
  return hi;
}

Verification verify_sample(double got_sum, const ReferenceSummary& sample, std::int64_t tokens, double scale,
                           double tolerance) {
  const double n = sample.rows;
  if (n < 2.0) {
    Verification v;
    v.mode = VerifyMode::sample;
    v.passed = false;
    v.relative_error = std::numeric_limits<double>::infinity();
    v.rows_checked = static_cast<std::int64_t>(n);
    v.detail = "a sample of fewer than 2 rows cannot estimate the loss's spread";
    return v;
  }
  const double mean = sample.sum / n;
  const double var = std::max(0.0, (sample.sum_of_squares - n * mean * mean) / (n - 1.0));
  const double N = double(tokens);
  const double fpc = N > 1.0 ? std::sqrt(std::max(0.0, (N - n) / (N - 1.0))) : 0.0;
  const double std_error = N * std::sqrt(var / n) * fpc;
  const double rounding = tolerance * sample.magnitude / n * N;
  const std::int64_t dof = static_cast<std::int64_t>(n) - 1;
  const double critical = sample_critical_value(dof);
  Verification v =
      compare_scalar(got_sum * scale, N * mean * scale,
                     (critical * std_error + rounding) * std::fabs(scale) + std::numeric_limits<double>::denorm_min());
  v.mode = VerifyMode::sample;
  v.rows_checked = static_cast<std::int64_t>(n);
  v.detail += format_line(
      " (estimate from %lld sampled rows: %.2f standard errors, t's %.0f-sigma quantile for "
      "%lld degrees of freedom, = %.3e)",
      static_cast<long long>(n), critical, kSampleSigmas, static_cast<long long>(dof),
      critical * std_error * std::fabs(scale));
  return v;
}

Verification verify_sample(double got_sum, const std::vector<RowTotals>& rows, std::int64_t tokens, double scale,
                           double tolerance) {
  return verify_sample(got_sum, summarize(rows), tokens, scale, tolerance);
}

void ElementChecks::add_terms(const float* out, const float* lp, const float* t, std::int64_t rows, bool log_target) {
  const std::int64_t vocab = vocab_;
  check_rows(tally_, rows_, rows, [=](Tally& tally, std::int64_t row, std::int64_t r) {
    // The row's fp64 terms and bounds in a loop that vectorizes (one log each), then the compare.
    std::vector<double> ref(static_cast<std::size_t>(vocab)), bound(static_cast<std::size_t>(vocab));
    const float *t_row = t + r * vocab, *lp_row = lp + r * vocab;
#pragma omp simd
    for (std::int64_t j = 0; j < vocab; ++j) {
      const auto tm = kl_term_and_magnitude(math::SeriesLog{}, double(t_row[j]), double(lp_row[j]), log_target);
      ref[std::size_t(j)] = tm.term;
      bound[std::size_t(j)] = kTermTolerance * tm.magnitude + std::numeric_limits<float>::denorm_min();
    }
    for (std::int64_t j = 0; j < vocab; ++j)
      add_element(tally, row * vocab + j, out[r * vocab + j], ref[std::size_t(j)], bound[std::size_t(j)]);
  });
  rows_ += rows;
}

void ElementChecks::add_gradient(const float* grad, const float* t, std::int64_t rows, bool log_target, double g) {
  const std::int64_t vocab = vocab_;
  check_rows(tally_, rows_, rows, [=](Tally& tally, std::int64_t row, std::int64_t r) {
    for (std::int64_t j = 0; j < vocab; ++j) {
      const std::int64_t i = r * vocab + j;
      const double ref = kl_grad(double(t[i]), g, log_target);
      add_element(tally, row * vocab + j, grad[i], ref,
                  kTermTolerance * std::fabs(ref) + std::numeric_limits<float>::denorm_min());
    }
  });
  rows_ += rows;
}

Verification ElementChecks::terms() const {
  Verification v;
  v.rows_checked = rows_;
  v.passed = tally_.bad == 0;
  v.relative_error = tally_.ref_sq > 0.0 ? std::sqrt(tally_.diff_sq / tally_.ref_sq) : std::sqrt(tally_.diff_sq);
  v.tolerance = kTermTolerance;
  v.detail = v.passed ? format_line("every element within its bound (worst %.2f of it; norm-wise %.3e)",
                                    tally_.worst_ratio, v.relative_error)
                      : failure(tally_, "element", vocab_);
  return v;
}

Verification ElementChecks::gradient() const {
  Verification v;
  v.rows_checked = rows_;
  v.tolerance = kTermTolerance;
  v.passed = tally_.bad == 0;
  v.relative_error = tally_.worst_ratio * kTermTolerance;
  v.detail = v.passed ? format_line("gradient: every element within its bound (worst %.2f of it)", tally_.worst_ratio)
                      : failure(tally_, "gradient element", vocab_);
  return v;
}

Verification verify_terms(const float* out, const float* lp, const float* t, std::int64_t rows, std::int64_t vocab,
                          bool log_target) {
  ElementChecks checks(vocab);
  checks.add_terms(out, lp, t, rows, log_target);
  return checks.terms();
}

Verification verify_gradient(const float* grad, const float* t, std::int64_t rows, std::int64_t vocab, bool log_target,
                             double g) {
  ElementChecks checks(vocab);
  checks.add_gradient(grad, t, rows, log_target, g);
  return checks.gradient();
}

}  // namespace klmini
