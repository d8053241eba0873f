// The launch-shape table and the choice among timed shapes (src/host/launch_shapes.cpp), and
// the deck's `shape` key; fused's candidates on each space are tested in
// tests/kernels/test_shapes.cpp, the choice inside a run in tests/run/test_runner.cpp.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <set>
#include <string>

#include "host/config.hpp"
#include "host/errors.hpp"
#include "host/launch_shapes.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::LaunchShape;
using klmini::ShapeTrial;

TEST_CASE("launch shapes: every row has a unique name that finds it again") {
  std::set<std::string> names;
  for (const auto& row : klmini::kLaunchShapes) {
    CHECK(names.insert(std::string(row.name)).second);
    CHECK(klmini::find_shape(row.name) == row.shape);
    CHECK(klmini::shape_name(row.shape) == row.name);
    CHECK_THAT(klmini::shape_names(), ContainsSubstring(std::string(row.name)));
  }
  CHECK_FALSE(klmini::find_shape("grid").has_value());
  CHECK_FALSE(klmini::find_shape("").has_value());
}

TEST_CASE("launch shapes: the fastest trial wins, a tie goes to the earlier candidate") {
  using S = LaunchShape;
  // Fake timings: the choice is the minimum's shape wherever it is in the list.
  CHECK(klmini::fastest_shape({{S::grid_u2_half, 180e-6}, {S::rows_u4_t256, 172e-6}, {S::grid_u4_full, 175e-6}}) ==
        S::rows_u4_t256);
  CHECK(klmini::fastest_shape({{S::grid_u2_half, 170e-6}, {S::rows_u4_t256, 172e-6}}) == S::grid_u2_half);
  CHECK(klmini::fastest_shape({{S::rows, 1.0}}) == S::rows);
  // Within the tolerance (0.2%) of the fastest: the earlier candidate, so noise between equal
  // shapes does not flip the choice; just beyond it: the faster one.
  CHECK(klmini::fastest_shape({{S::grid_u2_half, 1.0015}, {S::rows_u4_t256, 1.0}}) == S::grid_u2_half);
  CHECK(klmini::fastest_shape({{S::grid_u2_half, 1.0025}, {S::rows_u4_t256, 1.0}}) == S::rows_u4_t256);
  CHECK(klmini::fastest_shape({{S::grid_u2_half, 1.0025}, {S::rows_u4_t256, 1.0}}, 0.005) == S::grid_u2_half);
  // The earliest of several ties, not the fastest of them.
  CHECK(
      klmini::fastest_shape(
          {{S::grid_u4_full, 2.0}, {S::grid_u4_quarter, 1.001}, {S::rows_t256_lean, 1.0}, {S::grid_u2_half, 1.0005}}) ==
      S::grid_u4_quarter);
  CHECK_THROWS_AS(klmini::fastest_shape({}), std::logic_error);
}

TEST_CASE("the deck's shape key: auto by default, any name of the table, nothing else") {
  const auto parse = [](const std::string& text) { return klmini::parse_config(text, "test.toml", "/decks", {}); };
  CHECK(parse("").shape == LaunchShape::automatic);
  CHECK(parse("shape = \"rows_t256_lean\"").shape == LaunchShape::rows_t256_lean);
  CHECK(parse("shape = \"segments_2048\"").shape == LaunchShape::segments_2048);
  CHECK_THROWS_WITH(parse("shape = \"grid\""), ContainsSubstring("test.toml:1:1: key 'shape': 'grid' is not one of "
                                                                 "auto|rows|"));
  CHECK_THROWS_AS(parse("shape = 3"), klmini::DeckError);
  const auto d = klmini::describe(parse("shape = \"grid_u4_quarter\""));
  bool described = false;
  for (const auto& [key, value] : d)
    if (key == "shape") described = std::get<std::string>(value) == "grid_u4_quarter";
  CHECK(described);
}
