// Step three of a run: every kernel's result against the fp64 host reference, on all rows
// (verify = "full") or a seeded sample of them (verify = "sample"); the term matrix and the
// gradient element by element on those rows.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/problem.hpp"
#include "host/comm.hpp"
#include "host/config.hpp"
#include "host/progress.hpp"
#include "host/reference.hpp"
#include "host/variants.hpp"
#include "host/verify.hpp"
#include "numerics/reduction.hpp"
#include "run/plan.hpp"
#include "run/row_blocks.hpp"

namespace klmini {

inline ReferenceSummary sum_over_ranks(const ReferenceSummary& r, const Comm& comm) {
  double v[4] = {r.rows, r.sum, r.sum_of_squares, r.magnitude};
  comm.sum(v, 4);
  return {v[0], v[1], v[2], v[3]};
}
template <class Space, class T>
class Checker {
 public:
  // Computes the reference of this rank's rows to check (none when verify = "off").
  Checker(const Config& c, const Problem<Space, T>& p, const RowRange& mine, const Comm& comm)
      : c_(c),
        p_(p),
        mine_(mine),
        comm_(comm),
        scale_(reduction_scale(c.reduction, c.tokens, c.vocab)),
        sampled_(c.verify == VerifyMode::sample && c.sample_rows < c.tokens),
        tolerance_(sum_tolerance(c.precision)) {
    if (c.verify == VerifyMode::off) return;
    // Reference rows of this rank (local indices): all of them, or those of a seeded global sample.
    if (c.verify == VerifyMode::full) rows_ = sample_rows(mine.count, mine.count, c.seed);
    if (c.verify == VerifyMode::sample)
      for (const std::int64_t r : sample_rows(c.tokens, c.sample_rows, c.seed))
        if (r >= mine.begin && r < mine.begin + mine.count) rows_.push_back(r - mine.begin);
    Kokkos::Timer timer;
    ref_ = reference_of(rows_);
    seconds_ = comm.max(timer.seconds());
  }

  double reference_seconds() const { return seconds_; }

  // The kernel of `v` left `sum` and, for the writing kernels, its matrix in `out`.
  Verification check(const VariantInfo& v, double sum, const Outputs<Space>& out) const {
    if (v.computes == Computes::gradient) {
      Verification g = check_gradient(out);
      g.mode = c_.verify;
      return g;
    }
    Verification check = check_loss(sum);
    if (v.computes == Computes::terms_matrix) check = with_matrix(check, out);
    if (v.computes == Computes::loss_and_gradient) {
      const Verification g = check_gradient(out);
      check.passed = check.passed && g.passed;
      check.detail = g.detail + "; loss: " + check.detail;
    }
    return check;
  }

 private:
  using Matrix = typename Problem<Space, T>::Matrix;
  using OutMatrix = typename Outputs<Space>::Matrix;

  std::int64_t block_rows() const { return rows_per_block(c_.vocab, std::int64_t(std::max(sizeof(T), sizeof(float)))); }

  // The fp64 reference of the given local rows, summed over ranks; the inputs streamed in blocks.
  ReferenceSummary reference_of(const std::vector<std::int64_t>& rows) const {
    const std::int64_t count = static_cast<std::int64_t>(rows.size()), block = block_rows();
    RowStream<Matrix> lp(p_.lp, rows, block), t(p_.t, rows, block);
    std::vector<RowTotals> totals;
    totals.reserve(rows.size());
    Progress progress("fp64 reference", count, comm_.root());
    for_each_block<Space>(
        count, block,
        [&](std::int64_t first, std::int64_t n, const float* lp_rows, const float* t_rows) {
          const std::vector<RowTotals> part = reference_rows(lp_rows, t_rows, n, c_.vocab, c_.log_target);
          totals.insert(totals.end(), part.begin(), part.end());
          progress.update(first + n);
        },
        lp, t);
    return sum_over_ranks(summarize(totals), comm_);
  }

  // The loss (sum of terms) against the reference: full, or estimated from the sample.
  Verification check_loss(double sum) const {
    if (sampled_ && std::isfinite(sum)) return verify_sample(sum, ref_, c_.tokens, scale_, tolerance_);
    if (!sampled_) return verify_full(sum, ref_, scale_, tolerance_);
    // A non-finite loss from a sample cannot be judged: check every row.
    Verification check =
        verify_full(sum, reference_of(sample_rows(mine_.count, mine_.count, c_.seed)), scale_, tolerance_);
    check.detail += " (loss not finite: checked every row)";
    return check;
  }

  // The term matrix itself, element by element on the reference rows, beside the sum's check.
  Verification with_matrix(const Verification& sum_check, const Outputs<Space>& out) const {
    const std::int64_t count = static_cast<std::int64_t>(rows_.size()), block = block_rows();
    RowStream<OutMatrix> terms(out.terms, rows_, block);
    RowStream<Matrix> lp(p_.lp, rows_, block), t(p_.t, rows_, block);
    ElementChecks checks(c_.vocab);
    Progress progress("checking the term matrix", count, comm_.root());
    for_each_block<Space>(
        count, block,
        [&](std::int64_t first, std::int64_t n, const float* terms_rows, const float* lp_rows, const float* t_rows) {
          checks.add_terms(terms_rows, lp_rows, t_rows, n, c_.log_target);
          progress.update(first + n);
        },
        terms, lp, t);
    Verification m = checks.terms();
    const bool matrix_ok = comm_.all(m.passed);
    m.relative_error = comm_.max(m.relative_error);
    m.rows_checked = sum_check.rows_checked;
    m.mode = c_.verify;
    m.passed = matrix_ok && sum_check.passed;
    m.detail = "matrix: " + (matrix_ok ? m.detail : "elements outside their bound on some rank (" + m.detail + ")") +
               "; sum: " + sum_check.detail;
    m.expected = sum_check.expected;
    return m;
  }

  // Every gradient element of the reference rows, on every rank.
  Verification check_gradient(const Outputs<Space>& out) const {
    const std::int64_t count = static_cast<std::int64_t>(rows_.size()), block = block_rows();
    RowStream<OutMatrix> grad(out.grad, rows_, block);
    RowStream<Matrix> t(p_.t, rows_, block);
    ElementChecks checks(c_.vocab);
    Progress progress("checking the gradient", count, comm_.root());
    for_each_block<Space>(
        count, block,
        [&](std::int64_t first, std::int64_t n, const float* grad_rows, const float* t_rows) {
          checks.add_gradient(grad_rows, t_rows, n, c_.log_target, double(out.grad_scale));
          progress.update(first + n);
        },
        grad, t);
    Verification m = checks.gradient();
    m.passed = comm_.all(m.passed);
    if (!m.passed) m.detail = "gradient elements outside their bound on some rank (" + m.detail + ")";
    return m;
  }

  const Config& c_;
  const Problem<Space, T>& p_;
  RowRange mine_;
  const Comm& comm_;
  double scale_;
  bool sampled_;
  double tolerance_;
  std::vector<std::int64_t> rows_;
  ReferenceSummary ref_;
  double seconds_ = 0.0;
};

}  // namespace klmini
