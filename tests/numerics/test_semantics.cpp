// kl_term (src/numerics/semantics.hpp), the one statement of the semantics, in fp64 on the
// edge-case vectors of docs/SEMANTICS.md, and PyTorch's rules for zero, negative and NaN targets.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <limits>

#include "common/edge_cases.hpp"
#include "numerics/semantics.hpp"

using klmini::testing::edge_cases;

TEST_CASE("kl_term in fp64 reproduces every edge-case vector to 1e-15") {
  for (const auto& base : edge_cases()) {
    for (const bool log_form : {false, true}) {
      const auto c = log_form ? klmini::testing::as_log_target(base) : base;
      INFO(c.id);
      double sum = 0.0;
      for (std::size_t i = 0; i < c.t.size(); ++i) sum += klmini::kl_term(c.t[i], c.lp[i], log_form);
      const double got = sum / double(c.tokens);
      if (std::isnan(c.batchmean)) {
        CHECK(std::isnan(got));
      } else {
        CHECK(got == Catch::Approx(c.batchmean).epsilon(1e-15).margin(1e-16));
      }
    }
  }
}

TEST_CASE("zero, negative and NaN targets follow PyTorch, not the clamping peers") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(klmini::kl_term(0.0, -3.0, false) == 0.0);       // xlogy(0, 0) = 0
  CHECK(std::isnan(klmini::kl_term(0.0, -inf, false)));  // 0 * -inf
  CHECK(std::isnan(klmini::kl_term(0.0, std::nan(""), false)));
  CHECK(std::isnan(klmini::kl_term(-0.1, -1.0, false)));  // log of a negative target
  CHECK(std::isnan(klmini::kl_term(std::nan(""), -1.0, false)));
  CHECK(std::isnan(klmini::kl_term(-inf, -1.0, true)));  // exp(-inf) * -inf
  CHECK(klmini::kl_term(std::log(0.5), std::log(0.25), true) == Catch::Approx(0.5 * std::log(2.0)).epsilon(1e-15));
  CHECK(klmini::kl_term(0.0f, -3.0f, false) == 0.0f);  // the fp32 form the kernels use
  CHECK(std::isnan(klmini::kl_term(0.0f, -std::numeric_limits<float>::infinity(), false)));
}
