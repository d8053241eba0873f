// The seeded generator (src/core/generate.hpp): its values are the definition computed one
// element at a time, by either schedule; its rows are distributions; a row's values do not
// depend on how the rows are split across ranks; its sine and cosine are libm's to 1e-15.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/generate.hpp"

namespace {

using klmini::GenerateSchedule;
using klmini::Stream;

// Row `row` of the generator's output by its definition, scalar and in the stated order: the
// pairs' normals, each chunk's lanes summed in order, the chunks in order, then z - log(s) or
// exp(z) / s in fp64.
std::vector<double> definition_row(std::uint64_t seed, Stream stream, std::uint64_t row, std::int64_t vocab,
                                   bool as_log) {
  namespace rng = klmini::rng;
  const std::uint64_t pairs = std::uint64_t(vocab + 1) / 2;
  const std::uint64_t key = rng::row_key(rng::stream_key(seed, std::uint64_t(stream)), row, pairs);
  std::vector<double> z(std::size_t(2 * pairs));
  for (std::uint64_t p = 0; p < pairs; ++p) {
    const rng::NormalPair n = rng::normal_pair(key, p);
    z[2 * p] = n.even;
    z[2 * p + 1] = n.odd;
  }
  z.resize(std::size_t(vocab));
  double sum = 0.0;
  for (std::int64_t begin = 0; begin < vocab; begin += klmini::kGenerateChunk) {
    double lane[klmini::kGenerateLanes] = {};
    for (std::int64_t j = begin; j < std::min(vocab, begin + klmini::kGenerateChunk); ++j)
      lane[(j - begin) % klmini::kGenerateLanes] += klmini::math::series_exp(z[std::size_t(j)]);
    double chunk = lane[0];
    for (int l = 1; l < klmini::kGenerateLanes; ++l) chunk += lane[l];
    sum += chunk;
  }
  for (double& x : z) x = as_log ? x - klmini::math::series_log(sum) : klmini::math::series_exp(x) * (1.0 / sum);
  return z;
}

constexpr bool kHostSpace = std::is_same<Space::memory_space, Kokkos::HostSpace>::value;

}  // namespace

TEST_CASE("generated values are the definition's, element by element, by either schedule") {
  const std::uint64_t seed = fresh_seed();
  // Odd, not a multiple of the lanes, one chunk and a part, several chunks.
  for (const std::int64_t vocab : {std::int64_t(7), std::int64_t(300), std::int64_t(1003)}) {
    for (const GenerateSchedule schedule : {GenerateSchedule::rows, GenerateSchedule::passes}) {
      if (schedule == GenerateSchedule::rows && !kHostSpace) continue;  // a host schedule: tested below
      for (const bool as_log : {false, true}) {
        const std::int64_t tokens = 5, offset = 11;
        // fp64 output: the values before rounding to an element type, so that a change of the
        // order of a sum shows.
        Kokkos::View<double**, Kokkos::LayoutRight, Space::memory_space> out("out", tokens, vocab);
        Kokkos::deep_copy(out, std::nan(""));  // poisoned: every element must be written
        const Stream stream = as_log ? Stream::log_probs : Stream::targets;
        klmini::generate_softmax_rows<Space>(out, offset, vocab, seed, stream, as_log, {}, schedule);
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
        std::int64_t mismatches = 0;
        double worst = 0.0;
        for (std::int64_t r = 0; r < tokens; ++r) {
          const std::vector<double> want = definition_row(seed, stream, std::uint64_t(offset + r), vocab, as_log);
          for (std::int64_t j = 0; j < vocab; ++j) {
            const double expected = want[std::size_t(j)], got = host(r, j);
            // Hosts compute the same operations in the same order; a device compiler may fuse
            // multiply-adds, which moves a value by a few ulp.
            const double tolerance = kHostSpace ? 0.0 : 1e-14 * std::fabs(expected);
            const double err = std::fabs(got - expected);
            if (!(err <= tolerance)) ++mismatches;
            worst = std::max(worst, err);
          }
        }
        INFO("vocab " << vocab << ", schedule " << (schedule == GenerateSchedule::rows ? "rows" : "passes") << ", log "
                      << as_log << ": worst difference " << worst);
        CHECK(mismatches == 0);
      }
    }
  }
}

