// What the Kokkos test sources share. They are built once per backend compiled into Kokkos
// (tests/CMakeLists.txt: klmini_tests_<backend>), with KLMINI_TEST_SPACE the execution space
// under test and KLMINI_TEST_BACKEND its deck name.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
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
