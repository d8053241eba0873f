// The fp64 reference (src/host/reference.cpp) and the verification rules (src/host/verify.cpp),
// without any backend: the reference on the edge-case vectors, full and sampled verification,
// Student's t, the sampled rows, the term matrix's element-wise check.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/edge_cases.hpp"
#include "common/fresh_seed.hpp"
#include "host/reference.hpp"
#include "host/verify.hpp"
#include "numerics/semantics.hpp"

using klmini::testing::edge_cases;

namespace {
double reference_sum(const klmini::testing::EdgeCase& c, bool log_target) {
  const auto lp = klmini::testing::to_float(c.lp), t = klmini::testing::to_float(c.t);
  double s = 0.0;
  for (const auto& r : klmini::reference_rows(lp.data(), t.data(), c.tokens, c.vocab, log_target)) s += r.sum;
  return s;
}
}  // namespace

TEST_CASE("the reference on fp32 inputs matches the vectors to fp32 rounding, for every reduction") {
  for (const auto& base : edge_cases()) {
    for (const bool log_form : {false, true}) {
      const auto c = log_form ? klmini::testing::as_log_target(base) : base;
      INFO(c.id);
      const double sum = reference_sum(c, log_form);
      for (const auto red : {klmini::Reduction::batchmean, klmini::Reduction::sum, klmini::Reduction::mean}) {
        const double expected = c.batchmean * double(c.tokens) * klmini::reduction_scale(red, c.tokens, c.vocab);
        const double got = sum * klmini::reduction_scale(red, c.tokens, c.vocab);
        if (std::isnan(expected))
          CHECK(std::isnan(got));
        else
          CHECK(got == Catch::Approx(expected).epsilon(3e-7).margin(1e-7));
      }
    }
  }
  // F, the two-row vector, with the numbers semantics.md states for each reduction.
  const auto f = edge_cases()[5];
  REQUIRE(f.id == "F");
  const double s = reference_sum(f, false);
  CHECK(s * klmini::reduction_scale(klmini::Reduction::batchmean, 2, 3) ==
        Catch::Approx(0.17328679513998632).epsilon(3e-7));
  CHECK(s * klmini::reduction_scale(klmini::Reduction::sum, 2, 3) == Catch::Approx(0.34657359027997264).epsilon(3e-7));
  CHECK(s * klmini::reduction_scale(klmini::Reduction::mean, 2, 3) == Catch::Approx(0.05776226504666211).epsilon(3e-7));
}

TEST_CASE("compare_scalar: NaN only against NaN, infinities only against the same one") {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  CHECK(klmini::compare_scalar(nan, nan, 1e-6).passed);
  CHECK_FALSE(klmini::compare_scalar(nan, 1.0, 1e-6).passed);
  CHECK_FALSE(klmini::compare_scalar(1.0, nan, 1e-6).passed);
  CHECK(klmini::compare_scalar(inf, inf, 1e-6).passed);
  CHECK_FALSE(klmini::compare_scalar(-inf, inf, 1e-6).passed);
  CHECK_FALSE(klmini::compare_scalar(1.0, inf, 1e-6).passed);
  const auto overflowed = klmini::compare_scalar(inf, 1e43, 1e30);  // fp32 terms past 3.4e38
  CHECK_FALSE(overflowed.passed);
  CHECK_THAT(overflowed.detail, Catch::Matchers::ContainsSubstring("precision = \"exact\""));
  CHECK(klmini::compare_scalar(-inf, inf, 1e-6).detail == "infinity does not match the reference");
  CHECK(klmini::compare_scalar(1.0 + 1e-7, 1.0, 2e-7).passed);
  CHECK_FALSE(klmini::compare_scalar(1.0 + 3e-7, 1.0, 2e-7).passed);
  const auto zero = klmini::compare_scalar(2e-8, 0.0, 1e-7);  // loss 0: the error is absolute
  CHECK(zero.passed);
  CHECK(zero.relative_error == Catch::Approx(2e-8));
}

