// Variant name -> kernel. Each kernel leaves this rank's fp64 sum of terms (unscaled) in `out`.
#pragma once

#include <string>
#include <vector>

#include "../errors.hpp"
#include "../record.hpp"
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

// Why a loss variant does not run for this deck in this build, or "" when it does.
// kokkos_kernels composes fp32 library calls, so it has neither other dtypes nor exact terms.
inline std::string why_left_out(const std::string& name, const Config& c) {
  if (!compiled_in(name)) return "not compiled in: this build has no Kokkos Kernels";
  if (name == "kokkos_kernels" && c.dtype != DType::fp32)
    return "reads fp32 inputs only (dtype is " + std::string(to_string(c.dtype)) + ")";
  if (name == "kokkos_kernels" && c.precision == Precision::exact) return "has no precision = \"exact\"";
  return "";
}

// The loss variants a run times: every one that runs for the deck (variant = "all"), or the
// one named, which must be compiled in.
inline std::vector<std::string> loss_variants(const Config& c) {
  if (c.variant != "all") {
    if (!compiled_in(c.variant))
      throw NotCompiledIn("variant '" + c.variant + "' is not compiled into this build (it needs Kokkos Kernels)");
    return {c.variant};
  }
  std::vector<std::string> names;
  for (auto v : kVariantNames)
    if (why_left_out(std::string(v), c).empty()) names.emplace_back(v);
  return names;
}

// The loss variants variant = "all" leaves out, each with the reason (empty for one variant).
inline std::vector<LeftOutVariant> left_out_variants(const Config& c) {
  std::vector<LeftOutVariant> out;
  if (c.variant != "all") return out;
  for (auto v : kVariantNames) {
    std::string why = why_left_out(std::string(v), c);
    if (!why.empty()) out.push_back({std::string(v), std::move(why)});
  }
  return out;
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
