// Values that test the fixed-point sums (numerics/fixed_sum.hpp and the sums built on its grid):
// every magnitude FixedSum keeps, heavy cancellation, ties of the grid, values at BinnedSum's bin
// bounds, subnormals.
#pragma once

#include <cmath>
#include <random>
#include <vector>

namespace klmini::testing {

// Values of every magnitude FixedSum keeps, with cancellation, ties and values off its grid.
inline std::vector<double> adversarial_values(std::mt19937_64& gen, int n) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 127), kind(0, 7);
  std::vector<double> xs;
  while (int(xs.size()) < n) {
    const double sign = kind(gen) % 2 ? 1.0 : -1.0;
    const double x = sign * std::ldexp(mantissa(gen), exponent(gen));
    switch (kind(gen)) {
      case 0: xs.push_back(x), xs.push_back(-x * (1.0 + 0x1p-40)); break;             // heavy cancellation
      case 1: xs.push_back(sign * std::ldexp(double(gen() % 64) + 0.5, -96)); break;  // a tie of the grid
      case 2: xs.push_back(sign * std::nextafter(0x1p24, 0.0)); break;                // the largest ordinary value
      case 3: xs.push_back(sign * 0x1p24); break;                                     // the smallest large one
      case 4: xs.push_back(sign * std::ldexp(mantissa(gen), -1060)); break;           // subnormal
      default: xs.push_back(x); break;
    }
  }
  return xs;
}

}  // namespace klmini::testing