TEST_CASE("the reference's sum of rows: an infinity stays an infinity, +inf and -inf give NaN") {
  const double inf = std::numeric_limits<double>::infinity();
  const auto sum_of = [](std::vector<double> row_sums) {
    std::vector<klmini::RowTotals> rows;
    for (const double s : row_sums) rows.push_back({s, std::fabs(s)});
    return klmini::summarize(rows).sum;
  };
  CHECK(sum_of({1.0, inf, 2.0}) == inf);
  CHECK(sum_of({-inf, 1.0}) == -inf);
  CHECK(sum_of({inf, inf}) == inf);
  CHECK(std::isnan(sum_of({inf, 1.0, -inf})));
  CHECK(std::isnan(sum_of({1.0, std::nan("")})));
  // Compensated where finite: 1 survives between two huge rows that cancel.
  CHECK(sum_of({3e300, 1.0, -3e300}) == 1.0);
}

TEST_CASE("full verification accepts rounding and rejects a wrong loss") {
  std::mt19937 gen(static_cast<std::uint32_t>(klmini::testing::fresh_seed()));
  std::normal_distribution<double> z;
  const std::int64_t rows = 256, vocab = 129;
  std::vector<float> lp(rows * vocab), t(rows * vocab);
  for (std::int64_t r = 0; r < rows; ++r) {
    double s1 = 0, s2 = 0;
    std::vector<double> a(vocab), b(vocab);
    for (std::int64_t j = 0; j < vocab; ++j) {
      a[j] = z(gen);
      b[j] = z(gen);
      s1 += std::exp(a[j]);
      s2 += std::exp(b[j]);
    }
    for (std::int64_t j = 0; j < vocab; ++j) {
      lp[r * vocab + j] = float(a[j] - std::log(s1));
      t[r * vocab + j] = float(std::exp(b[j]) / s2);
    }
  }
  const auto totals = klmini::reference_rows(lp.data(), t.data(), rows, vocab, false);
  // The rows' sum in extended precision: the reference's compensated sum must match it to
  // 1e-15, closer than a plain double sum of 256 rows is guaranteed to come.
  long double wide_sum = 0.0L;
  for (const auto& r : totals) wide_sum += r.sum;
  const double sum = static_cast<double>(wide_sum);
  double fp32_sum = 0.0;
  for (std::int64_t i = 0; i < rows * vocab; ++i) fp32_sum += double(klmini::kl_term(t[i], lp[i], false));
  const double scale = 1.0 / rows;
  const auto ok = klmini::verify_full(fp32_sum, totals, scale);
  CHECK(ok.passed);
  CHECK(ok.relative_error < 1e-6);
  CHECK(ok.expected == Catch::Approx(sum * scale).epsilon(1e-15));
  const auto off = klmini::verify_full(sum * (1.0 + 1e-4), totals, scale);  // a 1e-4 relative error
  CHECK_FALSE(off.passed);
  CHECK(off.relative_error == Catch::Approx(1e-4).epsilon(1e-6));

  // Sampled: an estimate from a quarter of the rows brackets the true loss, and a loss
  // that is 50% off falls outside it (64 rows: t's critical value is 7.0 standard errors;
  // from 16 rows it is 12.7, and a 50% error is not always that many).
  const auto picked = klmini::sample_rows(rows, 64, 99);
  std::vector<klmini::RowTotals> sample;
  for (const auto r : picked) sample.push_back(totals[r]);
  CHECK(klmini::verify_sample(sum, sample, rows, scale).passed);
  CHECK_FALSE(klmini::verify_sample(sum * 1.5, sample, rows, scale).passed);
}

