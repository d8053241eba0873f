// Seeded inputs like the seed benchmark's: lp = log_softmax(randn), t = softmax(randn)
// (or log_softmax(randn) when targets are log-probabilities), computed in fp64 and rounded to
// the matrix's element type on the execution space. Every value is a pure function
// of (seed, stream, global row, column), so a deck gives the same data on every backend and
// for every split of the rows across ranks.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>

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

// Two standard normals by Box-Muller from the two uniforms keyed by (seed, stream, pair):
// elements 2 * pair and 2 * pair + 1 of the stream. Both come from one log, one square root
// and one sine/cosine pair. |z| < 8.7 (the smallest uniform is 2^-54).
struct NormalPair {
  double even, odd;
};
KOKKOS_INLINE_FUNCTION NormalPair normal_pair(std::uint64_t stream_key, std::uint64_t pair) {
  const std::uint64_t key = stream_key + 2 * pair;
  const double u1 = uniform(key), u2 = uniform(key + 1);
  const double radius = math::sqrt(-2.0 * math::log(u1)), angle = 6.283185307179586 * u2;
  return {radius * math::cos(angle), radius * math::sin(angle)};
}

KOKKOS_INLINE_FUNCTION std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return mix(seed ^ mix(stream));
}

// Element `index` of the stream.
KOKKOS_INLINE_FUNCTION double normal(std::uint64_t stream_key, std::uint64_t index) {
  const NormalPair z = normal_pair(stream_key, index >> 1);
  return (index & 1) ? z.odd : z.even;
}

}  // namespace rng

enum class Stream : std::uint64_t { log_probs = 1, targets = 2 };

// A row's normalizer is the fp64 sum of exp(z) over fixed chunks of this many columns, each
// summed left to right, then the chunk sums left to right: the same order on every backend,
// whatever its parallelism (no max shift is needed: exp(z) < 6e3).
inline constexpr std::int64_t kGenerateChunk = 256;
// Rows are generated in batches of about this many elements (a progress report in between).
inline constexpr std::int64_t kGenerateBatchElements = std::int64_t(1) << 26;

// Fills rows [0, rows) of `out` with log_softmax (as_log = true) or softmax of standard normal
// logits; local row r is global row row_offset + r. Three parallel passes per batch of rows:
// the chunks' sums of exp(z), each row's log normalizer, then every element (z computed again:
// cheaper than storing it). `progress(rows_done)` is called after each batch.
template <class Space, class Matrix>
void generate_softmax_rows(const Matrix& out, std::int64_t row_offset, std::int64_t vocab, std::uint64_t seed,
                           Stream stream, bool as_log,
                           const std::function<void(std::int64_t)>& progress = std::function<void(std::int64_t)>()) {
  using T = typename Matrix::non_const_value_type;
  using Index = Kokkos::IndexType<std::int64_t>;
  const std::int64_t rows = static_cast<std::int64_t>(out.extent(0));
  if (rows == 0 || vocab == 0) return;
  const std::uint64_t key = rng::stream_key(seed, static_cast<std::uint64_t>(stream));
  const std::int64_t chunks = (vocab + kGenerateChunk - 1) / kGenerateChunk;
  const std::int64_t batch = std::max<std::int64_t>(1, std::min(rows, kGenerateBatchElements / vocab));
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> chunk_sums(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::generate_chunk_sums"), batch, chunks);
  Kokkos::View<double*, typename Space::memory_space> log_norm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::generate_log_norm"), batch);
  for (std::int64_t first = 0; first < rows; first += batch) {
    const std::int64_t count = std::min(batch, rows - first);
    const std::uint64_t first_index = std::uint64_t(row_offset + first) * std::uint64_t(vocab);
    Kokkos::parallel_for(
        "klmini::generate_chunk_sums", Kokkos::RangePolicy<Space, Index>(0, count * chunks),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t r = i / chunks, c = i % chunks;
          const std::int64_t begin = c * kGenerateChunk,
                             end = begin + kGenerateChunk < vocab ? begin + kGenerateChunk : vocab;
          const std::uint64_t base = first_index + std::uint64_t(r) * std::uint64_t(vocab);
          double sum = 0.0;
          std::int64_t j = begin;
          if ((base + j) & 1) sum += math::exp(rng::normal(key, base + j++));
          for (; j + 1 < end; j += 2) {
            const rng::NormalPair z = rng::normal_pair(key, (base + j) >> 1);
            sum += math::exp(z.even);
            sum += math::exp(z.odd);
          }
          if (j < end) sum += math::exp(rng::normal(key, base + j));
          chunk_sums(r, c) = sum;
        });
    Kokkos::parallel_for(
        "klmini::generate_log_norm", Kokkos::RangePolicy<Space, Index>(0, count), KOKKOS_LAMBDA(const std::int64_t r) {
          double sum = 0.0;
          for (std::int64_t c = 0; c < chunks; ++c) sum += chunk_sums(r, c);
          log_norm(r) = math::log(sum);
        });
    // One work item per pair of the stream that meets these rows (a pair can straddle two rows).
    const std::uint64_t first_pair = first_index >> 1;
    const std::uint64_t end_index = first_index + std::uint64_t(count) * std::uint64_t(vocab);
    const std::int64_t pairs = std::int64_t(((end_index + 1) >> 1) - first_pair);
    Kokkos::parallel_for(
        "klmini::generate_write", Kokkos::RangePolicy<Space, Index>(0, pairs), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::uint64_t pair = first_pair + std::uint64_t(k);
          const rng::NormalPair z = rng::normal_pair(key, pair);
          for (int half = 0; half < 2; ++half) {
            const std::uint64_t index = 2 * pair + std::uint64_t(half);
            if (index < first_index || index >= end_index) continue;
            const std::int64_t local = std::int64_t(index - first_index);
            const std::int64_t r = local / vocab, j = local % vocab;
            const double log_p = (half ? z.odd : z.even) - log_norm(r);
            out(first + r, j) = from_double<T>(as_log ? log_p : math::exp(log_p));
          }
        });
    if (progress) {
      Space().fence();
      progress(first + count);
    }
  }
}

}  // namespace klmini
