// The order-independent sum (src/numerics/fixed_sum.hpp) against an exact reference: its error
// bound on adversarial inputs (huge and tiny values, heavy cancellation), correct rounding,
// the grid's rounding, non-finite values, and bitwise independence of order and grouping.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "numerics/fixed_sum.hpp"

using klmini::FixedSum;

namespace {

// The exact sum of any finite doubles: signed 32-bit digits of weight 2^(32 i - 1088) (every
// double is a multiple of 2^-1074), kept in int64 without carries.
struct ExactSum {
  static constexpr int kBias = 1088, kDigits = (1088 + 1024 + 128) / 32;
  std::vector<std::int64_t> digit = std::vector<std::int64_t>(kDigits, 0);

  void add(double x) {
    REQUIRE(std::isfinite(x));
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    const int e = int((b >> 52) & 0x7ff);
    std::uint64_t m = b & ((std::uint64_t(1) << 52) - 1);
    if (e != 0) m |= std::uint64_t(1) << 52;
    const int pos = (e == 0 ? 1 : e) - 1075 + kBias;  // x = m * 2^(pos - kBias)
    const unsigned __int128 v = static_cast<unsigned __int128>(m) << (pos % 32);
    const std::int64_t sign = (b >> 63) != 0 ? -1 : 1;
    for (int k = 0; k < 3; ++k) digit[pos / 32 + k] += sign * std::int64_t((v >> (32 * k)) & 0xffffffffu);
  }
  // The value, to a few ulps (enough to compare an error with its bound): the digits carried
  // into [0, 2^32) on the magnitude, so that the long double sum has no cancellation.
  double approx() const {
    std::vector<std::int64_t> d = digit;
    d.push_back(0);
    carry(d);
    const bool negative = d.back() < 0;
    if (negative) {
      for (std::int64_t& x : d) x = -x;
      carry(d);
    }
    long double sum = 0.0L;
    for (int i = int(d.size()) - 1; i >= 0; --i) sum += std::ldexp(static_cast<long double>(d[i]), 32 * i - kBias);
    return static_cast<double>(negative ? -sum : sum);
  }
  static void carry(std::vector<std::int64_t>& d) {
    std::int64_t c = 0;
    for (std::size_t i = 0; i + 1 < d.size(); ++i) {
      const std::int64_t v = d[i] + c;
      c = v >> 32;  // floor division
      d[i] = v - c * (std::int64_t(1) << 32);
    }
    d.back() += c;
  }
};

double ulp(double x) { return std::nextafter(std::fabs(x), INFINITY) - std::fabs(x); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// |fixed.to_double() - exact sum of xs|, from the exact reference.
double error_of(const FixedSum& fixed, const std::vector<double>& xs) {
  ExactSum exact;
  for (const double x : xs) exact.add(x);
  exact.add(-fixed.to_double());
  return std::fabs(exact.approx());
}

FixedSum sum_of(const std::vector<double>& xs) {
  FixedSum s;
  for (const double x : xs) s += x;
  return s;
}

// The bound of fixed_sum.hpp, with a margin for error_of's own rounding.
double bound(double result, std::size_t n) {
  return (0.5 * ulp(result) + double(n) * std::ldexp(1.0, -97)) * (1.0 + 1e-9);
}

}  // namespace

TEST_CASE("fixed sum: within its bound of the exact sum on huge, tiny and cancelling values") {
  std::mt19937_64 gen(20261204);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 126), coin(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs;
    for (int i = 0; i < 300; ++i) {
      const double x = std::ldexp(mantissa(gen), exponent(gen)) * (coin(gen) ? 1.0 : -1.0);
      xs.push_back(x);
      if (coin(gen)) xs.push_back(-x * (1.0 + std::ldexp(1.0, -40)));  // heavy cancellation
    }
    xs.push_back(5e-324);
    xs.push_back(-2.2250738585072014e-308);
    const FixedSum s = sum_of(xs);
    INFO("trial " << trial);
    CHECK(error_of(s, xs) <= bound(s.to_double(), xs.size()));
    // Any order and any grouping: the bitwise same words and result.
    std::vector<double> shuffled = xs;
    std::shuffle(shuffled.begin(), shuffled.end(), gen);
    FixedSum left = sum_of(std::vector<double>(shuffled.begin(), shuffled.begin() + 101));
    const FixedSum right = sum_of(std::vector<double>(shuffled.begin() + 101, shuffled.end()));
    FixedSum joined = right;
    joined += left;
    CHECK(joined == s);
    CHECK(same_bits(joined.to_double(), s.to_double()));
    volatile FixedSum v = left;  // Kokkos 3's join
    v += static_cast<const volatile FixedSum&>(right);
    CHECK(FixedSum::load(v) == s);
  }
}

