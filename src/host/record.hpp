// Everything one run measured: filled by the runner, printed by the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/backends.hpp"
#include "host/comm.hpp"
#include "host/config.hpp"
#include "host/placement.hpp"
#include "host/timed_variants.hpp"
#include "host/variants.hpp"
#include "host/verify.hpp"

namespace klmini {

struct TimingStats {
  double median_s = 0.0, min_s = 0.0, max_s = 0.0;
  int uncovered = 0;  // timed runs whose host-side launch may be in the time (KernelTimer::uncovered)
};

// Median, minimum and maximum of a list of times (median of an even count: mean of the middle two).
TimingStats summarize(std::vector<double> times_s);

struct VariantResult {
  Variant variant = Variant::fused;
  TimingStats time;
  double bytes = 0.0;                // bytes that must cross memory once per run
  double GBps = 0.0;                 // bytes / median time
  double fraction_of_ceiling = 0.0;  // of the ceiling named below
  Ceiling ceiling = Ceiling::read;   // the probe its rate is divided by (host/variants.hpp)
  double sum = 0.0;                  // unscaled fp64 sum of terms (this rank's)
  double loss = 0.0;                 // scaled by the reduction
  bool reproducible = true;          // every timed repeat gave the bitwise same sum
  std::vector<double> rank_GBps;     // each rank's own bytes / its own median time (rank 0's view)
  Verification verification;
};

// A bandwidth probe (kernels/probes/ceiling.hpp): the fastest of its candidate launch shapes.
struct CeilingCandidate {
  std::string shape;
  TimingStats time;
  double GBps = 0.0;
};
struct CeilingResult {
  TimingStats time;  // the fastest candidate's
  double GBps = 0.0;
  std::string shape;  // the fastest candidate's name
  std::vector<CeilingCandidate> candidates;
  bool timed() const { return time.median_s > 0.0; }
};

struct Record {
  Config config;
  Backend backend{};            // the one it ran on
  std::string execution_space;  // Kokkos's name for it
  // Whether each unit its kernels add into their order-independent sum is a fixed piece of the
  // data, whatever the launch shape (kFixedUnits, core/problem.hpp).
  bool fixed_units = true;
  int concurrency = 0;  // threads (host) or concurrent threads (device), per rank
  int ranks = 1;        // MPI ranks, each with its share of the tokens
  // How several ranks' timed runs are put on one time line (src/run/time_kernel.hpp).
  RankClock rank_clock = RankClock::own_timer;
  std::vector<RankPlacement> placements;  // every rank's node, CPUs and GPU (rank 0's view: all)
  bool oversubscribed = false;            // more threads than CPUs somewhere (host/placement.hpp)
  std::string oversubscription;           // what is oversubscribed; empty when nothing is
  std::string thread_binding;             // an OpenMP backend's OMP_PROC_BIND/OMP_PLACES (thread_binding())
  std::string kokkos_version;
  std::vector<Backend> kokkos_backends;      // this build's (those enabled in its Kokkos), best first
  std::string kokkos_kernels_version;        // "" when the build has no Kokkos Kernels
  double input_bytes = 0.0;                  // 2 * tokens * vocab * sizeof(float)
  std::int64_t last_level_cache_bytes = -1;  // host spaces: the CPUs' last-level cache (-1: unknown)
  // Whether the inputs fit in the host's last-level cache: then every GB/s is the cache's.
  bool inputs_fit_in_cache() const {
    return last_level_cache_bytes > 0 && input_bytes <= double(last_level_cache_bytes);
  }
  double space_bytes = 0.0;    // memory estimate of rank 0: in the execution space
  double host_bytes = 0.0;     // and extra host memory (verification blocks, I/O copies)
  double setup_s = 0.0;        // allocation + generation or file reading
  double reference_s = 0.0;    // fp64 host reference
  CeilingResult read_ceiling;  // both inputs read once, over the same bytes as the loss variants
  CeilingResult copy_ceiling;  // also one fp32 matrix written (timed only when a kernel writes one)
  const CeilingResult& ceiling(Ceiling c) const { return c == Ceiling::copy ? copy_ceiling : read_ceiling; }
  // fused's launch shape and how it was chosen (automatic: fused did not run); with
  // ShapeChoice::trial, each candidate's median over its trial runs.
  LaunchShape fused_shape = LaunchShape::automatic;
  ShapeChoice fused_shape_choice = ShapeChoice::only;
  std::vector<ShapeTrial> fused_shape_trials;
  std::vector<VariantResult> results;
  std::vector<LeftOutVariant> left_out;  // variant = "all": the loss variants not run
  double loss = 0.0;                     // the product variant's (first in results)
  std::string output_written;            // path of the `none` matrix, if written
  std::string grad_written;              // path of the gradient, if written
  bool verification_failed() const;
  double worst_relative_error() const;
};

}  // namespace klmini
