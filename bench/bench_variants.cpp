// Google Benchmark of the kernel variants and the read ceiling on every compiled-in backend,
// plus, on Cuda, the launch shapes the fused kernel was tuned over. Each iteration is timed
// with klmini's KernelTimer (CUDA events on Cuda), so the numbers compare with klmini's report
// and with the peers. Bytes processed = both inputs read once.
//   build/host/bin/klmini_bench [--benchmark_filter=...]
#include <Kokkos_Core.hpp>

#include <benchmark/benchmark.h>

#include <cstring>
#include <functional>
#include <memory>
#include <sstream>

#include "experimental_shapes.hpp"
#include "run/backends.hpp"
#include "run/runner.hpp"
#include "version.hpp"

namespace {

using Shape = std::pair<std::int64_t, std::int64_t>;  // tokens x vocab

template <class Space, class T = float>
using Kernel = std::function<void(const klmini::Problem<Space, T>&, const klmini::Result<Space>&)>;

// The problem of the last shape is kept alive between benchmarks of that shape; the Views
// must go before Kokkos finalizes.
std::vector<std::function<void()>> releases;
void release_problems() {
  for (auto& r : releases) r();
}

template <class Space, class T = float>
const klmini::Problem<Space, T>& problem_for(const Shape& shape) {
  static std::unique_ptr<klmini::Problem<Space, T>> cached;
  static Shape cached_shape{0, 0};
  static const bool registered = (releases.emplace_back([] { cached.reset(); }), true);
  (void)registered;
  if (!cached || cached_shape != shape) {
    cached.reset();
    klmini::Config c;
    c.tokens = shape.first;
    c.vocab = shape.second;
    cached = std::make_unique<klmini::Problem<Space, T>>(klmini::make_problem<Space, T>(c, 0, c.tokens));
    cached_shape = shape;
  }
  return *cached;
}

template <class Space>
klmini::KernelTimer<Space> make_timer(bool flush) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) return klmini::KernelTimer<Space>(flush);
#endif
  (void)flush;
  return klmini::KernelTimer<Space>();
}

// `flush`: KernelTimer's L2 flush before each start (the product's timing), or none.
template <class X>
struct NonDeduced {  // T is given or float, never deduced from the lambda
  using type = X;
};

