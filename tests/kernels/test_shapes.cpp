// The launch shapes of src/kernels/shapes.hpp with the term ops of src/kernels/term_ops.hpp,
// and the ceilings' shapes (src/kernels/probes/ceiling.hpp; the benchmark's own shapes are
// tested in tests/bench/test_experimental_shapes.cpp):
// every shape, fused's candidates included, against the fp64 reference in every dtype and
// precision (outputs poisoned first);
// where the space has fixed units, every chunked shape bitwise the same as every other (the
// unit is the chunk, whatever the shape) and every row-wise one as every other (whole rows and
// segments of any multiple of unit_columns); and the exact terms' choice between their regular
// and general form per chunk. Built once per backend (tests/CMakeLists.txt), on the space
// KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"
#include "kernels/probes/ceiling.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

// Every launch shape with term Op `op` on T inputs, against the reference within `tolerance`.
template <class T, class Op>
void check_launch_shapes(const Op& op, double tolerance, klmini::DType dtype) {
  using namespace klmini::variants;
  for (const auto& shape : klmini::testing::shape_test_sizes()) {
    klmini::Config c = small_config(shape.first, shape.second);
    c.dtype = dtype;
    auto p = klmini::make_problem<Space, T>(c, 0, c.tokens);
    const auto ref = klmini::testing::reference_of(p);
    const klmini::Result<Space> r("r");
    const int recommended = Kokkos::TeamPolicy<Space>(1, Kokkos::AUTO)
                                .team_size_recommended(GridStride<Space, 4, T, Op>{}, Kokkos::ParallelForTag());
    const std::vector<std::pair<std::string, std::function<void()>>> shapes = {
        {"grid_u2", [&] { run_grid_stride<2>("t", p, r, op, 3, 1); }},
        {"grid_u4", [&] { run_grid_stride<4>("t", p, r, op, 2, recommended); }},
        {"segments", [&] { run_row_segments("t", p, r, op); }},
        {"segments_w512", [&] { run_row_segments("t", p, r, op, 512); }},
        {"segments_w1024", [&] { run_row_segments("t", p, r, op, 1024); }},
        {"rowsums_u4", [&] { run_row_sums<4>("t", p, r, op, recommended); }},
        {"rowsums_u2_t1", [&] { run_row_sums<2>("t", p, r, op, 1); }},
        {"product", [&] { run_product_shape("t", p, r, op); }},
    };
    // fused's candidates (the shapes a run may choose), each by its name.
    std::vector<std::pair<std::string, std::function<void()>>> all = shapes;
    for (const klmini::LaunchShape s : shape_candidates<Space, T, Op>(p))
      all.push_back({std::string(klmini::shape_name(s)), [&, s] { run_shape(s, "t", p, r, op); }});
    // The unit of the segment shapes (whole rows and the product where it takes segments:
    // hosts, and devices for unaligned rows) is a row's unit_columns, whatever the segments'
    // width; every other shape's is the chunk.
    auto row_wise_shape = [&](const std::string& name) {
      return name.rfind("segments", 0) == 0 || name == "rows" || (name == "product" && !chunks_apply(p));
    };
    std::size_t row_wise_count = 0;
    for (const auto& shape : all) row_wise_count += row_wise_shape(shape.first) ? 1 : 0;
    std::vector<klmini::FixedSum> chunked, row_wise;
    for (const auto& [name, launch] : all) {
      INFO(c.tokens << " x " << c.vocab << " " << name << " dtype " << klmini::to_string(dtype));
      klmini::poison<Space>(r);
      launch();
      CHECK(klmini::verify_full(klmini::read_result<Space>(r), ref, 1.0, tolerance).passed);
      auto& same_unit = row_wise_shape(name) ? row_wise : chunked;
      same_unit.push_back(klmini::read_sum<Space>(r));
      if constexpr (klmini::kFixedUnits<Space>) CHECK(same_unit.back() == same_unit.front());
    }
    // Hosts: 3 segment shapes, the product and its candidates (rows, and segments_2048 for
    // long rows); devices: the 3 segment shapes, and with unaligned rows the product and its
    // one candidate.
    const std::size_t host_row_wise = 3 + 2 + (c.vocab > 2048 ? 1 : 0);
    CHECK(row_wise_count == (klmini::is_host_space<Space>() ? host_row_wise : chunks_apply(p) ? 3u : 5u));
    CHECK(row_wise.size() == row_wise_count);
    CHECK(chunked.size() == all.size() - row_wise.size());
  }
}

TEST_CASE("every launch shape of the fused kernel agrees with the fp64 reference, every dtype and precision") {
  using namespace klmini::variants;
  check_launch_shapes<float>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::fp32);
  check_launch_shapes<klmini::bf16>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::bf16);
  check_launch_shapes<klmini::fp16>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::fp16);
  const double* device_table = exact_log_table_on<typename Space::memory_space>();
  check_launch_shapes<float>(KlTermExactOp<false>{device_table}, klmini::kExactTermTolerance, klmini::DType::fp32);
  check_launch_shapes<klmini::bf16>(KlTermExactOp<false>{device_table}, klmini::kExactTermTolerance,
                                    klmini::DType::bf16);
}

