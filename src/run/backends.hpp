// Run-time choice of the execution space. Each space compiled into Kokkos gets its own
// instantiation of the runner; a backend that is not compiled in is a NotCompiledIn error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "host/config.hpp"
#include "host/record.hpp"

namespace klmini {

// Backends compiled into this build, best first (the "default" backend is the first).
std::vector<std::string> compiled_backends();

// "default" -> the first compiled backend; a known but absent one -> NotCompiledIn.
std::string resolve_backend(const std::string& requested);

// Kokkos version and enabled backends, for the report.
std::string kokkos_version();
// The Kokkos Kernels version compiled in, or "" when the build has none.
std::string kokkos_kernels_version();
std::string kokkos_backends();

// The precision a deck without a `precision` key gets on each backend: "exact" where it costs
// at most 2% of the time of "fast" (measured: docs/PERFORMANCE.md), "fast" elsewhere.
inline constexpr Precision kCudaDefaultPrecision = Precision::fast;
Precision default_precision(const std::string& backend);

// Runs the deck (its precision resolved for the backend); `announce` sees the record's header
// fields before the timing starts.
Record run(const Config& config, const std::function<void(const Record&)>& announce = {});

}  // namespace klmini
