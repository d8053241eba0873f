// Where the ranks run: their threads against the CPUs their affinity masks allow, per node.
// More threads than CPUs means time-sharing: the run's times and GB/s then measure the
// scheduler, not the hardware, and the report says so. Host-only, no Kokkos.
#pragma once

#include <string>
#include <vector>

#include "host/comm.hpp"

namespace klmini {

// The GPU a rank computes on: its number among the GPUs the rank sees, and how many it sees.
struct RankGpu {
  int id = -1;  // -1: none (a host backend)
  int visible = 0;
};

struct RankPlacement {
  int rank = 0;
  int node = 0;           // the same for every rank of one node (Comm::node())
  std::string host;       // the node's name, for the message
  int threads = 1;        // threads the rank computes with
  std::vector<int> cpus;  // the CPU ids of its affinity mask, as the rank reads it; empty when unknown
  int local_rank = 0;     // among the ranks of its node (Comm::node_rank())
  RankGpu gpu;
};

struct Oversubscription {
  bool oversubscribed = false;
  std::string message;  // what is oversubscribed, empty when nothing is
};

// Oversubscribed when a rank runs more threads than its own mask has CPUs, or when the ranks
// of a node run more threads in all than the union of their masks has CPUs (ranks bound to
// the same core). A rank whose mask is unknown counts in neither.
Oversubscription find_oversubscription(const std::vector<RankPlacement>& ranks);

// The CPUs this process may run on (sched_getaffinity), ascending; empty when unknown.
std::vector<int> affinity_cpus();

// Collective: every rank's placement, with `threads` threads and `gpu`, gathered on rank 0; the
// other ranks get only their own (so that find_oversubscription judges only themselves there).
std::vector<RankPlacement> gather_placements(const Comm& comm, int threads, RankGpu gpu = {});

// A CPU list the way Linux writes one (Cpus_allowed_list): "0-3,8,10-11"; "?" when empty.
std::string cpu_list_text(const std::vector<int>& cpus);

// The report's line for a rank: its node, local rank, threads and CPUs, and its GPU against the
// rule that gives each rank one: the GPU numbered by its local rank modulo the GPUs it sees
// (Kokkos' --kokkos-map-device-id-by=mpi_rank; with Slurm's --gpus-per-task each rank sees one).
std::string placement_text(const RankPlacement& r);

// Thread binding. GNU's and LLVM's OpenMP runtimes read OMP_PROC_BIND and OMP_PLACES once, as
// the library loads, so a binding reaches a process only through its environment at start: when
// neither is set, `openmp` (the build has Kokkos' OpenMP backend), no MPI launcher started the
// process (launchers bind ranks, and ranks may share a mask) and KLMINI_BIND_THREADS is not 0,
// the process starts itself again, once, with OMP_PROC_BIND=spread and OMP_PLACES=threads: each
// thread on its own hardware thread of the CPUs it may use. Called first in main; returns when
// nothing needed doing or the new start failed (the run then goes on unbound).
void restart_with_thread_binding(char** argv, bool openmp);

// The binding the run's OpenMP threads were given, for the report: "OMP_PROC_BIND=spread
// OMP_PLACES=threads (set by klmini)", "OMP_PROC_BIND=close (given)", or "none (OMP_PROC_BIND
// not set)".
std::string thread_binding();

}  // namespace klmini
