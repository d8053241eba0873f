// The ranks of a run. With MPI (KLMINI_HAVE_MPI) the world communicator, otherwise a single
// rank: the runner is written once against this interface. Host-only, no Kokkos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace klmini {

// numerics/fixed_sum.hpp, not included here: a Kokkos translation unit includes this header
// before Kokkos, and the numerics headers must see Kokkos' macros first.
struct FixedSum;

// MPI's lifetime: initialized before Kokkos and finalized after it (construct this first in main).
// MPI is initialized when mpi_wanted(): the environment shows an MPI launcher, or
// KLMINI_MPI_INIT=1 (KLMINI_MPI_INIT=0: never). A bad KLMINI_MPI_INIT ends the process (exit 2).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The clock that puts every rank's start and end of a timed run on one time line.
enum class RankClock {
  own_timer,         // one rank: nothing to compare
  node_steady,       // every rank on one node: the node's steady clock (CLOCK_MONOTONIC) is shared
  mpi_wtime_global,  // several nodes, MPI_WTIME_IS_GLOBAL: MPI_Wtime is synchronized across them
  per_rank_elapsed,  // several nodes, no common clock: each rank's own elapsed time from a barrier
};
std::string to_string(RankClock clock);

class Comm {
 public:
  static const Comm& world();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  double sum(double x) const;
  void sum(double* values, int count) const;  // in place, every rank gets the totals
  // Every rank gets the exact total (the ranks' words gathered and added as integers), the
  // same for any split of the units among the ranks.
  FixedSum sum(const FixedSum& x) const;
  // Every rank gets the sum of `x` over the ranks of its own node.
  double node_sum(double x) const;
  double max(double x) const;
  double min(double x) const;
  bool all(bool x) const;
  void barrier() const;
  std::vector<double> gather(double x) const;  // on rank 0: one value per rank
  // On rank 0: each rank's words (their lengths may differ); elsewhere only this rank's.
  std::vector<std::vector<std::int64_t>> gather(const std::vector<std::int64_t>& words) const;
  [[noreturn]] void abort(int code) const;  // ends every rank (a rank alone cannot fail politely)

  // The ranks that share this rank's node (MPI_COMM_TYPE_SHARED): how many, the world rank of
  // the first of them, which names the node, and this rank's place among them (its local rank).
  int node_size() const { return node_size_; }
  int node() const { return node_; }
  int node_rank() const { return node_rank_; }
  RankClock rank_clock() const;
  // Seconds on rank_clock()'s clock (per_rank_elapsed: this rank's steady clock).
  double now() const;

 private:
  Comm();
  int rank_ = 0, size_ = 1;
  int node_size_ = 1, node_ = 0, node_rank_ = 0;
  bool wtime_global_ = false;
};

// Collective: when `error` is not empty on some rank, every rank throws EveryRankError with it,
// spoken by the first such rank; returns on every rank when it is empty on all of them. For
// errors found where all ranks meet, so that each rank exits by itself (no MPI_Abort).
void fail_together(const Comm& comm, const std::string& error);

struct RowRange {
  std::int64_t begin = 0, count = 0;
};

// This rank's contiguous share of `tokens` rows: the first tokens % size ranks get one extra.
RowRange rows_of_rank(std::int64_t tokens, int rank, int size);

bool mpi_compiled_in();
bool started_by_mpi_launcher();
// One of the tasks of an srun step (not the batch script of a job, which has SLURM_PROCID too).
bool in_srun_task();
// A process manager an MPI can start from: PMIx, PMI or PMI2 variables, or Open MPI's launcher's.
bool process_manager_present();
// Throws std::invalid_argument for a KLMINI_MPI_INIT other than 0, 1 or empty.
bool mpi_wanted();

}  // namespace klmini
