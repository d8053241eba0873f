// The math of kernels and reference alike (src/numerics/math.hpp): the kernels' log on the host
// (vector_logf, within 2 ulp) and its special values, the fp64 log and abs across Kokkos releases.
// In the Kokkos test binaries: with Kokkos, math.hpp takes Kokkos' functions.
#include <Kokkos_Core.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <limits>

#include "numerics/math.hpp"

TEST_CASE("the kernels' log: log's values and special cases") {
  using klmini::math::kernel_log;
  CHECK(kernel_log(1.0f) == 0.0f);
  CHECK(kernel_log(0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(kernel_log(-1.0f)));
  CHECK(std::isnan(kernel_log(std::numeric_limits<float>::quiet_NaN())));
  CHECK(kernel_log(std::numeric_limits<float>::infinity()) == std::numeric_limits<float>::infinity());
  for (const float x : {0.5f, 2.0f, 1e-30f, 3.0e38f, 0.1f}) {
    const double exact = std::log(double(x));
    const double ulp = std::nextafter(float(exact), std::numeric_limits<float>::infinity()) - float(exact);
    CHECK(std::abs(double(kernel_log(x)) - exact) <= 2.0 * std::abs(ulp));
  }
  CHECK(kernel_log(0.25) == std::log(0.25));  // fp64: the accurate log
}

TEST_CASE("abs and exp of math.hpp, whichever Kokkos provides them") {
  CHECK(klmini::math::abs(-2.5) == 2.5);
  CHECK(klmini::math::abs(-2.5f) == 2.5f);
  CHECK(klmini::math::exp(0.0) == 1.0);
  CHECK(klmini::math::sqrt(16.0) == 4.0);
}
