// What this build is made of, for the report and --version: its Kokkos, its Kokkos Kernels and
// the backends compiled in.
#pragma once

#include <Kokkos_Core.hpp>
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
#include <KokkosKernels_config.h>
#endif

#include <cstdio>
#include <string>

#include "core/backend_spaces.hpp"

namespace klmini {

// A version number as Kokkos writes it, with a two-digit patch level: 30401 -> 3.4.01.
inline std::string kokkos_style_version(int v) {
  char text[32];
  std::snprintf(text, sizeof text, "%d.%d.%02d", v / 10000, v / 100 % 100, v % 100);
  return text;
}

inline std::string kokkos_version() { return kokkos_style_version(KOKKOS_VERSION); }

// The Kokkos Kernels version compiled in, or "" when the build has none.
inline std::string kokkos_kernels_version() {
#if defined(KOKKOSKERNELS_VERSION)
  return kokkos_style_version(KOKKOSKERNELS_VERSION);
#elif defined(KLMINI_HAVE_KOKKOS_KERNELS)
  return KLMINI_KOKKOS_KERNELS_CMAKE_VERSION[0] != '\0' ? KLMINI_KOKKOS_KERNELS_CMAKE_VERSION : "(version unknown)";
#else
  return "";
#endif
}

// The backends compiled in, best first: "cuda, openmp, serial".
inline std::string kokkos_backends() { return backend_names(compiled_backends(), ", "); }

}  // namespace klmini
