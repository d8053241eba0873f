#include "host/variants.hpp"

#include "host/errors.hpp"

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

std::string why_left_out(Variant v, const Config& c) {
  const VariantInfo& i = info(v);
  if (!compiled_in(v)) return "not compiled in: this build has no Kokkos Kernels";
  if (i.fp32_fast_only && c.dtype != DType::fp32)
    return "reads fp32 inputs only (dtype is " + std::string(to_string(c.dtype)) + ")";
  if (i.fp32_fast_only && c.precision == Precision::exact) return "has no precision = \"exact\"";
  return "";
}

std::vector<Variant> timed_variants(const Config& c) {
  std::vector<Variant> out;
  if (c.reduction == Reduction::none) {
    out.push_back(Variant::terms);
  } else if (c.variant != "all") {
    const VariantInfo* named = find_variant(c.variant);
    if (named == nullptr || named->computes != Computes::loss) throw InputError("unknown variant '" + c.variant + "'");
    if (!compiled_in(named->id))
      throw NotCompiledIn("variant '" + c.variant + "' is not compiled into this build (it needs Kokkos Kernels)");
    out.push_back(named->id);
  } else {
    for (const Variant v : loss_variant_table())
      if (why_left_out(v, c).empty()) out.push_back(v);
  }
  if (c.gradient) {
    out.push_back(Variant::fused_grad);
    out.push_back(Variant::grad_only);
  }
  return out;
}

std::vector<LeftOutVariant> left_out_variants(const Config& c) {
  std::vector<LeftOutVariant> out;
  if (c.variant != "all") return out;
  for (const Variant v : loss_variant_table()) {
    std::string why = why_left_out(v, c);
    if (!why.empty()) out.push_back({variant_name(v), std::move(why)});
  }
  return out;
}

}  // namespace klmini
