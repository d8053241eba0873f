// Variant name -> kernel. Each kernel leaves this rank's fp64 sum of terms (unscaled) in `out`.
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
void run_variant(const std::string& name, const Problem<Space>& p, const Result<Space>& out) {
  if (name == "fused") return fused(p, out);
  if (name == "flat") return flat(p, out);
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
  if (name == "kokkos_kernels") return kokkos_kernels(p, out);
#endif
  if (is_known_variant(name))
    throw NotCompiledIn("variant '" + name + "' is not compiled into this build (it needs Kokkos Kernels)");
  throw InputError("unknown variant '" + name + "'");
}

}  // namespace klmini::variants
