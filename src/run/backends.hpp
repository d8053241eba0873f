// Run-time choice of the execution space: a row of the backend table (host/backends.hpp) whose
// space is compiled in (core/backend_spaces.hpp). Each such space gets its own instantiation of
// the runner (run/runner.hpp); a backend that is not compiled in is a NotCompiledIn error.
#pragma once

#include <functional>
#include <optional>

#include "core/backend_spaces.hpp"
#include "core/build_info.hpp"
#include "host/config.hpp"
#include "host/record.hpp"

namespace klmini {

// The deck's backend, resolved once (before Kokkos starts): none ("default") -> the first
// compiled in; one that is not compiled in -> NotCompiledIn.
Backend resolve_backend(std::optional<Backend> requested);

// Runs the deck on its resolved backend (resolve_backend), its precision resolved to the
// backend's default where the deck leaves it; `announce` sees the record's header fields
// before the timing starts.
Record run(const Config& config, const std::function<void(const Record&)>& announce = {});

}  // namespace klmini
