// The generator's exp (src/numerics/series_exp.hpp) against libm's: the whole finite range,
// next to 0, the ends of the range and the special values.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>

#include "numerics/series_exp.hpp"

namespace {

double ulp_error(double got, double want) {
  const double ulp = std::fabs(std::nextafter(want, INFINITY) - want);
  return std::fabs(got - want) / ulp;
}

}  // namespace

TEST_CASE("series_exp (the generator's exp): within 2 ulp of libm's over [-708, 709.78], special values as exp's") {
  std::mt19937_64 gen(20261204);
  double worst_ulp = 0.0, worst_x = 0.0;
  const auto track = [&](double x) {
    const double err = ulp_error(klmini::math::series_exp(x), std::exp(x));
    if (err > worst_ulp) worst_ulp = err, worst_x = x;
  };
  std::uniform_real_distribution<double> whole(-708.0, 709.78), near_zero(-1.0, 1.0), logits(-9.0, 9.0);
  for (int k = 0; k < 200000; ++k) {
    track(whole(gen));
    track(near_zero(gen));
    track(logits(gen));  // the generator's range: logits of a standard normal
  }
  for (int e = -1074; e <= -1; ++e) track(std::ldexp(1.0, e));  // tiny arguments: exp(x) = 1
  for (double x : {-708.0, 709.78, 709.782712893384, 0.5 * std::log(2.0), -0.5 * std::log(2.0), 1.0, -1.0}) track(x);
  INFO("worst " << worst_ulp << " ulp at x = " << worst_x);
  CHECK(worst_ulp <= 2.0);
  CHECK(klmini::math::series_exp(0.0) == 1.0);
  CHECK(klmini::math::series_exp(-0.0) == 1.0);
  CHECK(klmini::math::series_exp(-708.5) == 0.0);  // below the normal range: flushed to 0
  CHECK(klmini::math::series_exp(-INFINITY) == 0.0);
  CHECK(klmini::math::series_exp(709.79) == INFINITY);
  CHECK(klmini::math::series_exp(INFINITY) == INFINITY);
  CHECK(std::isnan(klmini::math::series_exp(NAN)));
  CHECK(std::isnan(klmini::math::series_exp(-NAN)));
}
