// Every loss variant (src/kernels/dispatch.hpp: src/kernels/fused.hpp, src/kernels/flat.hpp,
// src/kernels/kokkos_kernels.hpp) and the term kernel on one backend against the
// semantics: the edge-case vectors of docs/SEMANTICS.md in both target forms, whole runs on
// random inputs of awkward sizes, and rows that would show a biased log.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/edge_cases.hpp"

TEST_CASE("every variant reproduces the semantics vectors, both target forms") {
  REQUIRE(variants_built().size() >= 2);
  for (const auto& base : klmini::testing::edge_cases()) {
    for (const bool log_form : {false, true}) {
      const auto c = log_form ? klmini::testing::as_log_target(base) : base;
      const auto p =
          upload(klmini::testing::to_float(c.lp), klmini::testing::to_float(c.t), c.tokens, c.vocab, log_form);
      typename Problem<Space>::Matrix out("out", c.tokens, c.vocab);
      std::vector<std::pair<std::string, double>> sums;
      const klmini::Result<Space> result("result");
      for (const klmini::Variant v : variants_built()) {
        klmini::variants::run_loss_variant(v, p, result);
        sums.emplace_back(klmini::variant_name(v), klmini::read_result<Space>(result));
      }
      klmini::variants::terms(p, out, result);
      sums.emplace_back("terms", klmini::read_result<Space>(result));
      // The bound verification applies (verify.hpp): a few fp32 units of each term's magnitude.
      double magnitude = 0.0;
      for (std::size_t i = 0; i < c.t.size(); ++i)
        magnitude += klmini::kl_term_magnitude(double(float(c.t[i])), double(float(c.lp[i])), log_form);
      const double bound = klmini::kTermTolerance * magnitude / double(c.tokens) + 1e-15;
      for (const auto& [name, sum] : sums) {
        INFO(c.id << " variant " << name << ", bound " << bound);
        const double got = sum / double(c.tokens);
        if (std::isnan(c.batchmean))
          CHECK(std::isnan(got));
        else
          CHECK(std::fabs(got - c.batchmean) <= bound);
      }
    }
  }
}

TEST_CASE("random inputs of awkward sizes: every variant within the stated bound of fp64") {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{1, 1},  {1, 2},     {3, 1},     {1, 4097},
                                                                     {5, 33}, {17, 1001}, {64, 4099}, {7, 31}};
  for (const auto& [tokens, vocab] : shapes) {
    for (const bool log_target : {false, true}) {
      INFO(tokens << " x " << vocab << (log_target ? " log_target" : ""));
      klmini::Config c = small_config(tokens, vocab);
      c.log_target = log_target;
      const klmini::Record r = klmini::run(c);
      REQUIRE(r.results.size() == variants_built().size());
      for (const auto& v : r.results) {
        INFO(klmini::variant_name(v.variant) << ": " << v.verification.detail);
        CHECK(v.verification.passed);
        CHECK(v.verification.mode == klmini::VerifyMode::full);
        CHECK(std::isfinite(v.loss));
        CHECK(v.reproducible);
        CHECK(v.GBps > 0.0);
      }
      CHECK(r.results.front().variant == klmini::Variant::fused);
      CHECK(r.read_ceiling.GBps > 0.0);
    }
  }
}

TEST_CASE("the kernels' log is unbiased: rows of equal probabilities, each its own value") {
  // Row r holds k = 1000 + r equal probabilities t = 1/k (then zeros) and lp = log(t) - 1:
  // every row's KL divergence is 1 up to the inputs' rounding, and each row's log argument has
  // its own significand. A log whose error has a bias (CUDA's __logf returns on average half
  // an ulp of its result too close to zero) is off by that bias in every row, about 3.5e-7 of
  // the loss; an unbiased one leaves noise that averages out over the rows (~1e-8).
  constexpr std::int64_t rows = 2048, vocab = 3072;
  std::vector<float> lp(rows * vocab, -30.0f), t(rows * vocab, 0.0f);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t k = 1000 + r;
    const float p = static_cast<float>(1.0 / double(k));
    for (std::int64_t j = 0; j < k; ++j) {
      t[r * vocab + j] = p;
      lp[r * vocab + j] = static_cast<float>(std::log(double(p)) - 1.0);
    }
  }
  double expected = 0.0;
  for (const auto& row : klmini::reference_rows(lp.data(), t.data(), rows, vocab, false)) expected += row.sum;
  const auto p = upload(lp, t, rows, vocab, false);
  const klmini::Result<Space> result("result");
  for (const klmini::Variant v : variants_built()) {
    klmini::variants::run_loss_variant(v, p, result);
    const double got = klmini::read_result<Space>(result);
    INFO(klmini::variant_name(v) << ": " << got << " against " << expected);
    CHECK(std::abs(got - expected) <= 5e-8 * std::abs(expected));
  }
}
