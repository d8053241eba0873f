// Whole runs through klmini::run (src/run/runner.hpp, src/run/backends.cpp): every reduction and
// the `none` matrix written to its file, bitwise reproducibility, 64-bit indexing, and the
// backends and variants a run leaves out.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <optional>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "host/npy.hpp"

TEST_CASE("every reduction scales the same sum; none writes the matrix") {
  klmini::Config c = small_config(6, 77);
  c.variant = klmini::Variant::fused;
  double sums[3];
  int i = 0;
  for (const auto red : {klmini::Reduction::batchmean, klmini::Reduction::sum, klmini::Reduction::mean}) {
    c.reduction = red;
    const klmini::Record r = klmini::run(c);
    CHECK(r.results.front().verification.passed);
    sums[i++] = r.loss;
  }
  CHECK(sums[0] * 6 == Catch::Approx(sums[1]).epsilon(1e-14));
  CHECK(sums[2] * 6 * 77 == Catch::Approx(sums[1]).epsilon(1e-14));

  const klmini::testing::TempDir dir("terms");
  const std::string path = dir.file("terms.npy");
  c.reduction = klmini::Reduction::none;
  c.output = path;
  const klmini::Record r = klmini::run(c);
  REQUIRE(r.results.size() == 1);
  CHECK(r.results.front().variant == klmini::Variant::terms);
  CHECK(r.results.front().verification.passed);
  // A different fp32 kernel (it may contract and vectorize differently): equal to rounding.
  CHECK(r.loss == Catch::Approx(sums[1]).epsilon(1e-6));
  CHECK(r.output_written == path);
  const auto h = klmini::inspect_npy_f32(path, 6, 77);
  std::vector<float> terms(6 * 77);
  klmini::read_npy_rows(path, h, 0, 6, terms.data());
  double s = 0.0;
  for (float x : terms) s += x;
  CHECK(s == Catch::Approx(sums[1]).epsilon(1e-6));
}

TEST_CASE("the loss is bitwise identical from run to run") {
  klmini::Config c = small_config(33, 517);
  c.repeats = 5;
  const klmini::Record a = klmini::run(c), b = klmini::run(c);
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    CHECK(a.results[i].reproducible);
    CHECK(std::memcmp(&a.results[i].sum, &b.results[i].sum, sizeof(double)) == 0);
  }
}

TEST_CASE("fused runs in the shape its trial chose, or the deck's; every candidate gives the same loss") {
  // vocab 4104: rows of whole 16-byte chunks, longer than 2048 (two host candidates).
  klmini::Config c = small_config(9, 4104);
  c.variant = klmini::Variant::fused;
  c.repeats = 3;
  const klmini::Record chosen = klmini::run(c);
  REQUIRE(chosen.fused_shape_choice == klmini::ShapeChoice::trial);
  REQUIRE(chosen.fused_shape_trials.size() >= 2);
  bool among = false;
  for (const klmini::ShapeTrial& t : chosen.fused_shape_trials) {
    CHECK(t.median_s > 0.0);
    among |= t.shape == chosen.fused_shape;
  }
  CHECK(among);
  CHECK(chosen.results.front().verification.passed);
  // Each candidate forced by the deck: the same loss, bitwise where the sum is a FixedSum.
  for (const klmini::ShapeTrial& t : chosen.fused_shape_trials) {
    INFO(klmini::shape_name(t.shape));
    c.shape = t.shape;
    const klmini::Record forced = klmini::run(c);
    CHECK(forced.fused_shape == t.shape);
    CHECK(forced.fused_shape_choice == klmini::ShapeChoice::deck);
    CHECK(forced.fused_shape_trials.empty());
    CHECK(forced.results.front().verification.passed);
    if constexpr (klmini::kFixedUnits<Space>)
      CHECK(std::memcmp(&forced.loss, &chosen.loss, sizeof(double)) == 0);
    else
      CHECK(forced.loss == Catch::Approx(chosen.loss).epsilon(1e-12));
  }
  // A shape of the other kind of space, or a device shape where rows are not whole chunks.
  c.shape = klmini::is_host_space<Space>() ? klmini::LaunchShape::grid_u2_half : klmini::LaunchShape::rows;
  REQUIRE_THROWS_WITH(klmini::run(c), Catch::Matchers::ContainsSubstring("key 'shape': '") &&
                                          Catch::Matchers::ContainsSubstring("does not apply to this run on"));
  c.vocab = 4103;
  c.shape = klmini::LaunchShape::automatic;
  const klmini::Record one = klmini::run(c);
  CHECK(one.fused_shape_choice ==
        (klmini::is_host_space<Space>() ? klmini::ShapeChoice::trial : klmini::ShapeChoice::only));
}

TEST_CASE("backends and variants not compiled in are clear errors") {
  CHECK(klmini::resolve_backend(klmini::find_backend(KLMINI_TEST_BACKEND)) == klmini::backend_info<Space>().id);
  CHECK(klmini::resolve_backend(std::nullopt) == klmini::compiled_backends().front());
#ifndef KOKKOS_ENABLE_CUDA
  REQUIRE_THROWS_WITH(klmini::resolve_backend(klmini::Backend::cuda),
                      Catch::Matchers::ContainsSubstring("backend 'cuda' is not compiled into this build"));
  klmini::Config cuda = small_config(2, 8);
  cuda.backend = klmini::Backend::cuda;
  REQUIRE_THROWS_AS(klmini::run(cuda), klmini::NotCompiledIn);
#endif
  REQUIRE_THROWS_AS(klmini::variants::run_loss_variant(klmini::Variant::terms, upload({0.f}, {1.f}, 1, 1, false),
                                                       klmini::Result<Space>("r")),
                    klmini::InputError);
  // variant = "all" times every variant compiled in that applies: kokkos_kernels has no exact
  // terms and no 16-bit inputs (the memory estimate counts its exp(t) only where it runs).
  klmini::Config c = small_config(2, 8);
  using klmini::Variant;
  CHECK(klmini::timed_variants(c) == variants_built());
  c.precision = klmini::Precision::exact;
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::fused, Variant::flat});
  c.precision = klmini::Precision::fast;
  c.dtype = klmini::DType::bf16;
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::fused, Variant::flat});
  c.variant = klmini::Variant::flat;
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::flat});
  c.gradient = true;  // the gradient's kernels follow the loss variants
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::flat, Variant::fused_grad, Variant::grad_only});
  c.reduction = klmini::Reduction::none;
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::terms, Variant::fused_grad, Variant::grad_only});
}

TEST_CASE("tokens x vocab >= 2^31 elements: 64-bit indexing end to end", "[large]") {
  if (klmini::is_host_space<Space>()) SKIP("device spaces only: 17 GB of input");
  klmini::Config c = small_config(16384, 131072);
  REQUIRE(c.elements() >= (std::int64_t(1) << 31));
  c.verify = klmini::VerifyMode::sample;
  c.sample_rows = 64;
  c.repeats = 1;
  const klmini::Record r = klmini::run(c);
  for (const auto& v : r.results) {
    INFO(klmini::variant_name(v.variant) << ": " << v.verification.detail);
    CHECK(v.verification.passed);
    CHECK(std::isfinite(v.loss));
    CHECK(v.loss > 0.5);  // KL of two independent softmax(randn) rows is about 1
  }
}
