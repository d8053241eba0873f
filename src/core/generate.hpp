// Seeded inputs like the seed benchmark's: lp = log_softmax(randn), t = softmax(randn)
// (or log_softmax(randn) when targets are log-probabilities), computed in fp64 and rounded to
// the matrix's element type on the execution space. Every value is a pure function of (seed,
// stream, global row, column, vocab), computed with the project's own branch-free log, exp,
// sine and cosine (no libm), in a fixed order of sums: a deck gives the same data on every
// backend and for every split of the rows across ranks, and hosts vectorize the generator.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "numerics/dtype.hpp"
#include "numerics/math.hpp"
#include "numerics/series_exp.hpp"
#include "numerics/series_log.hpp"

namespace klmini {

namespace rng {

// SplitMix64's finalizer: a bijective mix with good avalanche, cheap on every backend.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in the open interval (0, 1): (k + 1/2) 2^-52 for the top 52 bits k of the mix, built
// from the bits (exactly; AVX2 has no uint64 -> double conversion, which would keep it scalar).
KOKKOS_INLINE_FUNCTION double uniform(std::uint64_t key) {
  return (double_of(0x3FF0000000000000ull | (mix(key) >> 12)) - 1.0) + 0x1p-53;
}

// cos(2 pi u) and sin(2 pi u) for u in [0, 1): 4u = q + f with q the nearest integer (exact:
// u is a multiple of 2^-53), so the angle f pi/2 lies in [-pi/4, pi/4], where the Taylor
// series up to a^15/15! and a^16/16! are within 2^-60; the quadrant q swaps and negates them.
struct CosSin {
  double cos, sin;
};
KOKKOS_INLINE_FUNCTION CosSin cos_sin_turns(double u) {
  constexpr double kHalfPi = 1.5707963267948966;
  constexpr double kShifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double t = 4.0 * u;
  const double q = (t + kShifter) - kShifter;
  const double a = (t - q) * kHalfPi, a2 = a * a;
  double s = -1.0 / 1307674368000.0;  // -1/15!
  s = s * a2 + 1.0 / 6227020800.0;
  s = s * a2 - 1.0 / 39916800.0;
  s = s * a2 + 1.0 / 362880.0;
  s = s * a2 - 1.0 / 5040.0;
  s = s * a2 + 1.0 / 120.0;
  s = s * a2 - 1.0 / 6.0;
  const double sin_a = a + a * a2 * s;
  double c = 1.0 / 20922789888000.0;  // 1/16!
  c = c * a2 - 1.0 / 87178291200.0;
  c = c * a2 + 1.0 / 479001600.0;
  c = c * a2 - 1.0 / 3628800.0;
  c = c * a2 + 1.0 / 40320.0;
  c = c * a2 - 1.0 / 720.0;
  c = c * a2 + 1.0 / 24.0;
  c = c * a2 - 0.5;
  const double cos_a = 1.0 + a2 * c;
  // Quadrant q = 0..4 (4 is 0 again): cos(a + q pi/2), sin(a + q pi/2).
  const bool swap = q == 1.0 || q == 3.0;
  const double cos_q = swap ? sin_a : cos_a, sin_q = swap ? cos_a : sin_a;
  return {(q == 1.0 || q == 2.0) ? -cos_q : cos_q, (q == 2.0 || q == 3.0) ? -sin_q : sin_q};
}

// Two standard normals by Box-Muller from the two uniforms keyed by `key` and `key + 1`: one
// log, one square root and one sine/cosine pair. |z| < 8.6 (the smallest uniform is 2^-53).
struct NormalPair {
  double even, odd;
};
KOKKOS_INLINE_FUNCTION NormalPair normal_pair(std::uint64_t key) {
  const double u1 = uniform(key), u2 = uniform(key + 1);
  const double radius = math::sqrt(-2.0 * math::series_log(u1));
  const CosSin angle = cos_sin_turns(u2);
  return {radius * angle.cos, radius * angle.sin};
}

KOKKOS_INLINE_FUNCTION std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return mix(seed ^ mix(stream));
}

// Columns 2p and 2p + 1 of a row share pair p; a row of v columns has (v + 1) / 2 pairs (the
// odd half of the last one is unused when v is odd), and the rows' pairs follow each other.
KOKKOS_INLINE_FUNCTION std::uint64_t row_key(std::uint64_t stream_key, std::uint64_t row, std::uint64_t pairs_per_row) {
  return stream_key + 2 * row * pairs_per_row;
}
KOKKOS_INLINE_FUNCTION NormalPair normal_pair(std::uint64_t row_key, std::uint64_t pair) {
  return normal_pair(row_key + 2 * pair);
}

}  // namespace rng

enum class Stream : std::uint64_t { log_probs = 1, targets = 2 };

