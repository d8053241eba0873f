// The backend table (src/host/backends.hpp): one row per backend, the names a deck may give,
// and which backends' losses agree bitwise.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "host/backends.hpp"
#include "host/config.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::Backend;

TEST_CASE("the backend table: one row per backend, found by its deck name") {
  std::vector<std::string> names;
  for (const klmini::BackendInfo& b : klmini::kBackends) {
    CHECK(&klmini::info(b.id) == &b);  // every Backend has exactly its own row
    CHECK(klmini::find_backend(b.name) == b.id);
    CHECK(klmini::backend_name(b.id) == b.name);
    names.emplace_back(b.name);
    CHECK(b.default_precision != klmini::Precision::backend_default);  // a default is fast or exact
    // A host backend's memory is the host's; a device's is its own.
    CHECK(b.host == (b.memory_space == "Host"));
  }
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(klmini::find_backend("default") == std::nullopt);
  CHECK(klmini::find_backend("OpenMP") == std::nullopt);  // Kokkos' spelling is not the deck's
  CHECK(klmini::all_backends() == std::vector<Backend>{Backend::cuda, Backend::openmp, Backend::serial});
  CHECK(klmini::backend_names(klmini::all_backends(), ", ") == "cuda, openmp, serial");
  CHECK(klmini::backend_names({}, ", ").empty());
  // Only OpenMP's threads are bound by OMP_PROC_BIND and OMP_PLACES.
  CHECK(klmini::info(Backend::openmp).binds_threads);
  CHECK_FALSE(klmini::info(Backend::serial).binds_threads);
  CHECK(klmini::info(Backend::cuda).default_precision == klmini::kCudaDefaultPrecision);
  CHECK(klmini::info(Backend::cuda).sum_units == klmini::kCudaSumUnits);
  CHECK(klmini::info(Backend::serial).sum_units == klmini::SumUnits::fixed);
}

TEST_CASE("the backends whose fixed-units loss is bitwise the same: those sharing the code that sums") {
  const std::vector<Backend> all = klmini::all_backends();
  CHECK(klmini::same_sums_as(Backend::openmp, all) == std::vector<Backend>{Backend::openmp, Backend::serial});
  CHECK(klmini::same_sums_as(Backend::serial, all) == std::vector<Backend>{Backend::openmp, Backend::serial});
  CHECK(klmini::same_sums_as(Backend::cuda, all) == std::vector<Backend>{Backend::cuda});
  // Only the backends of this build, and the one that ran, whatever the build lists.
  CHECK(klmini::same_sums_as(Backend::serial, {Backend::serial}) == std::vector<Backend>{Backend::serial});
  CHECK(klmini::same_sums_as(Backend::openmp, {}) == std::vector<Backend>{Backend::openmp});
}

TEST_CASE("the deck's backend: a row's name, or default") {
  const auto parse = [](const std::string& text) { return klmini::parse_config(text, "deck.toml", "/decks", {}); };
  CHECK(parse("").backend == std::nullopt);
  CHECK(parse("backend = \"default\"").backend == std::nullopt);
  for (const klmini::BackendInfo& b : klmini::kBackends)
    CHECK(parse("backend = \"" + std::string(b.name) + "\"").backend == b.id);
  REQUIRE_THROWS_WITH(parse("backend = \"hip\""),
                      ContainsSubstring("key 'backend': 'hip' is not one of default|cuda|openmp|serial"));
  // The resolved deck names it as the deck does.
  const auto described = [](const klmini::Config& c) {
    for (const auto& [key, value] : klmini::describe(c))
      if (key == "backend") return std::get<std::string>(value);
    return std::string("(none)");
  };
  CHECK(described(parse("")) == "default");
  CHECK(described(parse("backend = \"serial\"")) == "serial");
}