TEST_CASE("Student's t tail and the sampled check's critical value") {
  using klmini::student_t_two_sided_tail;
  // Closed forms: Cauchy (1 dof) P(|T| > 1) = 1/2; 2 dof P(|T| > t) = 1 - t / sqrt(2 + t^2).
  CHECK(student_t_two_sided_tail(1.0, 1) == Catch::Approx(0.5).epsilon(1e-14));
  CHECK(student_t_two_sided_tail(std::sqrt(2.0 / 3.0), 2) == Catch::Approx(0.5).epsilon(1e-14));
  CHECK(student_t_two_sided_tail(3.0, 2) == Catch::Approx(1.0 - 3.0 / std::sqrt(11.0)).epsilon(1e-14));
  // Printed tables' quantiles (three decimals, so 1% in probability).
  CHECK(student_t_two_sided_tail(12.706, 1) == Catch::Approx(0.05).epsilon(0.01));
  CHECK(student_t_two_sided_tail(2.776, 4) == Catch::Approx(0.05).epsilon(0.01));
  CHECK(student_t_two_sided_tail(3.169, 10) == Catch::Approx(0.01).epsilon(0.01));
  CHECK(student_t_two_sided_tail(2.042, 30) == Catch::Approx(0.05).epsilon(0.01));
  // Many degrees of freedom approach the normal.
  CHECK(student_t_two_sided_tail(1.959964, 10000) == Catch::Approx(0.05).epsilon(0.002));

  // The critical value has the normal's 6-sigma tail, falls with the degrees of freedom, and
  // reaches the normal's 6.0. The tail is 1 minus a sum of dof/2 terms, each rounded by ~1e-16:
  // relative to 2e-9, about 1e-6 at thousands of degrees of freedom (3e-7 of the critical value).
  const double target = std::erfc(klmini::kSampleSigmas / std::sqrt(2.0));
  double previous = std::numeric_limits<double>::infinity();
  for (const std::int64_t dof : {1, 2, 3, 4, 7, 15, 63, 255, 4095}) {
    const double k = klmini::sample_critical_value(dof);
    INFO(dof << " degrees of freedom: " << k);
    CHECK(student_t_two_sided_tail(k, dof) == Catch::Approx(target).epsilon(1e-5));
    CHECK(k < previous);
    CHECK(k > klmini::kSampleSigmas);
    previous = k;
  }
  CHECK(klmini::sample_critical_value(1000000) == Catch::Approx(klmini::kSampleSigmas).epsilon(1e-3));
}

TEST_CASE("sampled verification of a correct loss does not fail from a handful of rows") {
  // 20000 samples of 5 rows out of 1000 normally spread row sums: 6 standard errors estimated
  // from 5 rows fail about 0.4% of them (Student's t, 4 degrees of freedom), t's quantile
  // none. A fixed seed: this checks a rate, not one draw.
  const std::int64_t tokens = 1000;
  std::mt19937 gen(12345);
  std::normal_distribution<double> row_sum(1.0, 0.2);
  std::vector<klmini::RowTotals> totals(tokens);
  double sum = 0.0;
  for (auto& r : totals) {
    r.sum = row_sum(gen);
    r.magnitude = 10.0;
    sum += r.sum;
  }
  int failed = 0;
  for (std::uint64_t trial = 0; trial < 20000; ++trial) {
    std::vector<klmini::RowTotals> sample;
    for (const auto r : klmini::sample_rows(tokens, 5, trial)) sample.push_back(totals[r]);
    failed += !klmini::verify_sample(sum, sample, tokens, 1.0 / tokens).passed;
  }
  CHECK(failed == 0);
  // One row cannot estimate a spread: a failure that says so.
  const auto one = klmini::verify_sample(sum, std::vector<klmini::RowTotals>{totals[0]}, tokens, 1.0 / tokens);
  CHECK_FALSE(one.passed);
  CHECK_THAT(one.detail, Catch::Matchers::ContainsSubstring("fewer than 2 rows"));
}

TEST_CASE("sample_rows is seeded, sorted and distinct") {
  const auto a = klmini::sample_rows(1000, 50, 7), b = klmini::sample_rows(1000, 50, 7);
  const auto c = klmini::sample_rows(1000, 50, 8);
  CHECK(a == b);
  CHECK(a != c);
  REQUIRE(a.size() == 50);
  for (std::size_t i = 1; i < a.size(); ++i) CHECK(a[i - 1] < a[i]);
  CHECK(a.back() < 1000);
  CHECK(klmini::sample_rows(10, 50, 7).size() == 10);
}

TEST_CASE("verify_terms checks every element and points at the first bad one") {
  const std::vector<float> lp = {std::log(.5f), std::log(.25f), std::log(.25f), 0.0f}, t = {.5f, .5f, 0.0f, 1.0f};
  std::vector<float> out(4);
  for (int i = 0; i < 4; ++i) out[i] = klmini::kl_term(t[i], lp[i], false);
  CHECK(klmini::verify_terms(out.data(), lp.data(), t.data(), 2, 2, false).passed);
  out[3] = -7.77e33f;  // an element the kernel never wrote
  const auto bad = klmini::verify_terms(out.data(), lp.data(), t.data(), 2, 2, false);
  CHECK_FALSE(bad.passed);
  CHECK_THAT(bad.detail, Catch::Matchers::ContainsSubstring("row 1, column 1"));
}
