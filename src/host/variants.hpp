// The variant table: every kernel a run can time, described once (name, what it computes, the
// bytes it must move, the ceiling it is measured against, where it applies). The kernels live in
// src/kernels/, one file each; src/kernels/dispatch.hpp maps a Variant to its loss kernel and
// src/run/plan.hpp turns the variants a deck asks for into the run's plan. Host-only: the deck
// parser, the memory estimate and the report read this table too.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "host/precision.hpp"

namespace klmini {

enum class Variant { fused, flat, kokkos_kernels, terms, fused_grad, grad_only };

// The bandwidth probe a variant's rate is divided by (src/kernels/probes/ceiling.hpp): `read`
// reads both inputs once; `copy` also writes one fp32 matrix.
enum class Ceiling { read, copy };

// What a variant computes, and so what the run checks against the fp64 reference.
enum class Computes {
  loss,               // the sum of terms
  terms_matrix,       // reduction = "none": the term matrix and its sum
  loss_and_gradient,  // the sum of terms and d(loss)/d(lp)
  gradient,           // d(loss)/d(lp) alone
};

struct VariantInfo {
  Variant id;
  std::string_view name;
  Computes computes;
  std::string_view summary;
  int matrices_read;     // input matrices read once per run (the gradient alone reads t only)
  int matrices_written;  // fp32 matrices written once per run
  Ceiling ceiling;
  bool needs_kokkos_kernels;
  bool fp32_fast_only;           // composed from fp32 library calls: no 16-bit inputs, no exact terms
  int log_target_work_matrices;  // fp32 work arrays it allocates when log_target = true
  // For a baseline, why it is far below the ceiling by design (the report's note below the
  // table, so that its row does not read as a defect); empty for the product's variants.
  std::string_view slower_by_design = {};
  // Whose fp64 sums a variant adds its terms with, in their own order, so that its loss is not
  // bitwise across ranks or threads; empty for the order-independent sum of the product's kernels.
  std::string_view ordered_sums = {};
};

inline constexpr std::array<VariantInfo, 6> kVariants = {{
    {Variant::fused, "fused", Computes::loss,
     "the product: one pass over both inputs, one parallel_reduce, fp32 terms summed in fp64", 2, 0, Ceiling::read,
     false, false, 0},
    {Variant::flat, "flat", Computes::loss, "a RangePolicy over single elements: the baseline", 2, 0, Ceiling::read,
     false, false, 0,
     "one element a work item, each term added into Kokkos' fp64 reduction: scalar loads and a log per call, "
     "what a first Kokkos version is",
     "Kokkos'"},
    {Variant::kokkos_kernels, "kokkos_kernels", Computes::loss,
     "KokkosBlas::dot for the cross term plus a reduce for the entropy term", 2, 0, Ceiling::read, true, true, 1,
     "two passes, the library's dot over t and lp, then a reduce of t log t over t again: a library cross-check",
     "the library's"},
    {Variant::terms, "terms", Computes::terms_matrix, "reduction = \"none\": writes the term matrix while it sums it",
     2, 1, Ceiling::copy, false, false, 0},
    {Variant::fused_grad, "fused_grad", Computes::loss_and_gradient,
     "gradient = true: the loss and d(loss)/d(lp) in one pass", 2, 1, Ceiling::copy, false, false, 0},
    {Variant::grad_only, "grad_only", Computes::gradient,
     "gradient = true: the gradient alone (the second pass of a two-pass alternative)", 1, 1, Ceiling::copy, false,
     false, 0},
}};

constexpr const VariantInfo& info(Variant v) {
  for (const VariantInfo& i : kVariants)
    if (i.id == v) return i;
  return kVariants[0];  // unreachable: every Variant has a row
}

inline std::string variant_name(Variant v) { return std::string(info(v).name); }

// The row named `name`, or nullptr.
inline const VariantInfo* find_variant(std::string_view name) {
  for (const VariantInfo& i : kVariants)
    if (i.name == name) return &i;
  return nullptr;
}

// The variants a deck's `variant` key may name (besides "all"): those that compute the loss.
std::vector<Variant> loss_variant_table();

// Bytes a run of the variant must move, per matrix element, for inputs of `input_bytes` each.
inline double bytes_per_element(const VariantInfo& i, double input_bytes) {
  return double(i.matrices_read) * input_bytes + double(i.matrices_written) * 4.0;
}

const char* to_string(Ceiling c);

// Whether this build has the variant's kernel (kokkos_kernels needs Kokkos Kernels).
bool compiled_in(Variant v);

// The one message for a variant that is not compiled in (NotCompiledIn): what it needs.
std::string not_compiled_in_message(Variant v);

// Why the variant does not apply to inputs of `dtype` and terms of `precision` (a resolved one),
// or "" when it does: the one wording of that rule for the deck check, variant = "all" and the
// kernels' dispatch.
std::string why_not_applicable(const VariantInfo& i, DType dtype, Precision precision);

}  // namespace klmini
