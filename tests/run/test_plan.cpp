// The run's plan (src/run/plan.hpp): each timed variant bound to its row and to the kernel that
// computes what the row says, on a 2 x 2 problem whose terms are known.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <vector>

namespace {

const std::vector<float> kTargets = {0.5f, 0.5f, 0.25f, 0.75f};
const std::vector<float> kModel = {0.25f, 0.75f, 0.5f, 0.5f};

std::vector<float> logs(const std::vector<float>& x) {
  std::vector<float> out;
  for (const float v : x) out.push_back(std::log(v));
  return out;
}

// t (log t - lp), element by element, in fp64.
double term(std::size_t i) { return kTargets[i] * (std::log(double(kTargets[i])) - std::log(double(kModel[i]))); }

}  // namespace

TEST_CASE("the plan binds each timed variant to its row and its kernel") {
  using klmini::Variant;
  const auto p = upload(logs(kModel), kTargets, 2, 2, false);
  klmini::Outputs<Space> out;
  out.terms = klmini::Outputs<Space>::Matrix("terms", 2, 2);
  out.grad = klmini::Outputs<Space>::Matrix("grad", 2, 2);
  out.grad_scale = 0.5f;
  const std::vector<Variant> timed = {Variant::fused, Variant::flat, Variant::terms, Variant::fused_grad,
                                      Variant::grad_only};
  const auto plan = klmini::make_plan(timed, p, out, klmini::LaunchShape::automatic);
  REQUIRE(plan.size() == timed.size());
  const double sum = term(0) + term(1) + term(2) + term(3);
  REQUIRE(sum > 0.1);  // the inputs differ: a kernel that adds nothing cannot pass
  const klmini::Result<Space> result("result");
  for (std::size_t k = 0; k < plan.size(); ++k) {
    INFO(klmini::variant_name(timed[k]));
    CHECK(plan[k].variant == &klmini::info(timed[k]));
    plan[k].kernel(result);
    // The gradient alone sums nothing; every other kernel leaves the sum of terms.
    const double expected = timed[k] == Variant::grad_only ? 0.0 : sum;
    CHECK(klmini::read_result<Space>(result) == Catch::Approx(expected).epsilon(1e-6).margin(1e-12));
  }
  const auto terms = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.terms);
  const auto grad = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.grad);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(terms.data()[i] == Catch::Approx(term(i)).epsilon(1e-6));
    CHECK(grad.data()[i] == Catch::Approx(-0.5 * kTargets[i]).epsilon(1e-6));  // d/dlp of t(log t - lp), scaled
  }
}

TEST_CASE("an empty timing list plans nothing") {
  const auto p = upload({0.f}, {1.f}, 1, 1, false);
  CHECK(klmini::make_plan({}, p, klmini::Outputs<Space>{}, klmini::LaunchShape::automatic).empty());
}
