// Google Benchmark of the kernel variants and the read ceiling on every compiled-in backend,
// at a few sizes (tokens x vocab). Bytes processed = both inputs read once, so the GB/s column
// compares directly with klmini's report. Run: build/host/bin/klmini_bench [--benchmark_filter=...]
#include <Kokkos_Core.hpp>

#include <benchmark/benchmark.h>

#include "backends.hpp"
#include "runner.hpp"

namespace {

template <class Space>
klmini::Problem<Space> bench_problem(std::int64_t tokens, std::int64_t vocab) {
  klmini::Config c;
  c.tokens = tokens;
  c.vocab = vocab;
  return klmini::make_problem<Space>(c, 0, tokens);
}

// Device spaces: the fused kernel's unroll depth, for tuning kDeviceUnroll.
template <class Space, int Unroll>
void register_unroll(const char* backend, std::int64_t tokens, std::int64_t vocab) {
  const std::string label = std::string(backend) + "/fused_unroll" + std::to_string(Unroll) + "/" +
                            std::to_string(tokens) + "x" + std::to_string(vocab);
  benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& state) {
    const auto p = bench_problem<Space>(tokens, vocab);
    double sink = 0.0;
    for (auto _ : state) {
      sink += klmini::variants::fused_chunks<Unroll>(p);
      Space().fence();
    }
    benchmark::DoNotOptimize(sink);
    state.SetBytesProcessed(state.iterations() * 2 * tokens * vocab * std::int64_t(sizeof(float)));
  })->UseRealTime()->Unit(benchmark::kMillisecond);
}

template <class Space>
void register_space(const char* backend) {
  for (const auto& shape : std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 4096}, {256, 32768}}) {
    const std::int64_t tokens = shape.first, vocab = shape.second;  // lambdas cannot capture bindings in C++17
    std::vector<std::string> names = {"ceiling_read"};
    for (auto v : klmini::kVariantNames)
      if (klmini::variants::compiled_in(std::string(v))) names.emplace_back(v);
    for (const std::string& name : names) {
      const std::string label = std::string(backend) + "/" + name + "/" + std::to_string(tokens) + "x" + std::to_string(vocab);
      benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& state) {
        const auto p = bench_problem<Space>(tokens, vocab);
        double sink = 0.0;
        for (auto _ : state) {
          sink += name == "ceiling_read" ? klmini::variants::read_ceiling(p) : klmini::variants::run_variant(name, p);
          Space().fence();
        }
        benchmark::DoNotOptimize(sink);
        state.SetBytesProcessed(state.iterations() * 2 * tokens * vocab * std::int64_t(sizeof(float)));
        state.counters["tokens"] = double(tokens);
        state.counters["vocab"] = double(vocab);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("klmini_kokkos_version", klmini::kokkos_version());
  benchmark::AddCustomContext("klmini_kokkos_backends", klmini::kokkos_backends());
#ifdef KOKKOS_ENABLE_CUDA
  register_space<Kokkos::Cuda>("cuda");
  for (const std::int64_t vocab : {4096, 32768, 131072}) {
    register_unroll<Kokkos::Cuda, 1>("cuda", 16384, vocab);
    register_unroll<Kokkos::Cuda, 2>("cuda", 16384, vocab);
    register_unroll<Kokkos::Cuda, 4>("cuda", 16384, vocab);
    register_unroll<Kokkos::Cuda, 8>("cuda", 16384, vocab);
  }
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  register_space<Kokkos::OpenMP>("openmp");
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  register_space<Kokkos::Serial>("serial");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