TEST_CASE("fixed sum: exact on the grid, correctly rounded to double") {
  // Cancellation that fp64 loses entirely.
  CHECK(sum_of({1e30, 1.0, -1e30}).to_double() == 1.0);
  CHECK(sum_of({0x1p127, 0x1p-96, -0x1p127}).to_double() == 0x1p-96);
  // Round to nearest, ties to even, from every bit below the double's.
  CHECK(sum_of({1.0, 0x1p-53}).to_double() == 1.0);
  CHECK(sum_of({1.0, 0x1p-53, 0x1p-96}).to_double() == 1.0 + 0x1p-52);
  CHECK(sum_of({1.0 + 0x1p-52, 0x1p-53}).to_double() == 1.0 + 0x1p-51);
  CHECK(sum_of({-1.0, -0x1p-53, -0x1p-96}).to_double() == -(1.0 + 0x1p-52));
  CHECK(sum_of({0x1p100, 0x1p47, 0x1p-96}).to_double() == 0x1p100 + 0x1p48);
  // Values on the grid, any magnitude up to the range: the result is the exact sum rounded once.
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> exponent(-96, 126);
  std::uniform_int_distribution<std::int64_t> digits(-(std::int64_t(1) << 52), std::int64_t(1) << 52);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs;
    for (int i = 0; i < 64; ++i) xs.push_back(std::ldexp(double(digits(gen)), std::max(-96, exponent(gen) - 52)));
    const FixedSum s = sum_of(xs);
    CHECK(error_of(s, xs) <= 0.5 * ulp(s.to_double()) * (1.0 + 1e-9));
  }
  CHECK(same_bits(FixedSum().to_double(), 0.0));  // the empty sum, and exact zeros, are +0
  CHECK(same_bits(sum_of({-0.0, 3.5, -3.5}).to_double(), 0.0));
}

TEST_CASE("fixed sum: values off the grid round once to 2^-96, nearest-even") {
  CHECK(sum_of({0x1p-97}).to_double() == 0.0);          // a tie: to even (0)
  CHECK(sum_of({0x1.8p-96}).to_double() == 0x1p-95);    // 1.5 grid steps: to 2
  CHECK(sum_of({0x1.4p-96}).to_double() == 0x1p-96);    // 1.25: to 1
  CHECK(sum_of({-0x1.8p-97}).to_double() == -0x1p-96);  // -0.75: to -1
  CHECK(sum_of({0x1p-200, 5e-324, -1e-300}).to_double() == 0.0);
  // Each value rounds alone: n values below half a step sum to 0, however many.
  CHECK(sum_of(std::vector<double>(1000, 0x1p-98)).to_double() == 0.0);
  CHECK(error_of(sum_of(std::vector<double>(1000, 0x1p-98)), std::vector<double>(1000, 0x1p-98)) <= bound(0.0, 1000));
}

TEST_CASE("fixed sum: infinities and NaN as an IEEE sum, values past 2^320 flagged beyond the range") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(sum_of({1.0, inf, 2.0}).to_double() == inf);
  CHECK(sum_of({-inf, 1.0}).to_double() == -inf);
  CHECK(std::isnan(sum_of({inf, 1.0, -inf}).to_double()));
  CHECK(std::isnan(sum_of({nan, 1.0}).to_double()));
  CHECK(std::isnan(sum_of({inf, nan}).to_double()));
  CHECK(std::isnan(sum_of({-nan, -inf}).to_double()));
  // Every unit finite fp32 inputs give is in range: 512 terms of 1.5e38 (beyond fp32's largest).
  CHECK(sum_of({0x1p128}).to_double() == 0x1p128);
  CHECK(sum_of(std::vector<double>(512, 1.5e38)).to_double() == 512 * 1.5e38);
  CHECK(sum_of({0x1p300, 1.0, -0x1p300}).to_double() == 1.0);
  CHECK(!sum_of({0x1p300}).beyond_range());
  // Beyond it: a flag, never an infinity (the caller refuses the sum).
  for (const double x : {0x1p320, -1e300, std::numeric_limits<double>::max()}) {
    INFO("x = " << x);
    CHECK(sum_of({x}).beyond_range());
    CHECK(sum_of({1.0, x}).beyond_range());
    CHECK(std::isnan(sum_of({x}).to_double()));
  }
  // Just below the range: exact, and room for kMaxValues of them below the integer's sign bit.
  static_assert(FixedSum::kRangeExponent == 320, "the range the header states");
  static_assert(double(FixedSum::kMaxValues) * 0x1p320 * 0x1p96 <= 0x1p447, "kMaxValues values of < 2^320 fit");
  const double top = std::nextafter(0x1p320, 0.0);
  CHECK(sum_of(std::vector<double>(4096, top)).to_double() == 4096.0 * top);
  CHECK(sum_of(std::vector<double>(4096, -top)).to_double() == -4096.0 * top);
  // Flags join like the words: in any order.
  FixedSum a = sum_of({inf}), b = sum_of({-inf});
  b += a;
  CHECK(std::isnan(b.to_double()));
  CHECK((FixedSum(nan).flags & FixedSum::kNaN) != 0);
}
