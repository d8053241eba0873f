// A run's verification against the fp64 reference (src/run/check.hpp): sampled rows, the error
// on seed-like inputs, and precision = "exact" within 1e-12 at every seed vocabulary.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>

TEST_CASE("sampled verification passes on correct results and checks the sampled rows") {
  klmini::Config c = small_config(400, 64);
  c.verify = klmini::VerifyMode::sample;
  c.sample_rows = 50;
  const klmini::Record r = klmini::run(c);
  for (const auto& v : r.results) {
    INFO(klmini::variant_name(v.variant) << ": " << v.verification.detail);
    CHECK(v.verification.passed);
    CHECK(v.verification.rows_checked == 50);
  }
}

TEST_CASE("the loss on seed-like inputs is within 1e-6 of fp64") {
  klmini::Config c = small_config(64, 4099);
  c.variant = "fused";
  const klmini::Record r = klmini::run(c);
  CHECK(r.results.front().verification.passed);
  CHECK(r.results.front().verification.relative_error < 1e-6);
}

TEST_CASE("precision = exact: every variant that has it within 1e-12 of fp64 at every seed vocab") {
  for (const std::int64_t vocab : {4096, 8192, 16384, 32768, 65536, 131072}) {
    for (const bool log_target : {false, true}) {
      klmini::Config c = small_config(3, vocab);
      c.precision = klmini::Precision::exact;
      c.log_target = log_target;
      const klmini::Record r = klmini::run(c);
      CHECK(r.config.precision == klmini::Precision::exact);
      for (const auto& v : r.results) {
        INFO("vocab " << vocab << (log_target ? " log_target " : " ") << klmini::variant_name(v.variant) << ": "
                      << v.verification.detail);
        CHECK(v.variant != klmini::Variant::kokkos_kernels);  // fp32 library calls: not run in exact mode
        CHECK(v.verification.passed);
        CHECK(v.verification.relative_error <= 1e-12);
      }
    }
  }
}
