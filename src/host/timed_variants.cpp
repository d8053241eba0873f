#include "host/timed_variants.hpp"

#include "host/errors.hpp"

namespace klmini {

std::string why_left_out(Variant v, const Config& c) {
  if (!compiled_in(v)) return "not compiled in: this build has no Kokkos Kernels";
  return why_not_applicable(info(v), c.dtype, c.precision);
}

std::vector<Variant> timed_variants(const Config& c) {
  std::vector<Variant> out;
  if (c.reduction == Reduction::none) {
    out.push_back(Variant::terms);
  } else if (c.variant) {
    const Variant named = *c.variant;
    if (info(named).computes != Computes::loss) throw InputError("unknown variant '" + variant_name(named) + "'");
    if (!compiled_in(named)) throw NotCompiledIn(not_compiled_in_message(named));
    out.push_back(named);
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
  if (c.variant) return out;
  for (const Variant v : loss_variant_table()) {
    std::string why = why_left_out(v, c);
    if (!why.empty()) out.push_back({v, std::move(why)});
  }
  return out;
}

}  // namespace klmini
