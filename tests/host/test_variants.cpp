// The variant table (src/host/variants.hpp): one row per variant, the names a deck may give, the
// bytes each kernel moves and the ceiling it is measured against.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "host/config.hpp"
#include "host/variants.hpp"

using Catch::Matchers::ContainsSubstring;

TEST_CASE("the variant table: one row per variant, each with its bytes and ceiling") {
  using klmini::Variant;
  std::vector<std::string> names;
  for (const klmini::VariantInfo& v : klmini::kVariants) {
    CHECK(&klmini::info(v.id) == &v);  // every Variant has exactly its own row
    CHECK(klmini::find_variant(v.name) == &v);
    names.emplace_back(v.name);
    // A kernel that writes a matrix is measured against the copy ceiling, the others the read one.
    CHECK((v.matrices_written > 0) == (v.ceiling == klmini::Ceiling::copy));
  }
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(klmini::find_variant("all") == nullptr);
  // Bytes moved per element: both inputs (and the fp32 output), or t and the gradient only.
  CHECK(klmini::bytes_per_element(klmini::info(Variant::fused), 4.0) == 8.0);
  CHECK(klmini::bytes_per_element(klmini::info(Variant::fused), 2.0) == 4.0);
  CHECK(klmini::bytes_per_element(klmini::info(Variant::fused_grad), 2.0) == 8.0);
  CHECK(klmini::bytes_per_element(klmini::info(Variant::grad_only), 4.0) == 8.0);
  CHECK(klmini::loss_variant_table() == std::vector<Variant>{Variant::fused, Variant::flat, Variant::kokkos_kernels});
  // A deck names loss variants only.
  REQUIRE_THROWS_WITH(klmini::parse_config("variant = \"terms\"\n", "deck.toml", ".", {}),
                      ContainsSubstring("'terms' is not one of fused|flat|kokkos_kernels|all"));
}
