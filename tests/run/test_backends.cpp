// The Kokkos side of the backend table (src/core/backend_spaces.hpp, src/run/backends.cpp): the
// space under test has its row, whose columns say what Kokkos says of the space, and a deck's
// backend resolves to a compiled one. Also the build's versions (src/core/build_info.hpp).
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/build_info.hpp"
#include "core/problem.hpp"

TEST_CASE("the space under test has its row, and the row's columns are Kokkos' facts") {
  const klmini::BackendInfo& row = klmini::backend_info<Space>();
  CHECK(row.name == KLMINI_TEST_BACKEND);  // tests/CMakeLists.txt names the binary by the table
  CHECK(row.execution_space == Space::name());
  CHECK(row.memory_space == Space::memory_space::name());
  CHECK(row.host == klmini::is_host_space<Space>());
  CHECK(klmini::kFixedUnits<Space> == (row.sum_units == klmini::SumUnits::fixed));
  CHECK(std::is_same_v<klmini::space_of<klmini::backend_info<Space>().id>, Space>);
  CHECK(klmini::kCompiledIn<klmini::backend_info<Space>().id>);
}

TEST_CASE("the backends compiled in: best first, each with its space") {
  const std::vector<klmini::Backend> compiled = klmini::compiled_backends();
  REQUIRE_FALSE(compiled.empty());
  CHECK(std::find(compiled.begin(), compiled.end(), klmini::backend_info<Space>().id) != compiled.end());
  CHECK(std::is_sorted(compiled.begin(), compiled.end()));  // the table's order is the Backend order
  int visited = 0;
  klmini::for_each_compiled_backend([&](auto row) {
    CHECK(klmini::info(decltype(row)::value).execution_space == klmini::space_of<decltype(row)::value>::name());
    ++visited;
  });
  CHECK(visited == int(compiled.size()));
  CHECK(klmini::kokkos_backends() == klmini::backend_names(compiled, ", "));
#ifndef KOKKOS_ENABLE_CUDA
  CHECK_FALSE(klmini::kCompiledIn<klmini::Backend::cuda>);
  CHECK(klmini::kokkos_backends().find("cuda") == std::string::npos);
#endif
}

TEST_CASE("Kokkos versions as Kokkos writes them") {
  CHECK(klmini::kokkos_style_version(30401) == "3.4.01");
  CHECK(klmini::kokkos_style_version(40601) == "4.6.01");
  CHECK(klmini::kokkos_style_version(50202) == "5.2.02");
  CHECK(klmini::kokkos_version() == klmini::kokkos_style_version(KOKKOS_VERSION));
}

TEST_CASE("a run takes a resolved backend and the backend's default precision") {
  klmini::Config c = small_config(2, 16);
  c.variant = klmini::Variant::fused;
  c.backend = std::nullopt;
  REQUIRE_THROWS_AS(klmini::run(c), std::logic_error);  // resolve_backend first, once
  c.backend = klmini::resolve_backend(std::nullopt);
  CHECK(c.backend == klmini::compiled_backends().front());
  c.backend = klmini::backend_info<Space>().id;
  const klmini::Record r = klmini::run(c);
  CHECK(r.backend == klmini::backend_info<Space>().id);
  CHECK(r.execution_space == Space::name());
  CHECK(r.config.precision == klmini::backend_info<Space>().default_precision);
  CHECK(r.kokkos_backends == klmini::compiled_backends());
  CHECK(r.thread_binding.empty() != klmini::backend_info<Space>().binds_threads);
}
