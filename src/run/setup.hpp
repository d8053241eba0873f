// Step one of a run: this rank's problem in the execution space's memory, from the generator
// or the .npy files, after checking that it fits (a failed allocation names the array).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "core/generate.hpp"
#include "core/problem.hpp"
#include "host/config.hpp"
#include "host/errors.hpp"
#include "host/npy.hpp"
#include "host/placement.hpp"
#include "host/progress.hpp"
#include "kernels/term_ops.hpp"
#include "run/row_blocks.hpp"

namespace klmini {

// Kokkos reports a failed allocation as std::bad_alloc (4.x) or std::runtime_error (3.x);
// either way the user sees which array of which shape did not fit.
template <class View>
View allocate_matrix(const char* label, std::int64_t rows, std::int64_t cols) {
  try {
    return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
  } catch (const std::exception& e) {
    throw DoesNotFit(std::string("cannot allocate ") + label + " (" + std::to_string(rows) + " x " +
                     std::to_string(cols) + " fp32, " + std::to_string(double(rows) * cols * 4 / 1073741824.0) +
                     " GiB) in " + View::memory_space::name() + ": " + e.what());
  }
}

// Free bytes in the execution space's memory (-1: unknown; host memory is checked separately).
template <class Space>
std::int64_t space_available_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>) {
    std::size_t free_bytes = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    return static_cast<std::int64_t>(free_bytes);
  }
#endif
  return -1;
}

// The GPU this rank computes on: Cuda's current device, which Kokkos chose, among those the rank
// sees; none on host spaces.
template <class Space>
RankGpu space_gpu() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>) {
    RankGpu gpu;
    check_cuda(cudaGetDevice(&gpu.id), "cudaGetDevice");
    check_cuda(cudaGetDeviceCount(&gpu.visible), "cudaGetDeviceCount");
    return gpu;
  }
#endif
  return {};
}

// Reads rows of a .npy file in pieces of about kRowBlockBytes, reporting progress on a terminal.
template <class T>
void read_npy_rows_with_progress(const std::string& path, const NpyHeader& header, std::int64_t row_begin,
                                 std::int64_t rows, std::int64_t vocab, T* out, bool root) {
  const std::int64_t block = rows_per_block(vocab, std::int64_t(sizeof(T)));
  Progress progress("reading " + path, rows, root);
  for (std::int64_t first = 0; first < rows; first += block) {
    const std::int64_t n = std::min(block, rows - first);
    read_npy_rows(path, header, row_begin + first, n, out + first * vocab);
    progress.update(first + n);
  }
}

// Rows [row_begin, row_begin + rows) of this rank, from the generator or the .npy files, as
// elements of type T; and the exact log's table when precision = "exact". `root`: this rank
// may print progress.
template <class Space, class T = float>
Problem<Space, T> make_problem(const Config& c, std::int64_t row_begin, std::int64_t rows, bool root = false) {
  using Matrix = typename Problem<Space, T>::Matrix;
  Problem<Space, T> p;
  p.tokens = rows;
  p.vocab = c.vocab;
  p.log_target = c.log_target;
  if (c.input == InputKind::npy) {  // check both headers before allocating anything
    const NpyHeader lp_header = inspect_npy(c.log_probs, c.tokens, c.vocab, npy_descr<T>());
    const NpyHeader t_header = inspect_npy(c.targets, c.tokens, c.vocab, npy_descr<T>());
    p.lp = allocate_matrix<Matrix>("klmini::lp", rows, c.vocab);
    p.t = allocate_matrix<Matrix>("klmini::t", rows, c.vocab);
    auto lp_host = Kokkos::create_mirror_view(p.lp);
    auto t_host = Kokkos::create_mirror_view(p.t);
    read_npy_rows_with_progress(c.log_probs, lp_header, row_begin, rows, c.vocab, lp_host.data(), root);
    read_npy_rows_with_progress(c.targets, t_header, row_begin, rows, c.vocab, t_host.data(), root);
    Kokkos::deep_copy(p.lp, lp_host);
    Kokkos::deep_copy(p.t, t_host);
  } else {
    // Allocated without initialization: the generator's threads touch the pages first.
    p.lp = allocate_matrix<Matrix>("klmini::lp", rows, c.vocab);
    p.t = allocate_matrix<Matrix>("klmini::t", rows, c.vocab);
    Progress progress("generating inputs", 2 * rows, root);
    generate_softmax_rows<Space>(p.lp, row_begin, c.vocab, c.seed, Stream::log_probs, true,
                                 [&](std::int64_t done) { progress.update(done); });
    generate_softmax_rows<Space>(p.t, row_begin, c.vocab, c.seed, Stream::targets, c.log_target,
                                 [&](std::int64_t done) { progress.update(rows + done); });
  }
  p.precision = c.precision == Precision::exact ? Precision::exact : Precision::fast;
  if (p.precision == Precision::exact) variants::exact_log_table_on<typename Space::memory_space>();  // before timing
  Space().fence();
  return p;
}

}  // namespace klmini
