#include "host/variants.hpp"

namespace klmini {

std::vector<Variant> loss_variant_table() {
  std::vector<Variant> out;
  for (const VariantInfo& i : kVariants)
    if (i.computes == Computes::loss) out.push_back(i.id);
  return out;
}

const char* to_string(Ceiling c) { return c == Ceiling::copy ? "copy" : "read"; }

bool compiled_in(Variant v) {
#ifdef KLMINI_HAVE_KOKKOS_KERNELS
  (void)v;
  return true;
#else
  return !info(v).needs_kokkos_kernels;
#endif
}

std::string not_compiled_in_message(Variant v) {
  return "variant '" + variant_name(v) + "' is not compiled into this build (it needs Kokkos Kernels)";
}

std::string why_not_applicable(const VariantInfo& i, DType dtype, Precision precision) {
  if (i.fp32_fast_only && dtype != DType::fp32)
    return "reads fp32 inputs only (dtype is " + std::string(to_string(dtype)) + ")";
  if (i.fp32_fast_only && precision == Precision::exact) return "has no precision = \"exact\"";
  return "";
}

}  // namespace klmini
