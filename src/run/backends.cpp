#include "run/backends.hpp"

#include <Kokkos_Core.hpp>
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
#include <KokkosKernels_config.h>
#endif

#include <cstdio>

#include "host/errors.hpp"
#include "run/runner.hpp"

namespace klmini {

std::vector<std::string> compiled_backends() {
  std::vector<std::string> b;
#ifdef KOKKOS_ENABLE_CUDA
  b.emplace_back("cuda");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  b.emplace_back("openmp");
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  b.emplace_back("serial");
#endif
  return b;
}

std::string resolve_backend(const std::string& requested) {
  const auto b = compiled_backends();
  if (b.empty()) throw NotCompiledIn("this Kokkos has none of the backends klmini supports (cuda, openmp, serial)");
  if (requested == "default") return b.front();
  for (const auto& name : b)
    if (name == requested) return name;
  std::string have;
  for (const auto& name : b) have += (have.empty() ? "" : ", ") + name;
  throw NotCompiledIn("backend '" + requested + "' is not compiled into this build (compiled in: " + have + ")");
}

namespace {
// Kokkos writes its patch level with two digits: 3.4.01, 4.6.01.
std::string kokkos_style_version(int v) {
  char text[32];
  std::snprintf(text, sizeof text, "%d.%d.%02d", v / 10000, v / 100 % 100, v % 100);
  return text;
}
}  // namespace

std::string kokkos_version() { return kokkos_style_version(KOKKOS_VERSION); }

std::string kokkos_kernels_version() {
#if defined(KOKKOSKERNELS_VERSION)
  return kokkos_style_version(KOKKOSKERNELS_VERSION);
#elif defined(KLMINI_HAVE_KOKKOS_KERNELS)
  return KLMINI_KOKKOS_KERNELS_CMAKE_VERSION[0] != '\0' ? KLMINI_KOKKOS_KERNELS_CMAKE_VERSION : "(version unknown)";
#else
  return "";
#endif
}

std::string kokkos_backends() {
  std::string s;
  for (const auto& b : compiled_backends()) s += (s.empty() ? "" : ", ") + b;
  return s;
}

Precision default_precision(const std::string& backend) {
  return backend == "cuda" ? kCudaDefaultPrecision : Precision::fast;
}

Record run(const Config& deck, const std::function<void(const Record&)>& announce) {
  const std::string backend = resolve_backend(deck.backend);
  Config config = deck;
  if (config.precision == Precision::backend_default) config.precision = default_precision(backend);
#ifdef KOKKOS_ENABLE_CUDA
  if (backend == "cuda") return run_problem<Kokkos::Cuda>(config, announce);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (backend == "openmp") return run_problem<Kokkos::OpenMP>(config, announce);
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  if (backend == "serial") return run_problem<Kokkos::Serial>(config, announce);
#endif
  throw NotCompiledIn("backend '" + backend + "' has no runner in this build");
}

}  // namespace klmini
