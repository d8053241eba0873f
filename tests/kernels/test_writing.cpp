// The kernels that write a matrix (src/kernels/writing.hpp, src/kernels/terms.hpp,
// src/kernels/gradient.hpp): the `none` term matrix element by
// element against fp64 (output poisoned first), the gradient of every reduction and both target
// forms as written to its file, and both with precision = "exact".
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <vector>

#include "common/edge_cases.hpp"
#include "common/temp_dir.hpp"
#include "host/npy.hpp"
#include "host/report.hpp"

TEST_CASE("the none reduction's matrix matches the fp64 term of every element") {
  for (const auto& base : klmini::testing::edge_cases()) {
    for (const bool log_form : {false, true}) {
      const auto c = log_form ? klmini::testing::as_log_target(base) : base;
      INFO(c.id);
      const auto lp = klmini::testing::to_float(c.lp), t = klmini::testing::to_float(c.t);
      const auto p = upload(lp, t, c.tokens, c.vocab, log_form);
      typename Problem<Space>::Matrix out("out", c.tokens, c.vocab);
      Kokkos::deep_copy(out, -7.77e33f);  // poison
      klmini::variants::terms(p, out, klmini::Result<Space>("sum"));
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      CHECK(klmini::verify_terms(host.data(), lp.data(), t.data(), c.tokens, c.vocab, log_form).passed);
    }
  }
}

TEST_CASE("gradient = true: d(loss)/d(lp) for every reduction and both target forms, in the loss's pass") {
  for (const auto red :
       {klmini::Reduction::batchmean, klmini::Reduction::sum, klmini::Reduction::mean, klmini::Reduction::none}) {
    for (const bool log_target : {false, true}) {
      const klmini::testing::TempDir dir("grad");  // a fresh file for every run
      klmini::Config c = small_config(7, 133);
      c.reduction = red;
      c.log_target = log_target;
      c.variant = klmini::Variant::fused;
      c.gradient = true;
      c.grad_output = dir.file("grad.npy");
      c.overwrite = true;
      INFO(klmini::to_string(red) << (log_target ? " log_target" : ""));
      const klmini::Record r = klmini::run(c);
      REQUIRE(r.results.size() == 3);
      const auto& v = r.results[1];
      CHECK(v.variant == klmini::Variant::fused_grad);
      INFO(v.verification.detail);
      CHECK(v.verification.passed);
      CHECK(v.ceiling == klmini::Ceiling::copy);
      CHECK(v.loss == Catch::Approx(r.results.front().loss).epsilon(1e-6));  // the same loss as fused
      const auto& only = r.results[2];
      CHECK(only.variant == klmini::Variant::grad_only);
      INFO(only.verification.detail);
      CHECK(only.verification.passed);
      CHECK(only.verification.detail.find("gradient: every element") == 0);
      CHECK(r.copy_ceiling.GBps > 0.0);
      CHECK(klmini::one_pass_over_two_passes(r).has_value() == (red != klmini::Reduction::none));
      CHECK(r.grad_written == c.grad_output);
      // The file holds -t * g (or -exp(t) * g) for the generated t.
      const auto p = klmini::make_problem<Space>(c, 0, c.tokens);
      auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
      std::vector<float> grad(7 * 133);
      klmini::read_npy_rows(c.grad_output, klmini::inspect_npy_f32(c.grad_output, 7, 133), 0, 7, grad.data());
      const double g = klmini::reduction_scale(red, 7, 133);
      for (int k : {0, 1, 500, 7 * 133 - 1}) {
        const double tk = t.data()[k];
        CHECK(grad[k] == Catch::Approx(-(log_target ? std::exp(tk) : tk) * g).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE(
    "precision = exact with the term matrix and the gradient; a deck without the key gets the backend's default") {
  klmini::Config c = small_config(5, 1031);
  c.precision = klmini::Precision::exact;
  c.variant = klmini::Variant::fused;
  c.gradient = true;
  for (const auto red : {klmini::Reduction::batchmean, klmini::Reduction::none}) {
    c.reduction = red;
    const klmini::Record r = klmini::run(c);
    for (const auto& v : r.results) {
      INFO(klmini::variant_name(v.variant) << ": " << v.verification.detail);
      CHECK(v.verification.passed);
      // The loss sums (the term matrix itself is fp32, so its element-wise error is fp32's).
      if (v.variant == klmini::Variant::fused || v.variant == klmini::Variant::fused_grad)
        CHECK(v.verification.relative_error <= 1e-12);
    }
  }
  c = small_config(2, 64);
  CHECK(klmini::run(c).config.precision == klmini::backend_info<Space>().default_precision);
}
