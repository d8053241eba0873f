// Variant name -> kernel. Each kernel returns this rank's fp64 sum of terms (unscaled).
#pragma once

#include <string>

#include "../errors.hpp"
#include "../variant_names.hpp"
#include "flat.hpp"
#include "fused.hpp"
#include "kokkos_kernels.hpp"

namespace klmini::variants {

inline bool compiled_in(const std::string& name) {
#ifndef KLMINI_HAVE_KOKKOS_KERNELS
  if (name == "kokkos_kernels") return false;
#endif
  return is_known_variant(name);
}

template <class Space>
double run_variant(const std::string& name, const Problem<Space>& p) {
  if (name == "fused") return fused(p);
  if (name == "flat") return flat(p);
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
  if (name == "kokkos_kernels") return kokkos_kernels(p);
#endif
  if (is_known_variant(name))
    throw NotCompiledIn("variant '" + name + "' is not compiled into this build (it needs Kokkos Kernels)");
  throw InputError("unknown variant '" + name + "'");
}

}  // namespace klmini::variants