template <class Space, class T = float>
void add(const std::string& backend, const std::string& name, const Shape& shape,
         typename NonDeduced<Kernel<Space, T>>::type kernel, bool flush = true) {
  const std::string label =
      backend + "/" + name + "/" + std::to_string(shape.first) + "x" + std::to_string(shape.second);
  benchmark::RegisterBenchmark(label.c_str(),
                               [=](benchmark::State& state) {
                                 const auto& p = problem_for<Space, T>(shape);
                                 const klmini::Result<Space> result("bench::result");
                                 kernel(p, result);  // warm up
                                 klmini::KernelTimer<Space> timer = make_timer<Space>(flush);
                                 for (auto _ : state) {
                                   timer.start();
                                   kernel(p, result);
                                   state.SetIterationTime(timer.stop());
                                 }
                                 state.counters["sum"] = klmini::read_result<Space>(result);
                                 const double bytes = 2.0 * double(shape.first) * double(shape.second) * sizeof(T);
                                 state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
                                 state.counters["TBps"] = benchmark::Counter(bytes * 1e-12 * double(state.iterations()),
                                                                             benchmark::Counter::kIsRate);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

template <class Space>
void register_variants(const std::string& backend, const std::vector<Shape>& shapes) {
  for (const Shape& shape : shapes) {
    add<Space>(backend, "ceiling_read", shape,
               [](const auto& p, const auto& r) { klmini::variants::read_ceiling(p, r); });
    for (const klmini::Variant v : klmini::loss_variant_table()) {
      if (!klmini::compiled_in(v)) continue;
      add<Space>(backend, klmini::variant_name(v), shape,
                 [v](const auto& p, const auto& r) { klmini::variants::run_loss_variant(v, p, r); });
    }
  }
}

// The fp64 term with the math library's accurate fp64 log (CUDA's log()): what precision =
// "exact" would cost without klmini's table log.
struct KlTermLibmFp64Op {
  using value_type = double;
  struct Log {
    KOKKOS_INLINE_FUNCTION double operator()(double x) const { return klmini::math::log(x); }
  };
  KOKKOS_INLINE_FUNCTION double operator()(float t, float lp) const {
    return klmini::kl_term_with(Log{}, double(t), double(lp), false);
  }
};

// The fp32 term with CUDA's __logf (MUFU.LG2 times ln 2, its bias left in): the device kernel
// log before device_logf recentred it, timed beside it to show what the recentring costs.
struct KlTermMufuLogOp {
  using value_type = float;
  struct MufuLog {
    KOKKOS_INLINE_FUNCTION float operator()(float x) const {
#if defined(__CUDA_ARCH__)
      return __logf(x);
#else
      return klmini::math::vector_logf(x);
#endif
    }
  };
  KOKKOS_INLINE_FUNCTION float operator()(float t, float lp) const {
    return klmini::kl_term_with(MufuLog{}, t, lp, false);
  }
};

// The fp32 term with the polynomial host log (math::vector_logf) on every space: the devices'
// kernel log timed against it.
struct KlTermPolyLogOp {
  using value_type = float;
  struct PolyLog {
    KOKKOS_INLINE_FUNCTION float operator()(float x) const { return klmini::math::vector_logf(x); }
  };
  KOKKOS_INLINE_FUNCTION float operator()(float t, float lp) const {
    return klmini::kl_term_with(PolyLog{}, t, lp, false);
  }
};

// The exact term without its regular form: every element through the special-value handling
// (the product before the regular form; it measures what the form gains), table in global memory.
struct KlTermExactGeneralOp : klmini::variants::KlTermExactOp<false> {
  static constexpr bool has_regular_form = false;
  static constexpr int scratch_bytes = 0;
};

// The exact term with its table gathered from global memory (through L1) instead of staged in
// team scratch: what staging the table in scratch gains.
struct KlTermExactGlobalOp : klmini::variants::KlTermExactOp<false> {
  static constexpr int scratch_bytes = 0;
};

// The timing method itself, on devices: the read ceiling and the product with and without the
// timer's L2 flush, from sizes where a fixed cost per launch dominates up to the seed sizes.
template <class Space>
void register_timing_methods(const std::string& backend, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes)
    for (const bool flush : {true, false}) {
      const std::string suffix = flush ? "" : "_noflush";
      add<Space>(
          backend, "timing_read" + suffix, s,
          [](const auto& p, const auto& r) { klmini::variants::read_ceiling(p, r); }, flush);
      add<Space>(
          backend, "timing_fused" + suffix, s, [](const auto& p, const auto& r) { klmini::variants::fused(p, r); },
          flush);
    }
}

// Launch shapes of the fused kernel on a device: flat 16-byte chunks, interleaved or
// consecutive, several unroll depths; one team per row; and the same shapes as plain reads.
// Each register_* below adds one family of them for shape `s`, in the order they are listed.
namespace device_shapes {

using namespace klmini::variants;
using namespace klmini::variants::experimental;
using Op = KlTermOp<false>;

// Flat 16-byte chunks, 1 to 8 a step, interleaved across the threads or consecutive in each.
template <class Space>
void register_flat_chunks(const std::string& backend, const Shape& s) {
  constexpr auto consecutive = ChunkOrder::consecutive;
  add<Space>(backend, "chunks_u1", s, [](const auto& p, const auto& r) { run_flat_chunks<1>("b", p, r, Op{}); });
  add<Space>(backend, "chunks_u2", s, [](const auto& p, const auto& r) { run_flat_chunks<2>("b", p, r, Op{}); });
  add<Space>(backend, "chunks_u4", s, [](const auto& p, const auto& r) { run_flat_chunks<4>("b", p, r, Op{}); });
  add<Space>(backend, "chunks_u8", s, [](const auto& p, const auto& r) { run_flat_chunks<8>("b", p, r, Op{}); });
  add<Space>(backend, "chunks_u4_consecutive", s,
             [](const auto& p, const auto& r) { run_flat_chunks<4, consecutive>("b", p, r, Op{}); });
  add<Space>(backend, "chunks_u2_lb512x2", s, [](const auto& p, const auto& r) {
    run_flat_chunks<2, ChunkOrder::interleaved, Kokkos::LaunchBounds<512, 2>>("b", p, r, Op{});
  });
}

// A grid-stride loop at 2, 3, 4 and 8 teams per SM, loss and read.
template <class Space>
void register_grids(const std::string& backend, const Shape& s, int sms) {
  for (const int per_sm : {2, 3, 4, 8}) {
    const int league = sms * per_sm;
    add<Space>(backend, "grid_u2_l" + std::to_string(league), s,
               [league](const auto& p, const auto& r) { run_grid_stride<2>("b", p, r, Op{}, league, 256); });
    add<Space>(backend, "grid_u4_l" + std::to_string(league), s,
               [league](const auto& p, const auto& r) { run_grid_stride<4>("b", p, r, Op{}, league, 256); });
    add<Space>(backend, "gridread_u4_l" + std::to_string(league), s,
               [league](const auto& p, const auto& r) { run_grid_stride<4>("b", p, r, ReadOp{}, league, 256); });
  }
}

// The product's grid with other logarithms: CUDA's __logf, the fp32 polynomial, and the fp64
// ones of precision = "exact": klmini's table log as the product runs it (table staged in team
// scratch), gathered from global memory instead, without the regular form, and the math
// library's log.
template <class Space>
void register_grid_logs(const std::string& backend, const Shape& s) {
  add<Space>(backend, "grid_u2_mufu_logf", s, [](const auto& p, const auto& r) {
    run_grid_stride<2>("b", p, r, KlTermMufuLogOp{}, device_league<Space>(), kDeviceTeam);
  });
  add<Space>(backend, "grid_u2_polylog", s, [](const auto& p, const auto& r) {
    run_grid_stride<2>("b", p, r, KlTermPolyLogOp{}, device_league<Space>(), kDeviceTeam);
  });
  add<Space>(backend, "grid_u4_polylog", s, [](const auto& p, const auto& r) {
    run_grid_stride<4>("b", p, r, KlTermPolyLogOp{}, device_league<Space>(), kDeviceTeam);
  });
  const double* table = klmini::variants::exact_log_table_on<typename Space::memory_space>();
  add<Space>(backend, "grid_u2_exact", s,
             [table](const auto& p, const auto& r) { run_product_shape("b", p, r, KlTermExactOp<false>{table}); });
  add<Space>(backend, "grid_u2_exact_global", s, [table](const auto& p, const auto& r) {
    run_grid_stride<2>("b", p, r, KlTermExactGlobalOp{{table}}, device_league<Space>(), kDeviceTeam);
  });
  add<Space>(backend, "grid_u2_exact_general", s, [table](const auto& p, const auto& r) {
    run_grid_stride<2>("b", p, r, KlTermExactGeneralOp{{table}}, device_league<Space>(), kDeviceTeam);
  });
  add<Space>(backend, "grid_u2_libm_fp64", s, [](const auto& p, const auto& r) {
    run_grid_stride<2>("b", p, r, KlTermLibmFp64Op{}, device_league<Space>(), kDeviceTeam);
  });
}

// One team per row in a parallel_for, then a sum of the rows (RowSums); and one team per row
// reducing it (row teams).
template <class Space>
void register_row_sums(const std::string& backend, const Shape& s) {
  for (const int team : {256, 512, 1024}) {
    const std::string t = "_t" + std::to_string(team);
    add<Space>(backend, "rows_u4" + t, s,
               [team](const auto& p, const auto& r) { run_row_sums<4>("b", p, r, Op{}, team); });
    if (team < 1024)  // 8 chunks a step at 1024 threads: too many registers for the launch
      add<Space>(backend, "rows_u8" + t, s,
                 [team](const auto& p, const auto& r) { run_row_sums<8>("b", p, r, Op{}, team); });
  }
  add<Space>(backend, "rowsread_u4_t256", s,
             [](const auto& p, const auto& r) { run_row_sums<4>("b", p, r, ReadOp{}, 256); });
  add<Space>(backend, "rowteam_u2_t128", s,
             [](const auto& p, const auto& r) { run_row_teams<2>("b", p, r, Op{}, 128); });
}

// A persistent grid over contiguous blocks, half and full occupancy, 2, 4 or 8 chunks a step.
template <class Space>
void register_blocks(const std::string& backend, const Shape& s, int sms) {
  for (const int per_sm : {4, 8}) {
    const int league = sms * per_sm;
    const std::string l = "_l" + std::to_string(league);
    add<Space>(backend, "blocks_u2" + l, s,
               [league](const auto& p, const auto& r) { run_grid_blocks<2>("b", p, r, Op{}, league, 256); });
    add<Space>(backend, "blocks_u4" + l, s,
               [league](const auto& p, const auto& r) { run_grid_blocks<4>("b", p, r, Op{}, league, 256); });
    add<Space>(backend, "blocks_u8" + l, s,
               [league](const auto& p, const auto& r) { run_grid_blocks<8>("b", p, r, Op{}, league, 256); });
    add<Space>(backend, "blocksread_u4" + l, s,
               [league](const auto& p, const auto& r) { run_grid_blocks<4>("b", p, r, ReadOp{}, league, 256); });
  }
}

// One team per row, threads side by side, 4 or 8 chunks of each array in flight per thread.
template <class Space>
void register_row_strided(const std::string& backend, const Shape& s) {
  for (const int team : {256, 512, 1024}) {
    const std::string t = "_t" + std::to_string(team);
    add<Space>(backend, "rowstrided_u4" + t, s, [team](const auto& p, const auto& r) {
      run_row_teams<4, ChunkOrder::interleaved>("b", p, r, Op{}, team);
    });
    add<Space>(backend, "rowstrided_u8" + t, s, [team](const auto& p, const auto& r) {
      run_row_teams<8, ChunkOrder::interleaved>("b", p, r, Op{}, team);
    });
    add<Space>(backend, "rowstridedread_u4" + t, s, [team](const auto& p, const auto& r) {
      run_row_teams<4, ChunkOrder::interleaved>("b", p, r, ReadOp{}, team);
    });
    add<Space>(backend, "rowstridedread_u8" + t, s, [team](const auto& p, const auto& r) {
      run_row_teams<8, ChunkOrder::interleaved>("b", p, r, ReadOp{}, team);
    });
  }
}

// The flat chunks as plain reads: the ceiling each unroll depth could reach.
template <class Space>
void register_flat_reads(const std::string& backend, const Shape& s) {
  add<Space>(backend, "read_u1", s, [](const auto& p, const auto& r) { run_flat_chunks<1>("b", p, r, ReadOp{}); });
  add<Space>(backend, "read_u2", s, [](const auto& p, const auto& r) { run_flat_chunks<2>("b", p, r, ReadOp{}); });
  add<Space>(backend, "read_u4", s, [](const auto& p, const auto& r) { run_flat_chunks<4>("b", p, r, ReadOp{}); });
  add<Space>(backend, "read_u8", s, [](const auto& p, const auto& r) { run_flat_chunks<8>("b", p, r, ReadOp{}); });
}

}  // namespace device_shapes

template <class Space>
void register_shapes(const std::string& backend, const std::vector<Shape>& shapes) {
  const int sms = static_cast<int>(Space().concurrency() / 2048);  // 2048 resident threads per SM
  for (const Shape& s : shapes) {
    device_shapes::register_flat_chunks<Space>(backend, s);
    device_shapes::register_grids<Space>(backend, s, sms);
    device_shapes::register_grid_logs<Space>(backend, s);
    device_shapes::register_row_sums<Space>(backend, s);
    device_shapes::register_blocks<Space>(backend, s, sms);
    device_shapes::register_row_strided<Space>(backend, s);
    device_shapes::register_flat_reads<Space>(backend, s);
  }
}

// Where the product switches from the persistent grid to RowSums: both shapes, loss and read.
template <class Space>
void register_row_rule(const std::string& backend, const std::vector<Shape>& shapes) {
  using namespace klmini::variants;
  using Op = KlTermOp<false>;
  for (const Shape& s : shapes) {
    add<Space>(backend, "rule_grid", s, [](const auto& p, const auto& r) {
      run_grid_stride<kDeviceUnroll>("b", p, r, Op{}, device_league<Space>(), kDeviceTeam);
    });
    add<Space>(backend, "rule_rows", s,
               [](const auto& p, const auto& r) { run_row_sums<kRowSumsUnroll>("b", p, r, Op{}, kDeviceTeam); });
    add<Space>(backend, "rule_gridread_quarter", s, [](const auto& p, const auto& r) {
      run_grid_stride<4>("b", p, r, ReadOp{}, quarter_league<Space>(), kDeviceTeam);
    });
    add<Space>(backend, "rule_rowsread", s,
               [](const auto& p, const auto& r) { run_row_sums<kRowSumsUnroll>("b", p, r, ReadOp{}, kDeviceTeam); });
  }
}

// 2-byte inputs: the product's shape and persistent grids of 1, 2 or 4 chunks a step at a
// quarter, half and full occupancy, loss and plain read.
template <class Space>
void register_bf16_shapes(const std::string& backend, const std::vector<Shape>& shapes) {
  using namespace klmini::variants;
  using T = klmini::bf16;
  using Op = KlTermOp<false>;
  const int sms = static_cast<int>(Space().concurrency() / 2048);
  for (const Shape& s : shapes) {
    add<Space, T>(backend, "bf16_fused", s, [](const auto& p, const auto& r) { fused(p, r); });
    add<Space, T>(backend, "bf16_ceiling_read", s, [](const auto& p, const auto& r) { read_ceiling(p, r); });
    add<Space, T>(backend, "bf16_rows_u2_t256", s,
                  [](const auto& p, const auto& r) { run_row_sums<2>("b", p, r, Op{}, 256); });
    for (const int per_sm : {2, 4, 8}) {
      const int league = sms * per_sm;
      const std::string l = "_l" + std::to_string(league);
      add<Space, T>(backend, "bf16_grid_u1" + l, s,
                    [league](const auto& p, const auto& r) { run_grid_stride<1>("b", p, r, Op{}, league, 256); });
      add<Space, T>(backend, "bf16_grid_u2" + l, s,
                    [league](const auto& p, const auto& r) { run_grid_stride<2>("b", p, r, Op{}, league, 256); });
      add<Space, T>(backend, "bf16_grid_u4" + l, s,
                    [league](const auto& p, const auto& r) { run_grid_stride<4>("b", p, r, Op{}, league, 256); });
      add<Space, T>(backend, "bf16_gridread_u4" + l, s,
                    [league](const auto& p, const auto& r) { run_grid_stride<4>("b", p, r, ReadOp{}, league, 256); });
    }
  }
}

// Host shapes of the loss and the read over 512 MiB (more than a last-level cache): whole rows
// (the product's) and rows cut into segments.
template <class Space>
void register_host_shapes(const std::string& backend, const Shape& s) {
  using namespace klmini::variants;
  using Op = KlTermOp<false>;
  add<Space>(backend, "rows", s, [](const auto& p, const auto& r) { run_row_segments("b", p, r, Op{}); });
  add<Space>(backend, "rowsread", s, [](const auto& p, const auto& r) { run_row_segments("b", p, r, ReadOp{}); });
  for (const std::int64_t width : {512, 1024, 2048}) {
    const std::string w = "_w" + std::to_string(width);
    add<Space>(backend, "segments" + w, s,
               [width](const auto& p, const auto& r) { run_row_segments("b", p, r, Op{}, width); });
    add<Space>(backend, "segmentsread" + w, s,
               [width](const auto& p, const auto& r) { run_row_segments("b", p, r, ReadOp{}, width); });
  }
}

// A backend's name in a benchmark's, from the backend table (host/backends.hpp).
template <class Space>
std::string name_of() {
  return std::string(klmini::backend_info<Space>().name);
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  // Provenance in the output's context, as Kokkos' own performance tests record it.
  benchmark::AddCustomContext("klmini_version", KLMINI_VERSION);
  benchmark::AddCustomContext("klmini_git_hash", KLMINI_GIT_HASH);
  benchmark::AddCustomContext("klmini_compiler", KLMINI_COMPILER);
  benchmark::AddCustomContext("klmini_build_type", KLMINI_BUILD_TYPE);
  benchmark::AddCustomContext("klmini_kokkos_version", klmini::kokkos_version());
  benchmark::AddCustomContext("klmini_kokkos_backends", klmini::kokkos_backends());
  const std::string kernels = klmini::kokkos_kernels_version();
  benchmark::AddCustomContext("klmini_kokkos_kernels_version", kernels.empty() ? "none" : kernels);
  std::ostringstream configuration;
  Kokkos::print_configuration(configuration);
  benchmark::AddCustomContext("kokkos_configuration", configuration.str());
#ifdef KOKKOS_ENABLE_CUDA
  const std::vector<Shape> seed = {{16384, 4096}, {16384, 16384}, {16384, 131072}};
  const std::string cuda = name_of<Kokkos::Cuda>();
  register_variants<Kokkos::Cuda>(cuda, seed);
  register_shapes<Kokkos::Cuda>(cuda, seed);
  register_bf16_shapes<Kokkos::Cuda>(cuda, {{16384, 8192}, {16384, 16384}, {16384, 131072}});
  register_row_rule<Kokkos::Cuda>(cuda, {{16384, 8192}, {16384, 32768}, {16384, 65536}});
  register_timing_methods<Kokkos::Cuda>(cuda,
                                        {{16384, 16}, {16384, 256}, {16384, 1024}, {16384, 4096}, {16384, 131072}});
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  const std::string openmp = name_of<Kokkos::OpenMP>();
  register_variants<Kokkos::OpenMP>(openmp, {{1024, 4096}, {256, 32768}});
  register_host_shapes<Kokkos::OpenMP>(openmp, {16384, 4096});
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  register_variants<Kokkos::Serial>(name_of<Kokkos::Serial>(), {{1024, 4096}});
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  release_problems();  // before Kokkos finalizes
  return 0;
}
