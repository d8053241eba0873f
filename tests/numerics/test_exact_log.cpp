// The log of precision = "exact" (src/numerics/exact_log.hpp) against libm's fp64 log: every
// table and polynomial size, the positive-normal fast path, and the per-lane scratch copies of
// its table.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "numerics/bit_cast.hpp"
#include "numerics/exact_log.hpp"

using klmini::float_of;

// The worst error of exact_log<Bits, Degree> in fp64 ulp over sampled fp32 arguments of every binade.
template <int Bits, int Degree>
double exact_log_worst_ulp(std::uint32_t step) {
  const std::vector<double> table = klmini::math::exact_log_table<Bits>();
  double worst_ulp = 0.0;
  std::uint32_t worst_bits = 0;
  for (std::uint32_t bits = 1; bits < 0x7f800000u; bits += step) {  // every binade, subnormals too
    const float x = float_of(bits);
    const double want = std::log(double(x));
    const double got = klmini::math::exact_log<Bits, Degree>(x, table.data());
    const double ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
    const double err = want == 0.0 ? std::fabs(got) : std::fabs(got - want) / ulp;
    if (err > worst_ulp) {
      worst_ulp = err;
      worst_bits = bits;
    }
  }
  INFO("table bits " << Bits << ", degree " << Degree << ": worst " << worst_ulp
                     << " ulp at x = " << float_of(worst_bits));
  CHECK(worst_ulp <= 2.0);
  return worst_ulp;
}

TEST_CASE("exact_log: within 2 fp64 ulp of libm's log over every binade, special values as log's") {
  exact_log_worst_ulp<klmini::math::kExactLogTableBits, klmini::math::kExactLogDegree>(997);
  // Other table and polynomial sizes (docs/PERFORMANCE.md compares their speed).
  exact_log_worst_ulp<7, 8>(7919);
  exact_log_worst_ulp<8, 7>(7919);
  exact_log_worst_ulp<11, 5>(7919);

  const std::vector<double> table = klmini::math::exact_log_table();
  // Next to 1, where log(x) is small and only a relative error bound means anything.
  for (float x = 0.999f; x < 1.001f; x = std::nextafter(x, 2.0f)) {
    const double want = std::log(double(x));
    REQUIRE(std::fabs(klmini::math::exact_log(x, table.data()) - want) <= 4e-16 * std::fabs(want));
  }
  CHECK(klmini::math::exact_log(1.0f, table.data()) == 0.0);
  CHECK(klmini::math::exact_log(0.0f, table.data()) == -INFINITY);
  CHECK(klmini::math::exact_log(-0.0f, table.data()) == -INFINITY);
  CHECK(std::isnan(klmini::math::exact_log(-1.0f, table.data())));
  CHECK(std::isnan(klmini::math::exact_log(-INFINITY, table.data())));
  CHECK(std::isnan(klmini::math::exact_log(NAN, table.data())));
  CHECK(klmini::math::exact_log(INFINITY, table.data()) == INFINITY);
  CHECK(klmini::math::exact_log(1.4e-45f, table.data()) == std::log(double(1.4e-45f)));  // the smallest subnormal
}

TEST_CASE("exact_log_normal: exact_log's value on exactly the positive normal fp32 numbers") {
  using klmini::math::positive_normal;
  for (const float x : {1.17549435e-38f, 1.0f, 0.75f, 3.0e38f, 3.4028235e38f}) CHECK(positive_normal(x));
  for (const float x : {0.0f, -0.0f, 1.1754942e-38f, 1.4e-45f, -1.0f, -1.17549435e-38f, INFINITY, -INFINITY, NAN})
    CHECK_FALSE(positive_normal(x));
  const std::vector<double> table = klmini::math::exact_log_table();
  for (std::uint32_t bits = 0x00800000u; bits < 0x7f800000u; bits += 4099) {  // same bits, same operations
    const float x = float_of(bits);
    REQUIRE(klmini::math::exact_log_normal(x, table.data()) == klmini::math::exact_log(x, table.data()));
  }
}

TEST_CASE("ScratchTable: every lane slot's copy reads the table's entries, and the log from it is the same") {
  using namespace klmini::math;
  const std::vector<double> table = exact_log_table();
  std::vector<double> scratch(kExactLogCopiesBytes<kExactLogTableBits> / sizeof(double), NAN);  // poisoned
  const int threads = 96;  // any team size: the threads share the words between them
  for (int rank = 0; rank < threads; ++rank)
    ScratchTable::fill<kExactLogTableBits>(scratch.data(), table.data(), rank, threads);
  for (const double w : scratch) REQUIRE(!std::isnan(w));
  for (int lane = 0; lane < 32; ++lane) {
    const ScratchTable mine = ScratchTable::for_lane(scratch.data(), lane);
    for (std::uint32_t i = 0; i < (1u << kExactLogTableBits); ++i) {
      const ExactLogEntry want = load_entry(table.data(), i), got = mine(i);
      REQUIRE(got.c == want.c);
      REQUIRE(got.minus_log_c == want.minus_log_c);
    }
    for (std::uint32_t bits = 0x00800000u + 977u * std::uint32_t(lane); bits < 0x7f800000u; bits += 65537) {
      const float x = float_of(bits);
      REQUIRE(exact_log_normal(x, mine) == exact_log_normal(x, table.data()));
    }
  }
}
