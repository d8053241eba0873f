// Seeded inputs like the seed benchmark's: lp = log_softmax(randn), t = softmax(randn)
// (or log_softmax(randn) when targets are log-probabilities), computed in fp64 and rounded to
// the matrix's element type on the execution space. Every value is a pure function
// of (seed, stream, global row, column), so a deck gives the same data on every backend and
// for every split of the rows across ranks.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "numerics/dtype.hpp"
#include "numerics/math.hpp"

namespace klmini {

namespace rng {

// SplitMix64's finalizer: a bijective mix with good avalanche, cheap on every backend.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in the open interval (0, 1), 53 random bits.
KOKKOS_INLINE_FUNCTION double uniform(std::uint64_t key) {
  return (double(mix(key) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Standard normal by Box-Muller from two uniforms keyed by (seed, stream, index).
KOKKOS_INLINE_FUNCTION double normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t key = mix(seed ^ mix(stream)) + 2 * index;
  const double u1 = uniform(key), u2 = uniform(key + 1);
  return math::sqrt(-2.0 * math::log(u1)) * math::cos(6.283185307179586 * u2);
}

}  // namespace rng

enum class Stream : std::uint64_t { log_probs = 1, targets = 2 };

// Fills rows [0, rows) of `out` with log_softmax (as_log = true) or softmax of standard normal
// logits; local row r is global row row_offset + r. Each row is one work item that makes two
// passes in fp64 (an online max/sum-exp, then the write), so the result does not depend on
// how a backend orders a parallel reduction.
template <class Space, class Matrix>
void generate_softmax_rows(const Matrix& out, std::int64_t row_offset, std::int64_t vocab, std::uint64_t seed,
                           Stream stream, bool as_log) {
  const std::int64_t rows = static_cast<std::int64_t>(out.extent(0));
  const std::uint64_t s = static_cast<std::uint64_t>(stream);
  Kokkos::parallel_for(
      "klmini::generate", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, rows),
      KOKKOS_LAMBDA(const std::int64_t r) {
        const std::uint64_t base = std::uint64_t(row_offset + r) * std::uint64_t(vocab);
        double max_z = -1.0e308, sum_exp = 0.0;
        for (std::int64_t j = 0; j < vocab; ++j) {
          const double z = rng::normal(seed, s, base + j);
          if (z > max_z) {
            sum_exp = sum_exp * math::exp(max_z - z) + 1.0;
            max_z = z;
          } else {
            sum_exp += math::exp(z - max_z);
          }
        }
        const double log_norm = max_z + math::log(sum_exp);
        for (std::int64_t j = 0; j < vocab; ++j) {
          const double log_p = rng::normal(seed, s, base + j) - log_norm;
          out(r, j) = from_double<typename Matrix::non_const_value_type>(as_log ? log_p : math::exp(log_p));
        }
      });
}

}  // namespace klmini
