// Google Benchmark of the kernel variants and the read ceiling on every compiled-in backend,
// plus, on Cuda, the launch shapes the fused kernel was tuned over. Each iteration is timed
// with klmini's KernelTimer (CUDA events on Cuda), so the numbers compare with klmini's report
// and with the peers. Bytes processed = both inputs read once.
//   build/host/bin/klmini_bench [--benchmark_filter=...]
#include <Kokkos_Core.hpp>

#include <benchmark/benchmark.h>

#include <functional>
#include <memory>

#include "backends.hpp"
#include "runner.hpp"

namespace {

using Shape = std::pair<std::int64_t, std::int64_t>;  // tokens x vocab

template <class Space>
using Kernel = std::function<void(const klmini::Problem<Space>&, const klmini::Result<Space>&)>;

// The problem of the last registered shape is kept alive between benchmarks of that shape.
template <class Space>
const klmini::Problem<Space>& problem_for(const Shape& shape) {
  static std::unique_ptr<klmini::Problem<Space>> cached;
  static Shape cached_shape{0, 0};
  if (!cached || cached_shape != shape) {
    cached.reset();
    klmini::Config c;
    c.tokens = shape.first;
    c.vocab = shape.second;
    cached = std::make_unique<klmini::Problem<Space>>(klmini::make_problem<Space>(c, 0, c.tokens));
    cached_shape = shape;
  }
  return *cached;
}

template <class Space>
void add(const std::string& backend, const std::string& name, const Shape& shape, Kernel<Space> kernel) {
  const std::string label =
      backend + "/" + name + "/" + std::to_string(shape.first) + "x" + std::to_string(shape.second);
  benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& state) {
    const auto& p = problem_for<Space>(shape);
    const klmini::Result<Space> result("bench::result");
    kernel(p, result);  // warm up
    klmini::KernelTimer<Space> timer;
    for (auto _ : state) {
      timer.start();
      kernel(p, result);
      state.SetIterationTime(timer.stop());
    }
    const double bytes = 2.0 * double(shape.first) * double(shape.second) * sizeof(float);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["TBps"] = benchmark::Counter(bytes * 1e-12 * double(state.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Unit(benchmark::kMicrosecond);
}

template <class Space>
void register_variants(const std::string& backend, const std::vector<Shape>& shapes) {
  for (const Shape& shape : shapes) {
    add<Space>(backend, "ceiling_read", shape, [](const auto& p, const auto& r) { klmini::variants::read_ceiling(p, r); });
    for (auto v : klmini::kVariantNames) {
      const std::string name(v);
      if (!klmini::variants::compiled_in(name)) continue;
      add<Space>(backend, name, shape, [name](const auto& p, const auto& r) { klmini::variants::run_variant(name, p, r); });
    }
  }
}

// Launch shapes of the fused kernel on a device: flat chunks with unroll depths and launch
// bounds, and one team per row with several team sizes.
template <class Space>
void register_shapes(const std::string& backend, const std::vector<Shape>& shapes) {
  using namespace klmini::variants;
  using Op = KlTermOp<false>;
  for (const Shape& s : shapes) {
    add<Space>(backend, "chunks_u1", s, [](const auto& p, const auto& r) { run_flat_chunks<Op, 1>("b", p, r); });
    add<Space>(backend, "chunks_u2", s, [](const auto& p, const auto& r) { run_flat_chunks<Op, 2>("b", p, r); });
    add<Space>(backend, "chunks_u4", s, [](const auto& p, const auto& r) { run_flat_chunks<Op, 4>("b", p, r); });
    add<Space>(backend, "chunks_u2_lb256x8", s, [](const auto& p, const auto& r) {
      run_flat_chunks<Op, 2, Kokkos::LaunchBounds<256, 8>>("b", p, r);
    });
    add<Space>(backend, "chunks_u4_lb256x4", s, [](const auto& p, const auto& r) {
      run_flat_chunks<Op, 4, Kokkos::LaunchBounds<256, 4>>("b", p, r);
    });
    add<Space>(backend, "chunks_u2_lb512x4", s, [](const auto& p, const auto& r) {
      run_flat_chunks<Op, 2, Kokkos::LaunchBounds<512, 4>>("b", p, r);
    });
    add<Space>(backend, "chunks_u1_lb1024x2", s, [](const auto& p, const auto& r) {
      run_flat_chunks<Op, 1, Kokkos::LaunchBounds<1024, 2>>("b", p, r);
    });
    for (const int team : {128, 256, 512, 1024}) {
      add<Space>(backend, "rowteam_u1_t" + std::to_string(team), s,
                 [team](const auto& p, const auto& r) { run_row_teams<Op, 1>("b", p, r, team); });
      add<Space>(backend, "rowteam_u2_t" + std::to_string(team), s,
                 [team](const auto& p, const auto& r) { run_row_teams<Op, 2>("b", p, r, team); });
    }
    add<Space>(backend, "ceiling_u4", s, [](const auto& p, const auto& r) { run_flat_chunks<ReadOp, 4>("b", p, r); });
    add<Space>(backend, "ceiling_rowteam_u2_t256", s,
               [](const auto& p, const auto& r) { run_row_teams<ReadOp, 2>("b", p, r, 256); });
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("klmini_kokkos_version", klmini::kokkos_version());
  benchmark::AddCustomContext("klmini_kokkos_backends", klmini::kokkos_backends());
#ifdef KOKKOS_ENABLE_CUDA
  const std::vector<Shape> seed = {{16384, 4096}, {16384, 16384}, {16384, 131072}};
  register_variants<Kokkos::Cuda>("cuda", seed);
  register_shapes<Kokkos::Cuda>("cuda", seed);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  register_variants<Kokkos::OpenMP>("openmp", {{1024, 4096}, {256, 32768}});
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  register_variants<Kokkos::Serial>("serial", {{1024, 4096}});
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
