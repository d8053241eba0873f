// The backend table: every Kokkos execution space klmini runs on, described once (its deck
// name, Kokkos' names of it and its memory, where its memory is, the precision a deck gets
// by default, what its kernels sum into and so which of its losses agree bitwise). The Kokkos
// type of each row is in src/core/backend_spaces.hpp, under its KOKKOS_ENABLE_<SPACE>; the deck
// parser, the runner and the report read this table and compare no backend names of their own.
// Host-only, like the variant table beside it (host/variants.hpp).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/precision.hpp"

namespace klmini {

enum class Backend { cuda, openmp, serial };

// What the kernels of a backend add into the loss's order-independent sum (core/problem.hpp:
// ThreadAccumulator), and so which decompositions of one deck give the bitwise same loss.
enum class SumUnits {
  fixed,            // fixed pieces of the data, each rounded onto the sum's grid: whatever ranks, threads, shapes
  thread_partials,  // what one thread or one row's team adds in fp64: bitwise only for one decomposition
};

// Cuda adds fp64 partials unless the build asks for the hosts' fixed units (CMake's
// KLMINI_CUDA_FIXED_SUM), which cost too much there yet (docs/PERFORMANCE.md, Fixed-point sums).
#if defined(KLMINI_CUDA_FIXED_SUM)
inline constexpr SumUnits kCudaSumUnits = SumUnits::fixed;
#else
inline constexpr SumUnits kCudaSumUnits = SumUnits::thread_partials;
#endif
// "exact" where it costs at most 2% of the time of "fast" (measured: docs/PERFORMANCE.md,
// precision = "exact").
inline constexpr Precision kCudaDefaultPrecision = Precision::fast;

struct BackendInfo {
  Backend id;
  std::string_view name;             // the deck's `backend` value, and the report's
  std::string_view execution_space;  // Kokkos' name of it (Space::name())
  std::string_view memory_space;     // Kokkos' name of its memory space (memory_space::name())
  bool host;                         // its memory is the host's (core/problem.hpp: is_host_space)
  Precision default_precision;       // what a deck without a `precision` key gets
  SumUnits sum_units;
  // The code that adds up its units (kernels/shapes.hpp): backends that share it give the
  // bitwise same loss, as every host space runs one out-of-line copy of the row loop.
  std::string_view sum_code;
  bool binds_threads;  // its threads are OpenMP's, bound by OMP_PROC_BIND/OMP_PLACES (host/placement.hpp)
};

// Best first: the deck's "default" is the first one compiled in.
inline constexpr std::array<BackendInfo, 3> kBackends = {{
    {Backend::cuda, "cuda", "Cuda", "Cuda", false, kCudaDefaultPrecision, kCudaSumUnits, "device shapes", false},
    {Backend::openmp, "openmp", "OpenMP", "Host", true, Precision::fast, SumUnits::fixed, "host row loop", true},
    {Backend::serial, "serial", "Serial", "Host", true, Precision::fast, SumUnits::fixed, "host row loop", false},
}};

constexpr const BackendInfo& info(Backend b) {
  for (const BackendInfo& i : kBackends)
    if (i.id == b) return i;
  return kBackends[0];  // unreachable: every Backend has a row
}

inline std::string backend_name(Backend b) { return std::string(info(b).name); }

// Every row's backend, best first.
std::vector<Backend> all_backends();

// The row named `name` (the deck's spelling), or none.
std::optional<Backend> find_backend(std::string_view name);

// The backends' names joined by `separator`: "cuda, openmp, serial".
std::string backend_names(const std::vector<Backend>& backends, const std::string& separator);

// The backends of `compiled` (and `b` itself) whose kernels add the same units with the same
// code as b's, in the table's order: where a fixed-units loss of b is bitwise the same.
std::vector<Backend> same_sums_as(Backend b, const std::vector<Backend>& compiled);

}  // namespace klmini
