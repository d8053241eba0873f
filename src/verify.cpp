#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "semantics.hpp"

namespace klmini {

namespace {

std::string format_line(const char* fmt, double a, double b) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b);
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
struct ElementCheck {
  std::int64_t bad = 0, first_bad = -1;
  double worst_ratio = 0.0, diff_sq = 0.0, ref_sq = 0.0;

  void add(std::int64_t i, double got, double ref, double bound) {
    bool ok;
    if (const auto special = non_finite_match(got, ref)) {
      ok = *special;
    } else {
      const double d = std::fabs(got - ref);
      ok = d <= bound;
      worst_ratio = std::max(worst_ratio, d / bound);
      diff_sq += d * d;
      ref_sq += ref * ref;
    }
    if (!ok && bad++ == 0) first_bad = i;
  }
  std::string failure(const std::string& what, std::int64_t vocab) const {
    return std::to_string(bad) + " " + what + "(s) outside their bound; first at checked row " +
           std::to_string(first_bad / vocab) + ", column " + std::to_string(first_bad % vocab);
  }
};

}  // namespace

Verification compare_scalar(double got, double expected, double bound) {
  Verification v;
  v.expected = expected;
  v.tolerance = bound;
  if (const auto special = non_finite_match(got, expected)) {
    v.passed = *special;
    v.relative_error = v.passed ? 0.0 : std::numeric_limits<double>::infinity();
    if (std::isnan(expected) || std::isnan(got))
      v.detail = v.passed ? "NaN, as the reference" : (std::isnan(got) ? "NaN, reference is finite" : "reference is NaN");
    else
      v.detail = v.passed ? "infinite, as the reference" : "infinity does not match the reference";
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
  r.sum += c;
  r.rows = double(rows.size());
  return r;
}

Verification verify_full(double got_sum, const ReferenceSummary& ref, double scale, double tolerance) {
  Verification v = compare_scalar(got_sum * scale, ref.sum * scale,
                                  tolerance * ref.magnitude * std::fabs(scale) +
                                      std::numeric_limits<double>::denorm_min());
  v.mode = VerifyMode::full;
  v.rows_checked = static_cast<std::int64_t>(ref.rows);
  return v;
}

Verification verify_full(double got_sum, const std::vector<RowTotals>& rows, double scale, double tolerance) {
  return verify_full(got_sum, summarize(rows), scale, tolerance);
}

Verification verify_sample(double got_sum, const ReferenceSummary& sample, std::int64_t tokens, double scale,
                           double tolerance) {
  const double n = sample.rows;
  const double mean = sample.sum / n;
  const double var = n > 1.0 ? std::max(0.0, (sample.sum_of_squares - n * mean * mean) / (n - 1.0)) : 0.0;
  const double N = double(tokens);
  const double fpc = N > 1.0 ? std::sqrt(std::max(0.0, (N - n) / (N - 1.0))) : 0.0;
  const double std_error = N * std::sqrt(var / n) * fpc;
  const double rounding = tolerance * sample.magnitude / n * N;
  Verification v = compare_scalar(got_sum * scale, N * mean * scale,
                                  (kSampleSigmas * std_error + rounding) * std::fabs(scale) +
                                      std::numeric_limits<double>::denorm_min());
  v.mode = VerifyMode::sample;
  v.rows_checked = static_cast<std::int64_t>(n);
  v.detail += " (estimate from " + std::to_string(v.rows_checked) + " sampled rows, " +
              format_line("%.0f sigma = %.3e)", kSampleSigmas, kSampleSigmas * std_error * std::fabs(scale));
  return v;
}

Verification verify_sample(double got_sum, const std::vector<RowTotals>& rows, std::int64_t tokens,
                           double scale, double tolerance) {
  return verify_sample(got_sum, summarize(rows), tokens, scale, tolerance);
}

Verification verify_terms(const float* out, const float* lp, const float* t, std::int64_t rows,
                          std::int64_t vocab, bool log_target) {
  ElementCheck check;
  for (std::int64_t i = 0; i < rows * vocab; ++i) {
    const double ti = t[i], lpi = lp[i];
    check.add(i, out[i], kl_term(ti, lpi, log_target),
              kTermTolerance * kl_term_magnitude(ti, lpi, log_target) + std::numeric_limits<float>::denorm_min());
  }
  Verification v;
  v.rows_checked = rows;
  v.passed = check.bad == 0;
  v.relative_error = check.ref_sq > 0.0 ? std::sqrt(check.diff_sq / check.ref_sq) : std::sqrt(check.diff_sq);
  v.tolerance = kTermTolerance;
  v.detail = v.passed ? format_line("every element within its bound (worst %.2f of it; norm-wise %.3e)",
                                    check.worst_ratio, v.relative_error)
                      : check.failure("element", vocab);
  return v;
}

Verification verify_gradient(const float* grad, const float* t, std::int64_t rows, std::int64_t vocab,
                             bool log_target, double g) {
  ElementCheck check;
  for (std::int64_t i = 0; i < rows * vocab; ++i) {
    const double ref = kl_grad(double(t[i]), g, log_target);
    check.add(i, grad[i], ref, kTermTolerance * std::fabs(ref) + std::numeric_limits<float>::denorm_min());
  }
  Verification v;
  v.rows_checked = rows;
  v.tolerance = kTermTolerance;
  v.passed = check.bad == 0;
  v.relative_error = check.worst_ratio * kTermTolerance;
  if (v.passed) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "gradient: every element within its bound (worst %.2f of it)", check.worst_ratio);
    v.detail = buf;
  } else {
    v.detail = check.failure("gradient element", vocab);
  }
  return v;
}

}  // namespace klmini
