// Variant name -> kernel. Each kernel leaves this rank's fp64 sum of terms (unscaled) in `out`.
#pragma once

#include <string>
#include <vector>

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

// Whether a variant computes what the deck asks for (variant = "all" runs those that do):
// kokkos_kernels composes fp32 library calls, so it has neither other dtypes nor exact terms.
inline bool applies(const std::string& name, const Config& c) {
  if (name == "kokkos_kernels") return c.dtype == DType::fp32 && c.precision != Precision::exact;
  return true;
}

// The loss variants a run times: every one compiled in that applies (variant = "all"), or the
// one named, which must be compiled in.
inline std::vector<std::string> loss_variants(const Config& c) {
  if (c.variant != "all") {
    if (!compiled_in(c.variant))
      throw NotCompiledIn("variant '" + c.variant + "' is not compiled into this build (it needs Kokkos Kernels)");
    return {c.variant};
  }
  std::vector<std::string> names;
  for (auto v : kVariantNames)
    if (compiled_in(std::string(v)) && applies(std::string(v), c)) names.emplace_back(v);
  return names;
}

template <class Space, class T>
void run_variant(const std::string& name, const Problem<Space, T>& p, const Result<Space>& out) {
  if (name == "fused") return fused(p, out);
  if (name == "flat") return flat(p, out);
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
  if constexpr (std::is_same_v<T, float>)
    if (name == "kokkos_kernels") {
      if (p.exact) throw InputError("variant 'kokkos_kernels' has no precision = \"exact\"");
      return kokkos_kernels(p, out);
    }
  if (name == "kokkos_kernels") throw InputError("variant 'kokkos_kernels' reads fp32 inputs only");
#endif
  if (is_known_variant(name))
    throw NotCompiledIn("variant '" + name + "' is not compiled into this build (it needs Kokkos Kernels)");
  throw InputError("unknown variant '" + name + "'");
}

}  // namespace klmini::variants
