// The variants a deck's run times and those it leaves out (src/host/timed_variants.hpp), and
// the one rule of where a variant applies (why_not_applicable, src/host/variants.hpp).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <vector>

#include "host/errors.hpp"
#include "host/timed_variants.hpp"

using klmini::Variant;

namespace {
const klmini::VariantInfo& kk = klmini::info(Variant::kokkos_kernels);
}

TEST_CASE("where a variant applies: kokkos_kernels takes fp32 fast terms only") {
  using klmini::DType;
  using klmini::Precision;
  CHECK(klmini::why_not_applicable(kk, DType::fp32, Precision::fast).empty());
  CHECK(klmini::why_not_applicable(kk, DType::fp32, Precision::backend_default).empty());
  CHECK(klmini::why_not_applicable(kk, DType::bf16, Precision::fast) == "reads fp32 inputs only (dtype is bf16)");
  CHECK(klmini::why_not_applicable(kk, DType::fp16, Precision::exact) == "reads fp32 inputs only (dtype is fp16)");
  CHECK(klmini::why_not_applicable(kk, DType::fp32, Precision::exact) == "has no precision = \"exact\"");
  for (const klmini::VariantInfo& v : klmini::kVariants)
    if (!v.fp32_fast_only) CHECK(klmini::why_not_applicable(v, DType::fp16, Precision::exact).empty());
}

TEST_CASE("variant = all: what is timed and what is left out, with its reason") {
  klmini::Config c;
  c.variant = std::nullopt;  // all
  c.dtype = klmini::DType::bf16;
  const std::vector<Variant> timed = klmini::timed_variants(c);
  CHECK(timed == std::vector<Variant>{Variant::fused, Variant::flat});
  const auto left = klmini::left_out_variants(c);
  REQUIRE(left.size() == 1);
  CHECK(left[0].variant == Variant::kokkos_kernels);
  CHECK(left[0].reason == (klmini::compiled_in(Variant::kokkos_kernels)
                               ? "reads fp32 inputs only (dtype is bf16)"
                               : "not compiled in: this build has no Kokkos Kernels"));
  CHECK(klmini::why_left_out(Variant::fused, c).empty());
  c.variant = klmini::Variant::flat;  // a named variant leaves nothing out
  CHECK(klmini::left_out_variants(c).empty());
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::flat});
}

TEST_CASE("a named variant the deck check let through is still refused by name") {
  klmini::Config c;
  c.variant = klmini::Variant::terms;  // the term matrix's kernel is chosen by reduction = "none", not by name
  REQUIRE_THROWS_WITH(klmini::timed_variants(c), Catch::Matchers::ContainsSubstring("unknown variant 'terms'"));
  c.variant = klmini::Variant::kokkos_kernels;
  if (!klmini::compiled_in(Variant::kokkos_kernels))
    REQUIRE_THROWS_AS(klmini::timed_variants(c), klmini::NotCompiledIn);
  else
    CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::kokkos_kernels});
  c.reduction = klmini::Reduction::none;
  c.gradient = true;
  CHECK(klmini::timed_variants(c) == std::vector<Variant>{Variant::terms, Variant::fused_grad, Variant::grad_only});
}