// log_softmax(z) = z - log(s) and softmax(z) = exp(z) * (1/s), where s, a row's sum of exp(z),
// is the fp64 sum over chunks of this many columns, then the chunk sums left to right. Within a chunk, column j goes to
// lane j mod kGenerateLanes; each lane sums its columns left to right, then the lanes are added in order. The same
// order on every backend, whatever its parallelism and vector width (no max shift is needed: exp(z) < 6e3).
inline constexpr std::int64_t kGenerateChunk = 256;
inline constexpr int kGenerateLanes = 8;
// Rows are generated in batches of about this many elements (a progress report in between).
inline constexpr std::int64_t kGenerateBatchElements = std::int64_t(1) << 26;
// Host spaces keep a row's logits in a buffer per thread (8 bytes a column) up to this vocab.
inline constexpr std::int64_t kGenerateRowBufferMaxVocab = std::int64_t(1) << 20;

// How rows are generated: by rows, each one's logits computed once into a buffer with
// vectorizable loops (host spaces only), or in three parallel passes over (row, chunk) and (row, pair)
// items that compute the logits twice (devices, and hosts for rows too long to buffer).
enum class GenerateSchedule { automatic, rows, passes };

namespace generate_detail {

// One batch of rows: local rows [first, first + count), global row first_row onwards.
struct Batch {
  std::int64_t first, count;
  std::uint64_t first_row;
};

// The rows schedule (host spaces): a buffer of one row's logits per thread, found by a unique
// token; the logits are computed once, and for softmax their exponentials replace them.
template <class Space, class Matrix>
class RowsSchedule {
 public:
  RowsSchedule(std::int64_t vocab, std::uint64_t key, bool as_log)
      : vocab_(vocab),
        key_(key),
        as_log_(as_log),
        buffers_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::generate_row_buffers"), token_.size(),
                 2 * ((vocab + 1) / 2)) {}

  void operator()(const Matrix& out, const Batch& b) const {
    using T = typename Matrix::non_const_value_type;
    const std::int64_t vocab = vocab_, pairs_per_row = (vocab + 1) / 2, first = b.first;
    const std::uint64_t key = key_, first_row = b.first_row;
    const bool as_log = as_log_;
    const auto token = token_;
    const auto buffers = buffers_;
    Kokkos::parallel_for(
        "klmini::generate_rows", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, b.count),
        KOKKOS_LAMBDA(const std::int64_t r) {
          const int slot = token.acquire();
          const auto z = Kokkos::subview(buffers, slot, Kokkos::ALL());
          const std::uint64_t row = rng::row_key(key, first_row + std::uint64_t(r), pairs_per_row);
          for (std::int64_t p = 0; p < pairs_per_row; ++p) {
            const rng::NormalPair zp = rng::normal_pair(row, std::uint64_t(p));
            z(2 * p) = zp.even;
            z(2 * p + 1) = zp.odd;
          }
          double sum = 0.0;
          for (std::int64_t begin = 0; begin < vocab; begin += kGenerateChunk) {
            const std::int64_t end = begin + kGenerateChunk < vocab ? begin + kGenerateChunk : vocab;
            double lane[kGenerateLanes] = {};
            std::int64_t j = begin;
            for (; j + kGenerateLanes <= end; j += kGenerateLanes) {
              for (int l = 0; l < kGenerateLanes; ++l) {
                const double e = math::series_exp(z(j + l));
                lane[l] += e;
                if (!as_log) z(j + l) = e;  // softmax needs exp(z), not z
              }
            }
            for (int l = 0; j < end; ++j, ++l) {
              const double e = math::series_exp(z(j));
              lane[l] += e;
              if (!as_log) z(j) = e;
            }
            double chunk = lane[0];
            for (int l = 1; l < kGenerateLanes; ++l) chunk += lane[l];
            sum += chunk;
          }
          if (as_log) {
            const double ln = math::series_log(sum);
            for (std::int64_t j = 0; j < vocab; ++j) out(first + r, j) = from_double<T>(z(j) - ln);
          } else {
            const double inverse = 1.0 / sum;
            for (std::int64_t j = 0; j < vocab; ++j) out(first + r, j) = from_double<T>(z(j) * inverse);
          }
          token.release(slot);
        });
  }

 private:
  std::int64_t vocab_;
  std::uint64_t key_;
  bool as_log_;
  Kokkos::Experimental::UniqueToken<Space, Kokkos::Experimental::UniqueTokenScope::Global> token_;
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> buffers_;
};

