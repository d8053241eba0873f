// Step two of a run: timing one kernel over its repeats, with every rank in step.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "core/timer.hpp"
#include "host/comm.hpp"
#include "host/errors.hpp"
#include "host/record.hpp"
#include "host/timing.hpp"

namespace klmini {

// Runs `kernel` warmup + repeats times. Each timed run is timed alone after a barrier of all
// ranks; its result is read back after the timer stops; its value is the sum over ranks.
// One rank: KernelTimer (CUDA events on Cuda, fence + wall clock on hosts). Several ranks: each
// reads a clock common to all of them right after the barrier and again after its fence, and the
// run's time is the span from the first rank's start to the last rank's end. Not CUDA events:
// ranks that share a device run their kernels one after another, and each rank's events would
// time only its own. Not each rank's own elapsed time: a rank that gets a core only after others
// have run (more ranks than cores) starts its clock late. The clock is the node's steady clock
// when all ranks share a node, else MPI_Wtime when it is global; with neither, a run's time is the
// slowest rank's own from the barrier (Comm::rank_clock). `local_times` keeps this rank's own
// times (for per-rank bandwidth). The ranks' FixedSums add exactly (Comm::sum), so a host value is
// bitwise the same for any number of ranks.
template <class Space>
TimingStats time_kernel(const std::function<void(const Result<Space>&)>& kernel, int warmup, int repeats,
                        std::vector<double>& values, const Comm& comm, std::vector<double>* local_times = nullptr) {
  const Result<Space> result("klmini::result");
  for (int i = 0; i < warmup; ++i) kernel(result);
  // Built only where it times: its Cuda flush buffer is not allocated for runs of several ranks.
  std::optional<KernelTimer<Space>> timer;
  if (times_with_kernel_timer(comm.size())) timer.emplace();
  const bool one_time_line = comm.rank_clock() != RankClock::per_rank_elapsed;
  std::vector<double> times, mine;
  values.clear();
  for (int i = 0; i < repeats; ++i) {
    poison<Space>(result);
    Space().fence();
    comm.barrier();
    if (timer) {
      timer->start();
      kernel(result);
      const double t = timer->stop();
      mine.push_back(t);
      times.push_back(t);
    } else {
      const double start = comm.now();
      kernel(result);
      Space().fence();
      const double end = comm.now();
      mine.push_back(end - start);
      times.push_back(one_time_line ? comm.max(end) - comm.min(start) : comm.max(end - start));
    }
    const FixedSum local = read_sum<Space>(result);
    if (!comm.all(!is_poison(local) && !local.beyond_range())) {  // one collective on the usual path
      if (!comm.all(!is_poison(local))) throw std::runtime_error("a kernel did not write its result");
      throw DoesNotFit(std::string("a partial sum of the inputs' terms reached 2^") +
                       std::to_string(KernelSum<Space>::kRangeExponent) + ", beyond the range of " + Space::name() +
                       "'s fixed-point sum; the host backends keep partial sums up to 2^" +
                       std::to_string(FixedSum::kRangeExponent));
    }
    values.push_back(comm.sum(local).to_double());
  }
  if (local_times) *local_times = mine;
  TimingStats stats = summarize(times);
  stats.uncovered = timer ? timer->uncovered() : 0;
  return stats;
}

inline bool bitwise_equal(const std::vector<double>& v) {
  for (const double x : v)
    if (std::memcmp(&x, &v.front(), sizeof x) != 0) return false;
  return true;
}

}  // namespace klmini
