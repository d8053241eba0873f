// What a run will allocate, estimated before anything is allocated, so that a run that cannot
// fit stops with a message instead of an out-of-memory kill or a Kokkos abort. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/config.hpp"
#include "host/timing.hpp"
#include "host/variants.hpp"

namespace klmini {

// Verification reads the matrices in blocks of about this many bytes per matrix
// (src/run/row_blocks.hpp): at most three matrices at once, each with two staging blocks and
// one fp32 block, so its host memory is a fixed amount however large the deck.
inline constexpr std::int64_t kRowBlockBytes = std::int64_t(32) << 20;
inline constexpr double kVerificationBlocks = 3.0 * 3.0;

struct MemoryNeed {
  double space_bytes = 0.0;  // in the execution space's memory
  double host_bytes = 0.0;   // extra host memory (copies for the reference, output, file input)
};

// For this rank's `rows` of the deck, one of `ranks`, on a space whose memory is (or is not)
// host memory, timing `timed` (timed_variants).
MemoryNeed estimate_memory(const Config& c, std::int64_t rows, int ranks, bool host_memory,
                           const std::vector<Variant>& timed);

// Host memory this process can still allocate, and what sets that amount.
struct HostMemory {
  std::int64_t bytes = -1;  // -1: unknown
  std::string limit;        // "MemAvailable", "the cgroup memory limit of /slurm/job_7", "ulimit -v"
};

// The least of: the kernel's MemAvailable; for this process's cgroup and each of its ancestors
// (cgroup v2 memory.max, v1 memory.limit_in_bytes), the limit less the memory in use (less the
// inactive file cache, which the kernel reclaims before it kills); the address-space limit
// (ulimit -v) less the process's virtual size. `root` prefixes every file read (tests).
HostMemory host_available_memory(const std::string& root = "");

// Throws DoesNotFit when `need` exceeds what is available (a negative availability is unknown
// and not checked). `space_name` and `space_available` describe the execution space's memory.
void check_memory(const MemoryNeed& need, bool host_memory, const std::string& space_name, std::int64_t space_available,
                  const HostMemory& host, const Config& c);

// Throws DoesNotFit when the `ranks_on_node` ranks of one node need more host memory together,
// `node_host_bytes` (Comm::node_sum of each rank's host_bytes_on_node), than `host` says is
// available: each rank's share may fit alone, but the node's memory and a job's cgroup are
// shared by all of them.
void check_node_memory(double node_host_bytes, int ranks_on_node, const HostMemory& host, const Config& c);

// The host memory a rank's need takes from its node: all of it when the space is host memory,
// else only its host part.
double host_bytes_on_node(const MemoryNeed& need, bool host_memory);

// The last-level cache of this machine's CPUs in bytes: the size of the highest cache level
// summed over its distinct instances (sockets, or AMD's core complexes), from sysfs; -1 when
// sysfs does not say. Inputs that fit in it are read at the cache's speed, not memory's.
std::int64_t last_level_cache_bytes(const std::string& root = "");

// Throws DoesNotFit when this rank's kernels could add more than `max_units` values into one
// kernel sum (a fixed-point sum's words are exact up to that many: numerics/digit_sum.hpp): at
// most `units_per_row` values for each of its `rows` rows. The message says how many rows a
// rank may hold, so that more ranks fix it.
void check_sum_units(std::int64_t rows, std::int64_t units_per_row, std::int64_t max_units,
                     const std::string& space_name);

// An output file that exists is an error unless the deck says overwrite = true.
void check_output(const Config& c);

}  // namespace klmini
