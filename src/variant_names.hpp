// The kernel variants klmini knows, by name. Whether each is compiled into this build is
// decided where the kernels live (variants.hpp); the names are known everywhere so that a
// deck naming a variant this build lacks gets "not compiled in", not "unknown".
#pragma once

#include <array>
#include <string_view>

namespace klmini {

// fused: the product (one pass, one parallel_reduce over row segments).
// flat: the first-pass RangePolicy over single elements, kept as a baseline.
// kokkos_kernels: KokkosBlas::dot for the cross term plus a reduce for the entropy term.
inline constexpr std::array<std::string_view, 3> kVariantNames = {"fused", "flat",
                                                                  "kokkos_kernels"};
// The `none` reduction writes the term matrix with this kernel instead.
inline constexpr std::string_view kTermsVariant = "terms";
// gradient = true adds the loss-and-gradient kernel (variants/gradient.hpp).
inline constexpr std::string_view kGradientVariant = "fused_grad";
// ... and the gradient alone (the second pass of the two-pass alternative it is compared with).
inline constexpr std::string_view kGradientOnlyVariant = "grad_only";

inline bool is_known_variant(std::string_view name) {
  for (auto v : kVariantNames)
    if (v == name) return true;
  return false;
}

}  // namespace klmini
