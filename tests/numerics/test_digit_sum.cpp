// The kernels' sum (src/numerics/digit_sum.hpp): bitwise the same FixedSum as adding every value
// to a FixedSum, for values of every magnitude, non-finite ones, whole numbers of grids and
// BinnedSum's bins; the same in any order and grouping; exact while its words stay in bounds.
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
#include "numerics/digit_sum.hpp"

using klmini::BinnedSum;
using klmini::DigitSum;
using klmini::FixedSum;

namespace {

FixedSum fixed_sum_of(const std::vector<double>& xs) {
  FixedSum s;
  for (const double x : xs) s += x;
  return s;
}

DigitSum digit_sum_of(const std::vector<double>& xs, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  DigitSum s;
  for (std::size_t i = first; i < std::min(last, xs.size()); ++i) s += xs[i];
  return s;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("digit sum: the same FixedSum as adding each value to one, any magnitude, order and grouping") {
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> xs = klmini::testing::adversarial_values(gen, 5000);
    const FixedSum direct = fixed_sum_of(xs);
    INFO("trial " << trial);
    CHECK(digit_sum_of(xs).to_fixed() == direct);
    // Threads' own sums, joined in another order (as a reduction or the atomic words do).
    std::vector<double> shuffled = xs;
    std::shuffle(shuffled.begin(), shuffled.end(), gen);
    std::vector<DigitSum> parts;
    for (std::size_t first = 0; first < shuffled.size(); first += 777)
      parts.push_back(digit_sum_of(shuffled, first, first + 777));
    std::shuffle(parts.begin(), parts.end(), gen);
    DigitSum joined;
    for (const DigitSum& part : parts) joined += part;
    CHECK(joined.to_fixed() == direct);
    CHECK(same_bits(joined.to_fixed().to_double(), direct.to_double()));
    // Word by word, as threads add the words of their parts atomically.
    DigitSum words;
    for (int i = DigitSum::kWords - 1; i >= 0; --i)
      for (const DigitSum& part : parts) words.w[i] += part.w[i];
    CHECK(words == joined);
  }
}

TEST_CASE("digit sum: every word takes at most a 32-bit digit per value") {
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  for (const double x : klmini::testing::adversarial_values(gen, 2000)) {
    INFO("x = " << x);
    const DigitSum one(x);
    for (const std::uint64_t word : one.w) {
      const auto digit = static_cast<std::int64_t>(word);
      CHECK(digit < (std::int64_t(1) << 32));
      CHECK(digit > -(std::int64_t(1) << 32));
    }
  }
}

TEST_CASE("digit sum: long runs of one value, far beyond a double's 53 bits, stay exact") {
  for (const double x :
       {std::nextafter(0x1p128, 0.0), -std::nextafter(0x1p128, 0.0), 0x1.8p-96, 0x1p-97, 1.0 / 3.0, -0.1}) {
    INFO("x = " << x);
    const std::vector<double> xs(200000, x);
    CHECK(digit_sum_of(xs).to_fixed() == fixed_sum_of(xs));
  }
  std::vector<double> xs(50000, std::nextafter(0x1p128, 0.0));
  xs.insert(xs.end(), 50000, 0x1p-96);
  xs.insert(xs.end(), 50000, -std::nextafter(0x1p128, 0.0));
  CHECK(digit_sum_of(xs).to_fixed().to_double() == 50000 * 0x1p-96);
}

TEST_CASE("digit sum: infinities, NaN and values past the range as FixedSum takes them") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> cases = {{1.0, inf, 2.0},   {-inf, 1.0}, {inf, 1.0, -inf}, {nan, 1.0},
                                                  {0x1p128, -1e300}, {0x1p128},   {-1e300},         {3.0, -1e39}};
  for (const auto& xs : cases) {
    INFO("first value " << xs.front());
    CHECK(digit_sum_of(xs).to_fixed() == fixed_sum_of(xs));
  }
  CHECK(digit_sum_of({1.0, inf}).to_fixed().to_double() == inf);
  CHECK(std::isnan(digit_sum_of({inf, -inf}).to_fixed().to_double()));
  CHECK(digit_sum_of({1e300}).to_fixed().beyond_range());
}

TEST_CASE("compact digit sum: FixedSum's total below 2^128, the range flag beyond it") {
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  const std::vector<double> xs = klmini::testing::adversarial_values(gen, 9000);
  klmini::CompactDigitSum compact;
  for (const double x : xs) compact += x;
  CHECK(compact.to_fixed() == fixed_sum_of(xs));
  CHECK(compact.to_fixed() == digit_sum_of(xs).to_fixed());
  // Many times the largest value in range: exact (each word is a signed count, no modulo).
  klmini::CompactDigitSum many;
  const double top = std::nextafter(0x1p128, 0.0);
  for (int i = 0; i < 4096; ++i) many += top;
  CHECK(many.to_fixed().to_double() == 4096 * top);
  for (const double x : {0x1p128, -1e39, 1e300}) {
    INFO("x = " << x);
    klmini::CompactDigitSum s(1.0);
    s += x;
    CHECK(s.to_fixed().beyond_range());
    CHECK(!fixed_sum_of({1.0, x}).beyond_range() == (std::fabs(x) < 0x1p320));
  }
}

TEST_CASE("digit sum: whole numbers of grids at any bit offset, and BinnedSum's bins") {
  for (const int bit : {0, 31, 32, 40, 63, 64, 100, 160, 200, 224}) {
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(-1), std::int64_t(-1234567890123457),
                                 (std::int64_t(1) << 52) - 1, -(std::int64_t(1) << 52)}) {
      INFO("n = " << n << ", bit = " << bit);
      DigitSum digits;
      digits.add_grids(n, bit);
      FixedSum grids;
      grids.add_grids(n, bit);
      CHECK(digits.to_fixed() == grids);
      digits.add_grids(-n, bit);
      CHECK(digits.to_fixed() == FixedSum());
    }
  }
  std::mt19937_64 gen(klmini::testing::fresh_seed());
  const std::vector<double> xs = klmini::testing::adversarial_values(gen, 9000);  // renormalizes
  BinnedSum bins;
  for (const double x : xs) bins += x;
  DigitSum digits;
  digits += bins;
  CHECK(digits.to_fixed() == fixed_sum_of(xs));
}
