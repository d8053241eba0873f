// Variant -> kernel, for the variants that compute the loss (the writing kernels take their
// output matrix too: src/run/plan.hpp calls them directly). Each kernel leaves this rank's
// fp64 sum of terms (unscaled) in `out`.
#pragma once

#include <string>
#include <type_traits>

#include "host/errors.hpp"
#include "host/variants.hpp"
#include "kernels/flat.hpp"
#include "kernels/fused.hpp"
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
#include "kernels/kokkos_kernels.hpp"
#endif

namespace klmini::variants {

// `shape`: fused's launch shape (one of fused_shape_candidates, or automatic for the rule's).
template <class Space, class T>
void run_loss_variant(Variant v, const Problem<Space, T>& p, const Result<Space>& out,
                      LaunchShape shape = LaunchShape::automatic) {
  const std::string name = variant_name(v);
  switch (v) {
    case Variant::fused: return fused(p, out, shape);
    case Variant::flat: return flat(p, out);
    case Variant::kokkos_kernels: {
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
      const DType dtype = std::is_same_v<T, float> ? DType::fp32 : std::is_same_v<T, bf16> ? DType::bf16 : DType::fp16;
      const std::string why = why_not_applicable(info(v), dtype, p.precision);
      if constexpr (std::is_same_v<T, float>)
        if (why.empty()) return kokkos_kernels(p, out);
      throw InputError("variant '" + name + "' " + why);
#else
      throw NotCompiledIn(not_compiled_in_message(v));
#endif
    }
    case Variant::terms:
    case Variant::fused_grad:
    case Variant::grad_only: break;
  }
  throw InputError("variant '" + name + "' does not compute the loss alone");
}

}  // namespace klmini::variants
