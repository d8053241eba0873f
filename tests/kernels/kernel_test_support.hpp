// What the Kokkos test sources share. They are built once per backend compiled into Kokkos
// (tests/CMakeLists.txt: klmini_tests_<backend>), with KLMINI_TEST_SPACE the execution space
// under test and KLMINI_TEST_BACKEND its deck name.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "common/fresh_seed.hpp"
#include "run/backends.hpp"
#include "run/runner.hpp"

using Space = KLMINI_TEST_SPACE;
using klmini::Problem;
using klmini::testing::fresh_seed;

namespace klmini::testing {

// A problem in the space under test holding the given row-major tokens x vocab inputs.
inline Problem<Space> upload(const std::vector<float>& lp, const std::vector<float>& t, std::int64_t tokens,
                             std::int64_t vocab, bool log_target) {
  Problem<Space> p;
  p.tokens = tokens;
  p.vocab = vocab;
  p.log_target = log_target;
  p.lp = typename Problem<Space>::Matrix("lp", tokens, vocab);
  p.t = typename Problem<Space>::Matrix("t", tokens, vocab);
  auto lp_h = Kokkos::create_mirror_view(p.lp);
  auto t_h = Kokkos::create_mirror_view(p.t);
  for (std::int64_t i = 0; i < tokens * vocab; ++i) {
    lp_h.data()[i] = lp[i];
    t_h.data()[i] = t[i];
  }
  Kokkos::deep_copy(p.lp, lp_h);
  Kokkos::deep_copy(p.t, t_h);
  return p;
}

// The sizes the launch-shape tests run: short rows, unaligned ones, rows past a host unit, and
// {3, 65536}, rows long enough that the product's shape on devices is RowSums.
inline std::vector<std::pair<std::int64_t, std::int64_t>> shape_test_sizes() {
  return {{3, 8}, {5, 40}, {9, 1032}, {3, 65536}};
}

// The fp64 reference rows (log_target off) of every row of p's inputs, read back to the host.
template <class T>
std::vector<RowTotals> reference_of(const Problem<Space, T>& p) {
  const auto rows = sample_rows(p.tokens, p.tokens, 0);
  const auto lp = rows_on_host(p.lp, rows), t = rows_on_host(p.t, rows);
  return reference_rows(lp.data(), t.data(), p.tokens, p.vocab, false);
}

// The loss variants compiled into this build.
inline std::vector<Variant> variants_built() {
  std::vector<Variant> v;
  for (const Variant k : loss_variant_table())
    if (compiled_in(k)) v.push_back(k);
  return v;
}

// A deck for a quick whole run on the backend under test: every variant, fresh inputs, two
// timed repeats and no warm-up.
inline Config small_config(std::int64_t tokens, std::int64_t vocab) {
  Config c;
  c.tokens = tokens;
  c.vocab = vocab;
  c.backend = backend_info<Space>().id;
  c.seed = fresh_seed();
  c.warmup = 0;
  c.repeats = 2;
  c.variant = std::nullopt;  // all
  return c;
}

}  // namespace klmini::testing

using klmini::testing::small_config;
using klmini::testing::upload;
using klmini::testing::variants_built;
