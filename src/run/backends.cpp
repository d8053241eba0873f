#include "run/backends.hpp"

#include <stdexcept>
#include <string>

#include "host/errors.hpp"
#include "run/runner.hpp"

namespace klmini {

namespace {
[[noreturn]] void not_compiled_in(Backend b) {
  throw NotCompiledIn("backend '" + backend_name(b) +
                      "' is not compiled into this build (compiled in: " + kokkos_backends() + ")");
}
}  // namespace

Backend resolve_backend(std::optional<Backend> requested) {
  const std::vector<Backend> compiled = compiled_backends();
  if (compiled.empty())
    throw NotCompiledIn("this Kokkos has none of the backends klmini supports (" + backend_names(all_backends(), ", ") +
                        ")");
  if (!requested) return compiled.front();
  for (const Backend b : compiled)
    if (b == *requested) return b;
  not_compiled_in(*requested);
}

Record run(const Config& deck, const std::function<void(const Record&)>& announce) {
  if (!deck.backend) throw std::logic_error("klmini::run: the deck's backend is not resolved (resolve_backend)");
  const Backend backend = *deck.backend;
  Config config = deck;
  if (config.precision == Precision::backend_default) config.precision = info(backend).default_precision;
  std::optional<Record> record;
  for_each_compiled_backend([&](auto row) {
    if (decltype(row)::value == backend) record = run_problem<space_of<decltype(row)::value>>(config, announce);
  });
  if (!record) not_compiled_in(backend);
  return std::move(*record);
}

}  // namespace klmini
