// The kernels' fp32 log (src/numerics/fast_log.hpp) against libm's fp64 log: sampled arguments
// of every binade and the special values. It lives in the Kokkos test binaries, not the host
// one, for the kernels' compile flags.
#include <Kokkos_Core.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "numerics/fast_log.hpp"

TEST_CASE("the kernels' fp32 log is within 3 ulp of fp64 and keeps log's special values") {
  // Compiled with the kernels' flags (-fno-trapping-math, the host ISA), as the kernels are.
  double worst = 0.0;
  for (std::uint32_t bits = 1; bits < 0x7f800000u; bits += 4099) {  // every binade, subnormals too
    float x;
    std::memcpy(&x, &bits, sizeof x);
    const double ref = std::log(double(x));
    const float ref_f = float(ref);
    const double ulp = double(std::nextafter(std::fabs(ref_f), INFINITY)) - std::fabs(ref_f);
    worst = std::max(worst, std::fabs(double(klmini::math::vector_logf(x)) - ref) / ulp);
  }
  INFO("worst error " << worst << " ulp");
  CHECK(worst <= 3.0);
  CHECK(klmini::math::vector_logf(0.0f) == -INFINITY);
  CHECK(klmini::math::vector_logf(-0.0f) == -INFINITY);
  CHECK(std::isnan(klmini::math::vector_logf(-1.0f)));
  CHECK(std::isnan(klmini::math::vector_logf(NAN)));
  CHECK(klmini::math::vector_logf(INFINITY) == INFINITY);
  CHECK(klmini::math::vector_logf(1.0f) == 0.0f);
}
