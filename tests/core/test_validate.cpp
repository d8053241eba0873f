// validate = true (src/core/validate.hpp): generated rows pass in every dtype, and rows that are
// not distributions are named by global index.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>

TEST_CASE("validation accepts generated rows and names the rows that are not distributions") {
  for (const bool log_target : {false, true}) {
    klmini::Config c = small_config(6, 50);
    c.log_target = log_target;
    const auto p = klmini::make_problem<Space>(c, 0, c.tokens);
    CHECK_NOTHROW(klmini::validate_inputs(p, 0, klmini::Comm::world()));
    auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
    // Row 4 no longer normalized, by far more than the tolerance whatever the drawn values: a
    // log-target of 0 is a probability of 1 on top of the row's (a shift of the small t(4, 7)
    // itself could move logsumexp by less than the tolerance).
    t(4, 7) = log_target ? 0.0f : t(4, 7) + 0.5f;
    Kokkos::deep_copy(p.t, t);
    REQUIRE_THROWS_WITH(
        klmini::validate_inputs(p, 100, klmini::Comm::world()),
        Catch::Matchers::ContainsSubstring("1 row(s)") && Catch::Matchers::ContainsSubstring("row 104"));
  }
  klmini::Config c = small_config(3, 8);
  const auto p = klmini::make_problem<Space>(c, 0, c.tokens);
  auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
  t(1, 0) = -t(1, 0);
  t(2, 3) = NAN;
  Kokkos::deep_copy(p.t, t);
  REQUIRE_THROWS_WITH(klmini::validate_inputs(p, 0, klmini::Comm::world()),
                      Catch::Matchers::ContainsSubstring("row 1: a negative target") &&
                          Catch::Matchers::ContainsSubstring("row 2: 1 NaN entries"));
}

TEST_CASE("validation allows the input dtype's rounding: generated bf16 and fp16 rows pass, bad rows still fail") {
  for (const auto dtype : {klmini::DType::bf16, klmini::DType::fp16}) {
    for (const std::int64_t vocab : {16, 64, 1000}) {
      for (const bool log_target : {false, true}) {
        klmini::Config c = small_config(64, vocab);
        c.dtype = dtype;
        c.log_target = log_target;
        c.validate = true;
        c.variant = klmini::Variant::fused;
        INFO(klmini::to_string(dtype) << " vocab " << vocab << (log_target ? " log_target" : ""));
        CHECK_NOTHROW(klmini::run(c));  // before the fix, bf16 lp rows failed at 1e-3
      }
    }
  }
  // A row off by 20% is still caught in bf16.
  klmini::Config c = small_config(4, 64);
  c.dtype = klmini::DType::bf16;
  const auto p = klmini::make_problem<Space, klmini::bf16>(c, 0, c.tokens);
  auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
  t(2, 5) = klmini::to_bf16(klmini::to_float(t(2, 5)) + 0.2f);
  Kokkos::deep_copy(p.t, t);
  REQUIRE_THROWS_WITH(
      klmini::validate_inputs(p, 0, klmini::Comm::world()),
      Catch::Matchers::ContainsSubstring("1 row(s)") && Catch::Matchers::ContainsSubstring("row 2: targets sum to"));
}
