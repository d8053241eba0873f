// Matrices as the host-side checks read them: fp32 rows in host memory, one block of rows at a
// time, so the reference and the element checks never hold a whole copy of the inputs.
// - fp32 in host memory: the block is the matrix itself (no copy) when its rows are adjacent.
// - other element types in host memory: the block's rows converted to fp32.
// - device memory: the block copied into one of two pinned staging buffers while the host works
//   on the previous block (the copy overlaps the arithmetic), then converted where not fp32.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/limits.hpp"
#include "numerics/dtype.hpp"

namespace klmini {

// Blocks of about kRowBlockBytes (host/limits.hpp) per matrix: large enough for full-speed
// copies and for every host thread to have rows, small enough that staging is a fixed amount.
inline std::int64_t rows_per_block(std::int64_t vocab, std::int64_t element_bytes) {
  const std::int64_t row_bytes = vocab * element_bytes;
  return row_bytes > 0 && row_bytes < kRowBlockBytes ? kRowBlockBytes / row_bytes : 1;
}

// Memory the blocks of a matrix in `MemorySpace` are staged in: pinned host memory for a Cuda
// device (asynchronous, full-speed copies), none needed for host memory.
template <class MemorySpace>
struct StagingSpace {
  using type = Kokkos::HostSpace;
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct StagingSpace<Kokkos::CudaSpace> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

// The given local rows of one matrix, block by block (see for_each_block).
template <class Matrix>
class RowStream {
 public:
  using T = typename Matrix::non_const_value_type;
  using Space = typename Matrix::execution_space;
  static constexpr bool kHostMemory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Matrix::memory_space>::accessible;
  using Staging = Kokkos::View<T**, Kokkos::LayoutRight, typename StagingSpace<typename Matrix::memory_space>::type>;

  RowStream(const Matrix& m, const std::vector<std::int64_t>& rows, std::int64_t block_rows)
      : m_(m), rows_(rows), block_rows_(block_rows), vocab_(static_cast<std::int64_t>(m.extent(1))) {
    const std::int64_t staged = std::min<std::int64_t>(block_rows, static_cast<std::int64_t>(rows.size()));
    if constexpr (!kHostMemory)
      for (Staging& s : staging_)
        s = Staging(Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::staging"), staged, vocab_);
  }

  // Posts the copy of block k (device memory only; the caller fences before reading it).
  void start(std::int64_t k) {
    if constexpr (!kHostMemory) {
      const Staging& s = staging_[k % 2];
      for_each_run(k, [&](std::int64_t dst, std::int64_t src, std::int64_t n) {
        Kokkos::deep_copy(Space(), Kokkos::subview(s, std::make_pair(dst, dst + n), Kokkos::ALL()),
                          Kokkos::subview(m_, std::make_pair(src, src + n), Kokkos::ALL()));
      });
    }
  }

  // Block k's rows as fp32 on the host (after start(k) and a fence).
  const float* get(std::int64_t k) {
    const std::int64_t first = k * block_rows_, count = block_count(k);
    if constexpr (kHostMemory && std::is_same_v<T, float>) {
      if (rows_[std::size_t(first + count - 1)] - rows_[std::size_t(first)] == count - 1)
        return m_.data() + rows_[std::size_t(first)] * vocab_;
    }
    if constexpr (!kHostMemory && std::is_same_v<T, float>) return staging_[k % 2].data();
    converted_.resize(std::size_t(count * vocab_));
    float* dst = converted_.data();
    const std::int64_t vocab = vocab_;
    if constexpr (kHostMemory) {
      for_each_run(k, [&](std::int64_t d, std::int64_t src, std::int64_t n) {
        convert(m_.data() + src * vocab, dst + d * vocab, n * vocab);
      });
    } else {
      convert(staging_[k % 2].data(), dst, count * vocab);
    }
    return dst;
  }

  std::int64_t block_count(std::int64_t k) const {
    return std::min<std::int64_t>(block_rows_, static_cast<std::int64_t>(rows_.size()) - k * block_rows_);
  }

 private:
  // Runs of adjacent rows in block k: f(row in block, row in matrix, count).
  template <class F>
  void for_each_run(std::int64_t k, F&& f) const {
    const std::int64_t first = k * block_rows_, count = block_count(k);
    for (std::int64_t i = 0; i < count;) {
      std::int64_t n = 1;
      while (i + n < count && rows_[std::size_t(first + i + n)] == rows_[std::size_t(first + i)] + n) ++n;
      f(i, rows_[std::size_t(first + i)], n);
      i += n;
    }
  }

  static void convert(const T* from, float* to, std::int64_t n) {
    Kokkos::parallel_for("klmini::to_fp32",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
                         [=](const std::int64_t i) { to[i] = to_float(from[i]); });
    Kokkos::DefaultHostExecutionSpace().fence();
  }

  Matrix m_;
  const std::vector<std::int64_t>& rows_;
  std::int64_t block_rows_, vocab_;
  Staging staging_[2];
  std::vector<float> converted_;
};

// Calls f(first row, row count, fp32 rows of each matrix...) for each block of `rows` rows of
// the given matrices, in order; the copies of block k + 1 run while f works on block k.
template <class Space, class F, class... Streams>
void for_each_block(std::int64_t rows, std::int64_t block_rows, F&& f, Streams&... streams) {
  const std::int64_t blocks = (rows + block_rows - 1) / block_rows;
  if (blocks == 0) return;
  (streams.start(0), ...);
  Space().fence();
  for (std::int64_t k = 0; k < blocks; ++k) {
    if (k + 1 < blocks) (streams.start(k + 1), ...);
    f(k * block_rows, std::min(block_rows, rows - k * block_rows), streams.get(k)...);
    Space().fence();
  }
}

// The given local rows of a matrix, all at once, as fp32 on the host (for tests and small checks).
template <class Matrix>
std::vector<float> rows_on_host(const Matrix& m, const std::vector<std::int64_t>& rows) {
  const std::int64_t count = static_cast<std::int64_t>(rows.size()), vocab = static_cast<std::int64_t>(m.extent(1));
  std::vector<float> out(std::size_t(count * vocab));
  RowStream<Matrix> stream(m, rows, std::max<std::int64_t>(count, 1));
  for_each_block<typename Matrix::execution_space>(
      count, std::max<std::int64_t>(count, 1),
      [&](std::int64_t first, std::int64_t n, const float* block) {
        std::memcpy(out.data() + first * vocab, block, std::size_t(n * vocab) * sizeof(float));
      },
      stream);
  return out;
}

}  // namespace klmini
