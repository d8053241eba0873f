// What a run will allocate, estimated before anything is allocated, so that a run that cannot
// fit stops with a message instead of an out-of-memory kill or a Kokkos abort. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace klmini {

// The buffer a device's KernelTimer reads before each timed run (timer.hpp): larger than any
// L2 cache, as triton.testing.do_bench's.
inline constexpr double kTimerFlushBytes = 256.0 * 1024 * 1024;
// Whether a run of `ranks` ranks times with the KernelTimer (and so allocates its flush buffer):
// several ranks time by wall clock from a common barrier instead (runner.hpp, time_kernel).
inline bool times_with_kernel_timer(int ranks) { return ranks == 1; }

struct MemoryNeed {
  double space_bytes = 0.0;  // in the execution space's memory
  double host_bytes = 0.0;   // extra host memory (copies for the reference, output, file input)
};

// For this rank's `rows` of the deck, one of `ranks`, on a space whose memory is (or is not)
// host memory, timing the loss variants `loss_variants` (variants::loss_variants).
MemoryNeed estimate_memory(const Config& c, std::int64_t rows, int ranks, bool host_memory,
                           const std::vector<std::string>& loss_variants);

// Bytes the kernel says the host can still give (MemAvailable), or -1 when unknown.
std::int64_t host_available_bytes();

// Throws DoesNotFit when `need` exceeds what is available (a negative availability is unknown
// and not checked). `space_name` and `space_available` describe the execution space's memory.
void check_memory(const MemoryNeed& need, bool host_memory, const std::string& space_name,
                  std::int64_t space_available, std::int64_t host_available, const Config& c);

// An output file that exists is an error unless the deck says overwrite = true.
void check_output(const Config& c);

}  // namespace klmini
