// The launch shapes only the benchmark times (bench/experimental_shapes.hpp: flat chunks, row
// teams, grid blocks) with the term ops of src/kernels/term_ops.hpp: every one against the
// fp64 reference in every dtype and precision (outputs poisoned first), and where the space has
// fixed units bitwise the same as the product's persistent grid (the unit is the chunk,
// whatever the shape). Built once per backend (tests/CMakeLists.txt), on the space
// KLMINI_TEST_SPACE.
#include "experimental_shapes.hpp"
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

// Every experimental shape with term Op `op` on T inputs, against the reference within
// `tolerance` and against the product's grid.
template <class T, class Op>
void check_experimental_shapes(const Op& op, double tolerance, klmini::DType dtype) {
  using namespace klmini::variants;
  using namespace klmini::variants::experimental;
  for (const auto& shape : klmini::testing::shape_test_sizes()) {
    klmini::Config c = small_config(shape.first, shape.second);
    c.dtype = dtype;
    auto p = klmini::make_problem<Space, T>(c, 0, c.tokens);
    const auto ref = klmini::testing::reference_of(p);
    const klmini::Result<Space> r("r");
    const int recommended = Kokkos::TeamPolicy<Space>(1, Kokkos::AUTO)
                                .team_size_recommended(GridStride<Space, 4, T, Op>{}, Kokkos::ParallelForTag());
    run_grid_stride<2>("t", p, r, op, 3, 1);
    const klmini::FixedSum grid = klmini::read_sum<Space>(r);
    const std::vector<std::pair<std::string, std::function<void()>>> shapes = {
        {"chunks_u1", [&] { run_flat_chunks<1>("t", p, r, op); }},
        {"chunks_u2", [&] { run_flat_chunks<2>("t", p, r, op); }},
        {"chunks_u4", [&] { run_flat_chunks<4>("t", p, r, op); }},
        {"chunks_u3_consecutive", [&] { run_flat_chunks<3, ChunkOrder::consecutive>("t", p, r, op); }},
        {"chunks_u4_lb256",
         [&] { run_flat_chunks<4, ChunkOrder::interleaved, Kokkos::LaunchBounds<256, 4>>("t", p, r, op); }},
        {"rowteam_u1", [&] { run_row_teams<1>("t", p, r, op, recommended); }},
        {"rowteam_u2", [&] { run_row_teams<2>("t", p, r, op, 1); }},
        {"rowteam_strided_u4", [&] { run_row_teams<4, ChunkOrder::interleaved>("t", p, r, op, recommended); }},
        {"rowteam_strided_u2_t1", [&] { run_row_teams<2, ChunkOrder::interleaved>("t", p, r, op, 1); }},
        {"blocks_u4", [&] { run_grid_blocks<4>("t", p, r, op, 3, recommended); }},
        {"blocks_u2_t1", [&] { run_grid_blocks<2>("t", p, r, op, 2, 1); }},
    };
    for (const auto& [name, launch] : shapes) {
      INFO(c.tokens << " x " << c.vocab << " " << name << " dtype " << klmini::to_string(dtype));
      klmini::poison<Space>(r);
      launch();
      CHECK(klmini::verify_full(klmini::read_result<Space>(r), ref, 1.0, tolerance).passed);
      if constexpr (klmini::kFixedUnits<Space>) CHECK(klmini::read_sum<Space>(r) == grid);
    }
  }
}

TEST_CASE("every launch shape the benchmark sweeps agrees with the fp64 reference, every dtype and precision") {
  using namespace klmini::variants;
  check_experimental_shapes<float>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::fp32);
  check_experimental_shapes<klmini::bf16>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::bf16);
  check_experimental_shapes<klmini::fp16>(KlTermOp<false>{}, klmini::kTermTolerance, klmini::DType::fp16);
  const double* device_table = exact_log_table_on<typename Space::memory_space>();
  check_experimental_shapes<float>(KlTermExactOp<false>{device_table}, klmini::kExactTermTolerance,
                                   klmini::DType::fp32);
  check_experimental_shapes<klmini::bf16>(KlTermExactOp<false>{device_table}, klmini::kExactTermTolerance,
                                          klmini::DType::bf16);
}
