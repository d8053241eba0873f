// A run's verification against the fp64 reference (src/run/check.hpp): sampled rows, the error
// on seed-like inputs, precision = "fast" within 5e-8 on hosts and "exact" within 1e-12 at every
// seed vocabulary.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
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
  c.variant = klmini::Variant::fused;
  const klmini::Record r = klmini::run(c);
  CHECK(r.results.front().verification.passed);
  CHECK(r.results.front().verification.relative_error < 1e-6);
}

TEST_CASE("precision = fast: fused and fused_grad within 5e-8 of fp64 at every seed vocab and dtype on hosts") {
  if (!klmini::is_host_space<Space>()) {
    SUCCEED("device logs are the hardware's: their error is the verification bound's, checked everywhere else");
    return;
  }
  for (const std::int64_t vocab : {4096, 8192, 16384, 32768, 65536, 131072}) {
    for (const klmini::DType dtype : {klmini::DType::fp32, klmini::DType::bf16, klmini::DType::fp16}) {
      klmini::Config c = small_config(std::max<std::int64_t>(2, 262144 / vocab), vocab);
      c.variant = klmini::Variant::fused;
      c.dtype = dtype;
      c.gradient = true;
      const klmini::Record r = klmini::run(c);
      for (const auto& v : r.results) {
        if (v.variant == klmini::Variant::grad_only) continue;  // no loss
        INFO("vocab " << vocab << " " << klmini::to_string(dtype) << " " << klmini::variant_name(v.variant) << ": "
                      << v.verification.detail);
        CHECK(v.verification.passed);
        CHECK(v.verification.relative_error <= 5e-8);
      }
    }
  }
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
