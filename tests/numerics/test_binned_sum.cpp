// The devices' thread sum (src/numerics/binned_sum.hpp): bitwise the same FixedSum as adding
// every value to a FixedSum, on values of every magnitude, ties of the grid, long runs that
// renormalize many times, values at its bins' bounds, and non-finite values.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/adversarial_values.hpp"
#include "common/fresh_seed.hpp"
#include "numerics/binned_sum.hpp"

using klmini::BinnedSum;
using klmini::FixedSum;

namespace {

FixedSum fixed_sum_of(const std::vector<double>& xs) {
  FixedSum s;
  for (const double x : xs) s += x;
  return s;
}

FixedSum binned_sum_of(const std::vector<double>& xs) {
  BinnedSum b;
  for (const double x : xs) b += x;
  FixedSum s;
  s += b;
  return s;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("binned sum: the same FixedSum as adding each value, any magnitude, any order") {
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> xs = klmini::testing::adversarial_values(gen, 9000);  // four renormalizations and more
    const FixedSum direct = fixed_sum_of(xs);
    INFO("trial " << trial);
    CHECK(binned_sum_of(xs) == direct);
    // Threads with their own bins, joined into one FixedSum in any order.
    std::vector<double> shuffled = xs;
    std::shuffle(shuffled.begin(), shuffled.end(), gen);
    FixedSum joined;
    for (std::size_t first = 0; first < shuffled.size(); first += 1234)
      joined += binned_sum_of(
          std::vector<double>(shuffled.begin() + first, shuffled.begin() + std::min(first + 1234, shuffled.size())));
    CHECK(joined == direct);
    CHECK(same_bits(joined.to_double(), direct.to_double()));
  }
}

TEST_CASE("binned sum: threads' bins join exactly, in any tree, whatever each one held") {
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<double> xs = klmini::testing::adversarial_values(gen, 20000);
    // 256 "threads" of uneven lengths, some past a renormalization, joined as a pairwise tree
    // (a team's reduction) and, shuffled, one by one.
    std::vector<BinnedSum> threads(256);
    std::uniform_int_distribution<int> pick(0, 255);
    for (const double x : xs) threads[pick(gen) < 8 ? 0 : pick(gen)] += x;
    std::vector<BinnedSum> tree = threads;
    for (std::size_t width = 1; width < tree.size(); width *= 2)
      for (std::size_t i = 0; i + width < tree.size(); i += 2 * width) tree[i] += tree[i + width];
    std::shuffle(threads.begin(), threads.end(), gen);
    BinnedSum chain;
    for (const BinnedSum& b : threads) chain += b;
    FixedSum from_tree, from_chain;
    from_tree += tree[0];
    from_chain += chain;
    INFO("trial " << trial);
    CHECK(from_tree == fixed_sum_of(xs));
    CHECK(from_chain == fixed_sum_of(xs));
  }
}

TEST_CASE("binned sum: long runs at the bins' bounds stay exact") {
  for (const double x : {std::nextafter(0x1p24, 0.0), -std::nextafter(0x1p24, 0.0), 0x1p24 + 1.0,
                         std::nextafter(0x1p128, 0.0), 0x1.8p-96, 0x1p-97, 1.0 / 3.0}) {
    INFO("x = " << x);
    const std::vector<double> xs(100000, x);
    CHECK(binned_sum_of(xs) == fixed_sum_of(xs));
  }
  // Sums far beyond a double's 53 bits, ending in exact cancellation.
  std::vector<double> xs(50000, std::nextafter(0x1p128, 0.0));
  xs.insert(xs.end(), 50000, 0x1p-96);
  xs.insert(xs.end(), 50000, -std::nextafter(0x1p128, 0.0));
  CHECK(binned_sum_of(xs) == fixed_sum_of(xs));
  CHECK(binned_sum_of(xs).to_double() == 50000 * 0x1p-96);
}

TEST_CASE("binned sum: joins at the bins' bounds stay exact, renormalizing only by count") {
  // 1024 threads (a team's most), each just short of its renormalization, with values at the
  // ordinary bins' top (40 random bits of grids each, either sign, or all one sign), joined in a
  // pairwise tree without renormalizing before each join.
  constexpr int kThreads = 1024, kPerThread = BinnedSum::kRenormalizeEvery - 1;
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  std::uniform_real_distribution<double> magnitude(0x1p23, 0x1p24);
  for (const bool one_sign : {true, false}) {
    INFO("one sign: " << one_sign);
    std::vector<BinnedSum> tree(kThreads);
    std::vector<double> all;
    for (BinnedSum& thread : tree)
      for (int i = 0; i < kPerThread; ++i) {
        const double x = (one_sign || gen() % 2 ? 1.0 : -1.0) * magnitude(gen);
        thread += x;
        all.push_back(x);
      }
    CHECK(tree[0].pending == kPerThread);
    for (std::size_t width = 1; width < tree.size(); width *= 2)
      for (std::size_t i = 0; i + width < tree.size(); i += 2 * width) tree[i] += tree[i + width];
    FixedSum from_tree;
    from_tree += tree[0];
    CHECK(from_tree == fixed_sum_of(all));
  }
}

TEST_CASE("binned sum: infinities, NaN and values past 2^128 as CompactDigitSum takes them") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> cases = {{1.0, inf, 2.0}, {-inf, 1.0},       {inf, 1.0, -inf},
                                                  {nan, 1.0},      {0x1p128, -1e300}, {0x1p128},
                                                  {-1e300},        {3.0, -1e39},      {0x1p128, -0x1p128, 1.0}};
  for (const auto& xs : cases) {
    klmini::CompactDigitSum compact;
    for (const double x : xs) compact += x;
    const FixedSum direct = compact.to_fixed(), binned = binned_sum_of(xs);
    INFO("first value " << xs.front());
    CHECK(direct.beyond_range() == binned.beyond_range());
    CHECK((same_bits(direct.to_double(), binned.to_double()) ||
           (std::isnan(direct.to_double()) && std::isnan(binned.to_double()))));
  }
  CHECK(binned_sum_of({0x1p128, -0x1p128, 1.0}).beyond_range());  // no cancellation hides it
  CHECK(binned_sum_of({1.0, inf}).to_double() == inf);
  CHECK(std::isnan(binned_sum_of({inf, -inf}).to_double()));
}

TEST_CASE("fixed sum: whole numbers of grids at any bit offset, negative ones too") {
  for (const int bit : {0, 40, 63, 64, 100, 160, 200}) {
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(-1), std::int64_t(-1234567890123457),
                                 (std::int64_t(1) << 52) - 1, -(std::int64_t(1) << 52)}) {
      FixedSum grids;
      grids.add_grids(n, bit);
      INFO("n = " << n << ", bit = " << bit);
      const double value = std::ldexp(double(n), bit - 96);
      CHECK(grids.to_double() == value);
      CHECK(grids == FixedSum(value));
      grids.add_grids(-n, bit);
      CHECK(grids == FixedSum());
    }
  }
}
