// The fp64 reference's log (src/numerics/series_log.hpp) against libm's: every binade, next to 1
// and the special values.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>

#include "numerics/series_log.hpp"

TEST_CASE("series_log (the fp64 reference's log): within 2 ulp of libm's over every binade, special values as log's") {
  std::mt19937_64 gen(20261203);
  double worst_ulp = 0.0, worst_x = 0.0;
  for (int e = -1074; e <= 1023; e += 1) {
    for (int k = 0; k < 64; ++k) {
      const double m = std::uniform_real_distribution<double>(1.0, 2.0)(gen);
      const double x = std::ldexp(m, e);
      if (x == 0.0 || !std::isfinite(x)) continue;
      const double want = std::log(x), got = klmini::math::series_log(x);
      const double ulp = std::fabs(std::nextafter(want, INFINITY) - want);
      const double err = want == 0.0 ? std::fabs(got) : std::fabs(got - want) / ulp;
      if (err > worst_ulp) worst_ulp = err, worst_x = x;
    }
  }
  for (double x = 0.999; x < 1.001; x += 1e-7) {  // next to 1: a relative bound
    const double want = std::log(x);
    REQUIRE(std::fabs(klmini::math::series_log(x) - want) <= 4.5e-16 * std::fabs(want));
  }
  INFO("worst " << worst_ulp << " ulp at x = " << worst_x);
  CHECK(worst_ulp <= 2.0);
  CHECK(klmini::math::series_log(1.0) == 0.0);
  CHECK(klmini::math::series_log(0.0) == -INFINITY);
  CHECK(klmini::math::series_log(-0.0) == -INFINITY);
  CHECK(std::isnan(klmini::math::series_log(-1.0)));
  CHECK(std::isnan(klmini::math::series_log(NAN)));
  CHECK(klmini::math::series_log(INFINITY) == INFINITY);
  CHECK(klmini::math::series_log(4.9e-324) == std::log(4.9e-324));  // the smallest subnormal
}
