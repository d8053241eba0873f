// The seeded generator (src/core/generate.hpp): its rows are distributions, and a row's values
// do not depend on how the rows are split across ranks.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

TEST_CASE("generated inputs are distributions and independent of how rows are split") {
  const std::int64_t tokens = 9, vocab = 1003;
  const std::uint64_t seed = fresh_seed();
  typename Problem<Space>::Matrix all("all", tokens, vocab), tail("tail", tokens - 4, vocab);
  klmini::generate_softmax_rows<Space>(all, 0, vocab, seed, klmini::Stream::targets, false);
  klmini::generate_softmax_rows<Space>(tail, 4, vocab, seed, klmini::Stream::targets, false);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), all);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tail);
  for (std::int64_t r = 0; r < tokens; ++r) {
    double s = 0.0;
    for (std::int64_t j = 0; j < vocab; ++j) s += a(r, j);
    CHECK(s == Catch::Approx(1.0).epsilon(1e-5));
  }
  for (std::int64_t r = 4; r < tokens; ++r)
    for (std::int64_t j = 0; j < vocab; ++j) REQUIRE(a(r, j) == b(r - 4, j));
  typename Problem<Space>::Matrix lp("lp", tokens, vocab);
  klmini::generate_softmax_rows<Space>(lp, 0, vocab, seed, klmini::Stream::log_probs, true);
  auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lp);
  double s = 0.0, spread = 0.0;
  for (std::int64_t j = 0; j < vocab; ++j) {
    s += std::exp(double(l(0, j)));
    spread = std::max(spread, std::fabs(double(l(0, j) - l(0, 0))));
  }
  CHECK(s == Catch::Approx(1.0).epsilon(1e-5));
  CHECK(spread > 1.0);  // logits of a standard normal: not a constant row
}
