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

// e ln2 + f + f^2 r(f) in fp64 from f^2 and r in fp32, against libm's fp64 log.
static double host_block_log(const std::uint32_t bits) {
  const klmini::math::LogReduced r = klmini::math::reduce_for_log(bits);
  const double f = r.f, f2 = double(r.f * r.f);  // f^2 rounded to fp32, as the kernels have it
  return double(r.e) * 0.6931471805599453 + f + f2 * double(klmini::math::log1p_tail(r.f));
}

TEST_CASE("the host blocks' log, e ln2 + f + f^2 r(f), is within 1.3e-8 of fp64 and unbiased") {
  // Every 97th fp32 value of [1/2, 2), which holds every reduced mantissa, then every bf16 and
  // fp16 mantissa (16-bit inputs see only those, so an error there does not average out).
  struct Grid {
    const char* name;
    std::uint32_t step;
  };
  for (const Grid g : {Grid{"fp32", 97}, Grid{"bf16", 1u << 16}, Grid{"fp16", 1u << 13}}) {
    double worst = 0.0, signed_sum = 0.0;
    std::int64_t count = 0;
    for (std::uint32_t bits = 0x3f000000u; bits < 0x40000000u; bits += g.step, ++count) {
      float x;
      std::memcpy(&x, &bits, sizeof x);
      const double error = host_block_log(bits) - std::log(double(x));
      worst = std::max(worst, std::fabs(error));
      signed_sum += error;
    }
    INFO(g.name << ": worst " << worst << ", mean " << signed_sum / double(count) << " over " << count);
    CHECK(worst <= 1.3e-8);
    CHECK(std::fabs(signed_sum / double(count)) <= 1e-9);
  }
  // The reduction, x = 2^e (1 + f) exactly with f in [sqrt(1/2) - 1, sqrt(2) - 1), in every binade.
  std::int64_t outside = 0, inexact = 0;
  for (std::uint32_t bits = 0x00800000u; bits < 0x7f800000u; bits += 40961) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    const klmini::math::LogReduced r = klmini::math::reduce_for_log(bits);
    outside += (r.f < -0.2929f || r.f > 0.4143f) ? 1 : 0;
    inexact += std::ldexp(double(r.f) + 1.0, int(r.e)) == double(x) ? 0 : 1;
  }
  CHECK(outside == 0);
  CHECK(inexact == 0);
}
