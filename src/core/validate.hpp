// validate = true: before the run, check on the execution space that every row of t is a
// probability distribution (no negative or NaN entry, sum within the tolerance of 1) or, with
// log_target, a row of log-probabilities (logsumexp within the tolerance of 0), and that every
// row of lp is one of log-probabilities. Bad rows are reported by global index.
//
// The tolerance is kRowTolerance plus what rounding into the input dtype can move a row
// (numerics/dtype.hpp's RoundingBounds): u for a sum of probabilities (each within u of itself) plus
// vocab x half a subnormal spacing (entries below the normal range), and u * max|x| for a
// logsumexp (each x within u|x|, so each exp(x) within a factor e^(u|x|)). For fp32 inputs that
// is kRowTolerance; for bf16 lp rows near -11 it is about 0.044, as bf16 itself is that coarse.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/problem.hpp"
#include "host/comm.hpp"
#include "host/errors.hpp"
#include "numerics/math.hpp"

namespace klmini {

inline constexpr double kRowTolerance = 1e-3;

// Per row: [0] what the targets sum to (or their logsumexp), [1] the smallest target,
// [2] logsumexp of lp, [3] how many entries are NaN, [4] max |lp|, [5] max |t|.
template <class Space, class T>
Kokkos::View<double* [6], typename Space::memory_space> row_statistics(const Problem<Space, T>& p) {
  Kokkos::View<double* [6], typename Space::memory_space> stats("klmini::validate", p.tokens);
  const auto lp = p.lp, t = p.t;
  const std::int64_t vocab = p.vocab;
  const bool log_target = p.log_target;
  Kokkos::parallel_for(
      "klmini::validate", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, p.tokens),
      KOKKOS_LAMBDA(const std::int64_t r) {
        double t_max = -1.0e308, lp_max = -1.0e308, t_min = 1.0e308, lp_min = 1.0e308, nans = 0.0;
        for (std::int64_t j = 0; j < vocab; ++j) {
          const double tj = to_float(t(r, j)), lj = to_float(lp(r, j));
          nans += (tj != tj) + (lj != lj);
          t_max = tj > t_max ? tj : t_max;
          t_min = tj < t_min ? tj : t_min;
          lp_max = lj > lp_max ? lj : lp_max;
          lp_min = lj < lp_min ? lj : lp_min;
        }
        double t_acc = 0.0, lp_acc = 0.0;
        for (std::int64_t j = 0; j < vocab; ++j) {
          const double tj = to_float(t(r, j));
          t_acc += log_target ? math::exp(tj - t_max) : tj;
          lp_acc += math::exp(double(to_float(lp(r, j))) - lp_max);
        }
        stats(r, 0) = log_target ? t_max + math::log(t_acc) : t_acc;
        stats(r, 1) = t_min;
        stats(r, 2) = lp_max + math::log(lp_acc);
        stats(r, 3) = nans;
        stats(r, 4) = math::abs(lp_min) > math::abs(lp_max) ? math::abs(lp_min) : math::abs(lp_max);
        stats(r, 5) = math::abs(t_min) > math::abs(t_max) ? math::abs(t_min) : math::abs(t_max);
      });
  return stats;
}

// Throws InputError naming the first bad rows (global indices) when any rank has one.
template <class Space, class T>
void validate_inputs(const Problem<Space, T>& p, std::int64_t row_offset, const Comm& comm) {
  const auto stats = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_statistics(p));
  using Bounds = RoundingBounds<T>;
  const double sum_tolerance = kRowTolerance + Bounds::unit + double(p.vocab) * Bounds::subnormal;
  std::string first;
  std::int64_t bad = 0;
  for (std::int64_t r = 0; r < p.tokens; ++r) {
    char why[200] = "";
    const double lp_tolerance = kRowTolerance + Bounds::unit * stats(r, 4);
    const double t_log_tolerance = kRowTolerance + Bounds::unit * stats(r, 5);
    if (stats(r, 3) > 0) {
      std::snprintf(why, sizeof why, "%.0f NaN entries", stats(r, 3));
    } else if (!p.log_target && stats(r, 1) < 0.0) {
      std::snprintf(why, sizeof why, "a negative target (%.3g)", stats(r, 1));
    } else if (!p.log_target && !(std::fabs(stats(r, 0) - 1.0) <= sum_tolerance)) {
      std::snprintf(why, sizeof why, "targets sum to %.6g, not 1 (tolerance %.3g)", stats(r, 0), sum_tolerance);
    } else if (p.log_target && !(std::fabs(stats(r, 0)) <= t_log_tolerance)) {
      std::snprintf(why, sizeof why, "logsumexp of the log-targets is %.6g, not 0 (tolerance %.3g)", stats(r, 0),
                    t_log_tolerance);
    } else if (!(std::fabs(stats(r, 2)) <= lp_tolerance)) {
      std::snprintf(why, sizeof why, "logsumexp of lp is %.6g, not 0 (tolerance %.3g)", stats(r, 2), lp_tolerance);
    }
    if (why[0] && bad++ < 5)
      first += (first.empty() ? "" : "; ") + std::string("row ") + std::to_string(row_offset + r) + ": " + why;
  }
  const double total_bad = comm.sum(double(bad));
  if (total_bad > 0) {
    throw InputError("validation failed: " + std::to_string(static_cast<std::int64_t>(total_bad)) + " row(s) are not " +
                     (p.log_target ? "log-probability" : "probability") + " rows within " +
                     std::to_string(kRowTolerance) + " plus the input dtype's rounding" +
                     (first.empty() ? " (on other ranks)" : "; first: " + first));
  }
}

}  // namespace klmini