TEST_CASE("the rows schedule is refused on device spaces") {
  typename Problem<Space>::Matrix out("out", 2, 16);
  const auto generate = [&] {
    klmini::generate_softmax_rows<Space>(out, 0, 16, 1, Stream::targets, false, {}, GenerateSchedule::rows);
  };
  if (kHostSpace)
    CHECK_NOTHROW(generate());
  else
    CHECK_THROWS_AS(generate(), std::invalid_argument);
}

TEST_CASE("generated inputs are distributions and independent of how rows are split") {
  const std::int64_t tokens = 9, vocab = 1003;
  const std::uint64_t seed = fresh_seed();
  typename Problem<Space>::Matrix all("all", tokens, vocab), tail("tail", tokens - 4, vocab);
  klmini::generate_softmax_rows<Space>(all, 0, vocab, seed, Stream::targets, false);
  klmini::generate_softmax_rows<Space>(tail, 4, vocab, seed, Stream::targets, false);
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
  klmini::generate_softmax_rows<Space>(lp, 0, vocab, seed, Stream::log_probs, true);
  auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lp);
  double s = 0.0, spread = 0.0;
  for (std::int64_t j = 0; j < vocab; ++j) {
    s += std::exp(double(l(0, j)));
    spread = std::max(spread, std::fabs(double(l(0, j) - l(0, 0))));
  }
  CHECK(s == Catch::Approx(1.0).epsilon(1e-5));
  CHECK(spread > 1.0);  // logits of a standard normal: not a constant row
}

TEST_CASE("the generator's logits are standard normals") {
  // Mean, variance and the tails of 2^20 normals (Box-Muller of exact uniforms).
  const std::uint64_t key = klmini::rng::stream_key(fresh_seed(), 7);
  const std::uint64_t pairs = std::uint64_t(1) << 19;
  double sum = 0.0, squares = 0.0;
  std::uint64_t beyond_two = 0;
  for (std::uint64_t p = 0; p < pairs; ++p) {
    const klmini::rng::NormalPair n = klmini::rng::normal_pair(key, p);
    for (const double z : {n.even, n.odd}) {
      sum += z;
      squares += z * z;
      beyond_two += std::fabs(z) > 2.0;
    }
  }
  const double count = 2.0 * double(pairs);
  CHECK(std::fabs(sum / count) < 5e-3);                            // the mean's sd is 1e-3
  CHECK(std::fabs(squares / count - 1.0) < 7e-3);                  // the variance's sd is 1.4e-3
  CHECK(std::fabs(double(beyond_two) / count - 0.0455) < 1.5e-3);  // P(|z| > 2) = 0.0455, sd 2e-4
}

TEST_CASE("the generator's cosine and sine of 2 pi u are libm's within 1e-15") {
  std::mt19937_64 gen(20261204);
  double worst = 0.0;
  for (int k = 0; k < 100000; ++k) {
    const double u = klmini::rng::uniform(gen());
    REQUIRE(u > 0.0);
    REQUIRE(u < 1.0);
    const klmini::rng::CosSin cs = klmini::rng::cos_sin_turns(u);
    const double angle = 2.0 * M_PI * u;
    worst = std::max({worst, std::fabs(cs.cos - std::cos(angle)), std::fabs(cs.sin - std::sin(angle))});
  }
  for (const double u : {0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 0x1p-53, 1.0 - 0x1p-53}) {  // octant edges
    const klmini::rng::CosSin cs = klmini::rng::cos_sin_turns(u);
    worst =
        std::max({worst, std::fabs(cs.cos - std::cos(2.0 * M_PI * u)), std::fabs(cs.sin - std::sin(2.0 * M_PI * u))});
  }
  INFO("worst difference " << worst);
  CHECK(worst <= 1e-15);
}