// The passes schedule (every space): each (row, chunk) item sums its exponentials, each row
// adds its chunks into its normalizer, each (row, pair) item writes two elements.
template <class Space, class Matrix>
class PassesSchedule {
 public:
  PassesSchedule(std::int64_t vocab, std::uint64_t key, bool as_log, std::int64_t batch)
      : vocab_(vocab),
        key_(key),
        as_log_(as_log),
        chunk_sums_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::generate_chunk_sums"), batch,
                    (vocab + kGenerateChunk - 1) / kGenerateChunk),
        normalizer_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::generate_normalizer"), batch) {}

  void operator()(const Matrix& out, const Batch& b) const {
    using T = typename Matrix::non_const_value_type;
    using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t vocab = vocab_, pairs_per_row = (vocab + 1) / 2, first = b.first;
    const std::int64_t chunks = (vocab + kGenerateChunk - 1) / kGenerateChunk;
    const std::uint64_t key = key_, first_row = b.first_row;
    const bool as_log = as_log_;
    const auto chunk_sums = chunk_sums_;
    const auto normalizer = normalizer_;
    Kokkos::parallel_for(
        "klmini::generate_chunk_sums", Policy(0, b.count * chunks), KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t r = i / chunks, begin = (i % chunks) * kGenerateChunk;
          const std::int64_t end = begin + kGenerateChunk < vocab ? begin + kGenerateChunk : vocab;
          const std::uint64_t row = rng::row_key(key, first_row + std::uint64_t(r), pairs_per_row);
          double lane[kGenerateLanes] = {};
          for (std::int64_t j = begin; j < end; j += kGenerateLanes) {
            for (int l = 0; l < kGenerateLanes; l += 2) {  // columns j + l and j + l + 1: one pair
              if (j + l >= end) continue;
              const rng::NormalPair zp = rng::normal_pair(row, std::uint64_t((j + l) / 2));
              lane[l] += math::series_exp(zp.even);
              if (j + l + 1 < end) lane[l + 1] += math::series_exp(zp.odd);
            }
          }
          double chunk = lane[0];
          for (int l = 1; l < kGenerateLanes; ++l) chunk += lane[l];
          chunk_sums(r, i % chunks) = chunk;
        });
    Kokkos::parallel_for(
        "klmini::generate_normalizer", Policy(0, b.count), KOKKOS_LAMBDA(const std::int64_t r) {
          double sum = 0.0;
          for (std::int64_t c = 0; c < chunks; ++c) sum += chunk_sums(r, c);
          normalizer(r) = as_log ? math::series_log(sum) : 1.0 / sum;  // log(sum) or 1/sum
        });
    Kokkos::parallel_for(
        "klmini::generate_write", Policy(0, b.count * pairs_per_row), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t r = k / pairs_per_row, j = 2 * (k % pairs_per_row);
          const rng::NormalPair zp =
              rng::normal_pair(rng::row_key(key, first_row + std::uint64_t(r), pairs_per_row), std::uint64_t(j / 2));
          const double n = normalizer(r);
          out(first + r, j) = from_double<T>(as_log ? zp.even - n : math::series_exp(zp.even) * n);
          if (j + 1 < vocab) out(first + r, j + 1) = from_double<T>(as_log ? zp.odd - n : math::series_exp(zp.odd) * n);
        });
  }

 private:
  std::int64_t vocab_;
  std::uint64_t key_;
  bool as_log_;
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> chunk_sums_;
  Kokkos::View<double*, typename Space::memory_space> normalizer_;
};

}  // namespace generate_detail

// Fills rows [0, rows) of `out` with log_softmax (as_log = true) or softmax of standard normal
// logits; local row r is global row row_offset + r. `progress(rows_done)` is called after each
// batch of rows. The rows schedule exists on host spaces only (std::invalid_argument elsewhere).
template <class Space, class Matrix>
void generate_softmax_rows(const Matrix& out, std::int64_t row_offset, std::int64_t vocab, std::uint64_t seed,
                           Stream stream, bool as_log,
                           const std::function<void(std::int64_t)>& progress = std::function<void(std::int64_t)>(),
                           GenerateSchedule schedule = GenerateSchedule::automatic) {
  constexpr bool kHost = std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value;
  const std::int64_t rows = static_cast<std::int64_t>(out.extent(0));
  if (rows == 0 || vocab == 0) return;
  if (schedule == GenerateSchedule::automatic)
    schedule = kHost && vocab <= kGenerateRowBufferMaxVocab ? GenerateSchedule::rows : GenerateSchedule::passes;
  const std::uint64_t key = rng::stream_key(seed, static_cast<std::uint64_t>(stream));
  const std::int64_t batch = std::max<std::int64_t>(1, std::min(rows, kGenerateBatchElements / vocab));
  const auto in_batches = [&](const auto& generate_batch) {
    for (std::int64_t first = 0; first < rows; first += batch) {
      generate_batch(out,
                     generate_detail::Batch{first, std::min(batch, rows - first), std::uint64_t(row_offset + first)});
      if (progress) {
        Space().fence();
        progress(std::min(rows, first + batch));
      }
    }
  };
  if (schedule == GenerateSchedule::passes) {
    in_batches(generate_detail::PassesSchedule<Space, Matrix>(vocab, key, as_log, batch));
  } else if constexpr (kHost) {
    in_batches(generate_detail::RowsSchedule<Space, Matrix>(vocab, key, as_log));
  } else {
    throw std::invalid_argument("generate_softmax_rows: the rows schedule is for host spaces");
  }
}

}  // namespace klmini
