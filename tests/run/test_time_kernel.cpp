// Timing one kernel over its repeats (src/run/time_kernel.hpp): how often it runs, the value of
// each timed run, the statistics of its times, and the check that every run wrote its result.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

TEST_CASE("time_kernel runs warmup + repeats times and keeps each timed run's value") {
  const auto p = upload({std::log(0.25f), std::log(0.75f)}, {0.5f, 0.5f}, 1, 2, false);
  const double expected = 0.5 * (std::log(0.5) - std::log(0.25)) + 0.5 * (std::log(0.5) - std::log(0.75));
  int calls = 0;
  const auto kernel = [&](const klmini::Result<Space>& r) {
    ++calls;
    klmini::variants::run_loss_variant(klmini::Variant::fused, p, r);
  };
  std::vector<double> values = {42.0};  // cleared first
  std::vector<double> local;
  const klmini::TimingStats t = klmini::time_kernel<Space>(kernel, 2, 5, values, klmini::Comm::world(), &local);
  CHECK(calls == 7);
  REQUIRE(values.size() == 5);
  for (const double v : values) CHECK(v == Catch::Approx(expected).epsilon(1e-6));
  CHECK(klmini::bitwise_equal(values));
  CHECK(local.size() == 5);
  CHECK(t.min_s > 0.0);
  CHECK(t.min_s <= t.median_s);
  CHECK(t.median_s <= t.max_s);
  CHECK(t.uncovered >= 0);
  CHECK(t.uncovered <= 5);
}

TEST_CASE("a kernel that leaves its result unwritten is an error, not a timing") {
  std::vector<double> values;
  const auto idle = [](const klmini::Result<Space>&) {};
  REQUIRE_THROWS_WITH(klmini::time_kernel<Space>(idle, 0, 1, values, klmini::Comm::world()),
                      Catch::Matchers::ContainsSubstring("a kernel did not write its result"));
}

TEST_CASE("bitwise_equal compares the bits, not the values") {
  CHECK(klmini::bitwise_equal({1.5, 1.5, 1.5}));
  CHECK(klmini::bitwise_equal({}));
  CHECK_FALSE(klmini::bitwise_equal({1.0, std::nextafter(1.0, 2.0)}));
  CHECK_FALSE(klmini::bitwise_equal({0.0, -0.0}));  // equal values, other bits
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(klmini::bitwise_equal({nan, nan}));  // the same bits, though nan != nan
}
