// The run on one execution space, in four steps: set up this rank's problem (run/setup.hpp),
// time the ceilings and every planned kernel (run/plan.hpp, run/time_kernel.hpp), check each
// against the fp64 host reference (run/check.hpp), write the matrices the deck asks for.
// Templated on the space; src/run/backends.cpp instantiates it for each space compiled in
// (core/backend_spaces.hpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend_spaces.hpp"
#include "core/build_info.hpp"
#include "core/region.hpp"
#include "core/validate.hpp"
#include "host/comm.hpp"
#include "host/config.hpp"
#include "host/errors.hpp"
#include "host/limits.hpp"
#include "host/npy.hpp"
#include "host/placement.hpp"
#include "host/record.hpp"
#include "host/timed_variants.hpp"
#include "host/variants.hpp"
#include "kernels/probes/ceiling.hpp"
#include "run/check.hpp"
#include "run/plan.hpp"
#include "run/setup.hpp"
#include "run/time_kernel.hpp"

namespace klmini {

template <class Space>
Record record_header(const Config& c) {  // what a Record knows before anything runs
  const BackendInfo& backend = backend_info<Space>();
  Record rec;
  rec.config = c;
  rec.backend = backend.id;
  rec.execution_space = std::string(backend.execution_space);
  rec.fixed_units = kFixedUnits<Space>;
  rec.concurrency = static_cast<int>(Space().concurrency());
  if (backend.binds_threads) rec.thread_binding = thread_binding();
  rec.input_bytes = 2.0 * double(c.elements()) * double(element_bytes(c.dtype));
  if (is_host_space<Space>()) rec.last_level_cache_bytes = last_level_cache_bytes();
  rec.kokkos_version = kokkos_version();
  rec.kokkos_backends = compiled_backends();
  rec.kokkos_kernels_version = kokkos_kernels_version();
  rec.left_out = left_out_variants(c);
  return rec;
}

// Refuses, before anything is allocated, a run that would not fit: this rank's need against its
// space's and the host's free memory, and the need of each node's ranks together against what
// the node has. Collective: every rank refuses together (fail_together).
template <class Space>
void check_fits(const Config& c, const MemoryNeed& need, const Comm& comm) {
  const HostMemory host = host_available_memory();
  const double node_need = comm.node_sum(host_bytes_on_node(need, is_host_space<Space>()));
  std::string refusal;
  try {
    check_memory(need, is_host_space<Space>(), Space::memory_space::name(), space_available_bytes<Space>(), host, c);
    if (comm.node_size() > 1) check_node_memory(node_need, comm.node_size(), host, c);
  } catch (const DoesNotFit& e) {
    refusal = e.what();
  }
  fail_together(comm, refusal);
}

// This rank's problem (run/setup.hpp); an input error on any rank (a .npy file that cannot be
// read, an array that cannot be allocated) ends every rank together, each with its own exit.
template <class Space, class T>
Problem<Space, T> make_problem_together(const Config& c, const RowRange& mine, const Comm& comm) {
  std::optional<Problem<Space, T>> p;
  std::string error;
  try {
    p.emplace(make_problem<Space, T>(c, mine.begin, mine.count, comm.root()));
  } catch (const InputError& e) {
    error = e.what();
  }
  fail_together(comm, error);
  return std::move(*p);
}

template <class Space>
Outputs<Space> allocate_outputs(const Config& c, std::int64_t rows) {
  using Matrix = typename Outputs<Space>::Matrix;
  Outputs<Space> out;
  if (c.reduction == Reduction::none) out.terms = allocate_matrix<Matrix>("klmini::terms", rows, c.vocab);
  if (c.gradient) out.grad = allocate_matrix<Matrix>("klmini::grad", rows, c.vocab);
  out.grad_scale = static_cast<float>(reduction_scale(c.reduction, c.tokens, c.vocab));
  return out;
}

// Times every candidate shape of a ceiling over `bytes`; the fastest is the ceiling.
template <class Space>
CeilingResult time_fastest(const std::vector<variants::CeilingShape<Space>>& shapes, double bytes, const Config& c,
                           const Comm& comm) {
  std::vector<double> values;
  CeilingResult best;
  for (const auto& shape : shapes) {
    const TimingStats t = time_kernel<Space>(shape.run, c.warmup, c.repeats, values, comm);
    best.candidates.push_back({shape.name, t, bytes / t.median_s * 1e-9});
    if (best.shape.empty() || t.median_s < best.time.median_s) {
      best.time = t;
      best.GBps = best.candidates.back().GBps;
      best.shape = shape.name;
    }
  }
  return best;
}

// The read ceiling, and the copy ceiling when a kernel writes a matrix (into whichever output
// exists; the kernels overwrite it later).
template <class Space, class T>
void time_ceilings(const Config& c, const Problem<Space, T>& p, const Outputs<Space>& out, const Comm& comm,
                   Record& rec) {
  rec.read_ceiling = time_fastest<Space>(variants::read_ceiling_shapes(p), rec.input_bytes, c, comm);
  if (c.reduction != Reduction::none && !c.gradient) return;
  const auto& target = c.gradient ? out.grad : out.terms;
  const double copy_bytes = double(c.elements()) * (2.0 * double(sizeof(T)) + 4.0);
  rec.copy_ceiling = time_fastest<Space>(variants::copy_ceiling_shapes(p, target), copy_bytes, c, comm);
}

// Runs in a shape trial, after one warm-up: enough for a stable median on a GPU, short beside
// the timed repeats.
inline constexpr int kShapeTrialRepeats = 5;

// fused's launch shape: the deck's, or the fastest of its candidates by a short trial of fused
// itself (the read ceiling's winner need not be the fastest once the terms' math is added).
// Every rank reaches the same choice: a trial's time is the ranks' common one (time_kernel).
template <class Space, class T>
void choose_fused_shape(const Config& c, const Problem<Space, T>& p, const Comm& comm, Record& rec) {
  const std::vector<LaunchShape> candidates = variants::fused_shape_candidates(p);
  if (c.shape != LaunchShape::automatic) {
    if (std::find(candidates.begin(), candidates.end(), c.shape) == candidates.end()) {
      std::string names;
      for (const LaunchShape s : candidates) names += (names.empty() ? "" : "|") + std::string(shape_name(s));
      throw DeckError(c.source, "shape",
                      "'" + std::string(shape_name(c.shape)) + "' does not apply to this run on " +
                          backend_name(rec.backend) + " (its shapes: auto|" + names + ")");
    }
    rec.fused_shape = c.shape;
    rec.fused_shape_choice = ShapeChoice::deck;
    return;
  }
  rec.fused_shape = candidates.front();
  rec.fused_shape_choice = ShapeChoice::only;
  if (candidates.size() < 2) return;
  std::vector<double> values;
  for (const LaunchShape shape : candidates) {
    const auto run = [&p, shape](const Result<Space>& r) { variants::fused(p, r, shape); };
    rec.fused_shape_trials.push_back({shape, time_kernel<Space>(run, 1, kShapeTrialRepeats, values, comm).median_s});
  }
  rec.fused_shape = fastest_shape(rec.fused_shape_trials);
  rec.fused_shape_choice = ShapeChoice::trial;
}

// What timing and checking a kernel needs of the run around it: set up once, shared by every
// planned kernel.
template <class Space, class T>
struct KernelBench {
  const Config& config;
  const Outputs<Space>& outputs;
  const Checker<Space, T>& checker;
  const RowRange& rows;  // this rank's
  const Comm& comm;
  const Record& record;  // its ceilings, which the kernel's rate is a fraction of
};

// Times one planned kernel and checks what it computed.
template <class Space, class T>
VariantResult time_and_check(const PlannedKernel<Space>& k, const KernelBench<Space, T>& bench) {
  const auto& [c, out, checker, mine, comm, rec] = bench;  // in the order of KernelBench
  const VariantInfo& info = *k.variant;
  VariantResult v;
  v.variant = info.id;
  v.ceiling = info.ceiling;
  // Poison: an element a kernel does not write fails verification.
  constexpr float kPoison = -7.77e33f;
  if (info.computes == Computes::terms_matrix) poison<Space>(out.terms, kPoison, "klmini::poison_terms");
  if (info.computes == Computes::loss_and_gradient || info.computes == Computes::gradient)
    poison<Space>(out.grad, kPoison, "klmini::poison_grad");
  std::vector<double> values, local_times;
  {
    const Region region("klmini::time");
    v.time = time_kernel<Space>(k.kernel, c.warmup, c.repeats, values, comm, &local_times);
  }
  v.sum = values.back();
  v.loss = info.computes == Computes::gradient ? 0.0 : v.sum * reduction_scale(c.reduction, c.tokens, c.vocab);
  v.reproducible = bitwise_equal(values);
  const double per_element = bytes_per_element(info, double(sizeof(T)));
  v.bytes = per_element * double(c.elements());
  v.GBps = v.bytes / v.time.median_s * 1e-9;
  v.fraction_of_ceiling = v.GBps / rec.ceiling(info.ceiling).GBps;
  v.rank_GBps =
      comm.gather(per_element * double(mine.count) * double(c.vocab) / summarize(local_times).median_s * 1e-9);
  if (c.verify != VerifyMode::off) {
    const Region region("klmini::verify");
    v.verification = checker.check(info, v.sum, out);
  }
  return v;
}

// The term matrix and the gradient, where the deck names a file for them.
template <class Space>
void write_outputs(const Config& c, const Outputs<Space>& out, const RowRange& mine, const Comm& comm, Record& rec) {
  if (c.gradient && !c.grad_output.empty()) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.grad);
    write_npy_f32_collective(c.grad_output, c.tokens, c.vocab, mine.begin, mine.count, host.data(), comm);
    rec.grad_written = c.grad_output;
  }
  if (c.reduction == Reduction::none && !c.output.empty()) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.terms);
    write_npy_f32_collective(c.output, c.tokens, c.vocab, mine.begin, mine.count, host.data(), comm);
    rec.output_written = c.output;
  }
}