TEST_CASE("exact terms: a chunk of regular targets takes the regular form, any other chunk the general one") {
  using namespace klmini::variants;
  const std::vector<double> table = klmini::math::exact_log_table();
  const KlTermExactOp<false> op{table.data()};
  std::mt19937 gen(20261202);
  std::uniform_real_distribution<float> target(1e-7f, 1.0f), log_prob(-30.0f, 0.0f);
  Chunk<float> lp[4], t[4];
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 4; ++k) {
      lp[c].v[k] = log_prob(gen);
      t[c].v[k] = target(gen);
    }
  // Item 1 of a two-step shape reads chunks 1 and 3 (stride 2), item 0 chunks 0 and 2.
  auto chunk_reference = [&](int c) {
    double sum = 0.0;
    for (int k = 0; k < 4; ++k) sum += klmini::kl_term(double(t[c].v[k]), double(lp[c].v[k]), false);
    return sum;
  };
  auto reference = [&](int first) { return chunk_reference(first) + chunk_reference(first + 2); };
  auto step = [&](int first, std::int64_t end = 4) {
    klmini::FixedSum s;
    add_chunks<2>(s, op, lp, t, first, 2, end);
    return s.to_double();
  };
  // A chunk's partial is the same alone as in any step: the form is chosen per chunk.
  auto alone = [&](int c) {
    klmini::FixedSum s;
    add_chunks<1>(s, op, lp, t, c, 1, 4);
    return s;
  };
  auto steps_agree = [&] {
    klmini::FixedSum two = alone(1), checked, unchecked;
    two += alone(3);
    add_chunks<2>(checked, op, lp, t, 1, 2, 4);
    add_chunks<2, false>(unchecked, op, lp, t, 1, 2, 4);
    return checked == two && unchecked == two;
  };
  const double regular = step(1);
  CHECK(steps_agree());
  CHECK(std::fabs(regular - reference(1)) <= 1e-15 * std::fabs(reference(1)));
  CHECK(std::fabs(step(0) - reference(0)) <= 1e-15 * std::fabs(reference(0)));
  const klmini::FixedSum regular_chunk = alone(1);
  // One target that is not a positive normal number sends its chunk to the general form, and
  // leaves the other chunk of the step as it was.
  for (const float special : {0.0f, -0.0f, 1e-40f, 1.4e-45f, -0.5f, NAN, INFINITY}) {
    INFO("t = " << special);
    t[3].v[2] = special;
    const double got = step(1), want = reference(1);
    CHECK(steps_agree());
    CHECK(alone(1) == regular_chunk);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else if (std::isinf(want)) {
      CHECK(got == want);
    } else {
      CHECK(std::fabs(got - want) <= 1e-15 * std::fabs(want));
    }
  }
  t[3].v[2] = 0.25f;
  lp[3].v[1] = -INFINITY;  // regular targets still propagate a log-probability of -inf
  CHECK(step(1) == INFINITY);
  lp[3].v[1] = NAN;
  CHECK(std::isnan(step(1)));
  // A step past the end reads nothing from there.
  CHECK(std::fabs(step(0, 2) - chunk_reference(0)) <= 1e-15 * std::fabs(chunk_reference(0)));
}

TEST_CASE("every read-ceiling candidate reads every element of both arrays once") {
  using namespace klmini::variants;
  for (const auto& shape : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 8}, {7, 4096}, {5, 8200}}) {
    const klmini::Config c = small_config(shape.first, shape.second);
    const auto p = klmini::make_problem<Space, float>(c, 0, c.tokens);
    const auto lp = klmini::rows_on_host(p.lp, klmini::sample_rows(c.tokens, c.tokens, 0));
    const auto t = klmini::rows_on_host(p.t, klmini::sample_rows(c.tokens, c.tokens, 0));
    double want = 0.0;
    for (std::size_t i = 0; i < lp.size(); ++i) want += double(lp[i]) + double(t[i]);
    const auto shapes = read_ceiling_shapes(p);
    // fused's candidate shapes, the rule's first: on hosts whole rows (and segments of long
    // rows); on devices the half-occupancy grid, two more grids and six fp32 row shapes.
    CHECK(shapes.front().name == (klmini::is_host_space<Space>() ? "rows" : "grid_u2_half"));
    CHECK(shapes.size() == (klmini::is_host_space<Space>() ? (c.vocab > 2048 ? 2u : 1u) : 9u));
    const klmini::Result<Space> r("r");
    for (const auto& s : shapes) {
      INFO(c.tokens << " x " << c.vocab << " " << s.name);
      klmini::poison<Space>(r);
      s.run(r);
      // fp32 sums of chunks of 4 then fp64: a few fp32 roundings per element at most.
      CHECK(std::fabs(klmini::read_result<Space>(r) - want) <= 1e-6 * std::fabs(want));
    }
  }
}
