// How a run times its kernels, as far as the host side needs to know (the memory estimate
// counts the timer's flush buffer). The timers themselves are in src/core/timer.hpp.
#pragma once

namespace klmini {

// The buffer a device's KernelTimer reads before each timed run: larger than any L2 cache, as
// triton.testing.do_bench's.
inline constexpr double kTimerFlushBytes = 256.0 * 1024 * 1024;

// Whether a run of `ranks` ranks times with the KernelTimer (and so allocates its flush buffer):
// several ranks time on a clock common to them instead (src/run/time_kernel.hpp).
inline bool times_with_kernel_timer(int ranks) { return ranks == 1; }

}  // namespace klmini