// The whole run on elements of type T. `announce` is called once the summary can be printed
// (before the timing).
template <class Space, class T>
Record run_typed(const Config& c, const std::function<void(const Record&)>& announce) {
  const Comm& comm = Comm::world();
  const RowRange mine = rows_of_rank(c.tokens, comm.rank(), comm.size());
  Record rec = record_header<Space>(c);
  rec.ranks = comm.size();
  rec.rank_clock = comm.rank_clock();
  // A host space's concurrency is its threads on the cores; a device's rank drives it from one.
  rec.placements = gather_placements(comm, is_host_space<Space>() ? rec.concurrency : 1, space_gpu<Space>());
  const Oversubscription over = find_oversubscription(rec.placements);
  rec.oversubscribed = over.oversubscribed;
  rec.oversubscription = over.message;
  const std::vector<Variant> timed = timed_variants(c);
  const MemoryNeed need = estimate_memory(c, mine.count, comm.size(), is_host_space<Space>(), timed);
  rec.space_bytes = need.space_bytes;
  rec.host_bytes = need.host_bytes;
  if (announce && comm.root()) announce(rec);

  check_output(c);
  check_fits<Space>(c, need, comm);
  check_sum_units(mine.count, max_units_per_row<Space>(c.vocab), FixedSum::kMaxValues, Space::name());
  const Region run_region("klmini::run");
  std::optional<Region> phase(std::in_place, "klmini::setup");
  Kokkos::Timer setup;
  const Problem<Space, T> p = make_problem_together<Space, T>(c, mine, comm);
  rec.setup_s = comm.max(setup.seconds());
  if (c.validate) {
    phase.emplace("klmini::validate");
    validate_inputs(p, mine.begin, comm);
  }
  const Outputs<Space> out = allocate_outputs<Space>(c, mine.count);

  phase.emplace("klmini::ceilings");
  time_ceilings(c, p, out, comm, rec);
  if (std::find(timed.begin(), timed.end(), Variant::fused) != timed.end()) {
    phase.emplace("klmini::shape_trial");
    choose_fused_shape(c, p, comm, rec);
  }
  const std::vector<PlannedKernel<Space>> plan = make_plan(timed, p, out, rec.fused_shape);
  phase.emplace("klmini::reference");
  const Checker<Space, T> checker(c, p, mine, comm);
  rec.reference_s = checker.reference_seconds();
  const KernelBench<Space, T> bench{c, out, checker, mine, comm, rec};
  for (const PlannedKernel<Space>& k : plan) {
    phase.emplace("klmini::variant::" + std::string(k.variant->name));
    rec.results.push_back(time_and_check(k, bench));
  }
  rec.loss = rec.results.front().loss;
  phase.emplace("klmini::output");
  write_outputs(c, out, mine, comm, rec);
  return rec;
}

// The whole run: `c.precision` is resolved (not backend_default); the element type is c.dtype.
template <class Space>
Record run_problem(const Config& c, const std::function<void(const Record&)>& announce) {
  switch (c.dtype) {
    case DType::bf16: return run_typed<Space, bf16>(c, announce);
    case DType::fp16: return run_typed<Space, fp16>(c, announce);
    case DType::fp32: break;
  }
  return run_typed<Space, float>(c, announce);
}

}  // namespace klmini
