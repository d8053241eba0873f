// The ranks of a run. With MPI (KLMINI_HAVE_MPI) the world communicator, otherwise a single
// rank: the runner is written once against this interface. Host-only, no Kokkos.
#pragma once

#include <cstdint>
#include <vector>

namespace klmini {

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

class Comm {
 public:
  static const Comm& world();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  double sum(double x) const;
  void sum(double* values, int count) const;  // in place, every rank gets the totals
  double max(double x) const;
  bool all(bool x) const;
  void barrier() const;
  std::vector<double> gather(double x) const;  // on rank 0: one value per rank
  [[noreturn]] void abort(int code) const;     // ends every rank (a rank alone cannot fail politely)

 private:
  Comm();
  int rank_ = 0, size_ = 1;
};

struct RowRange {
  std::int64_t begin = 0, count = 0;
};

// This rank's contiguous share of `tokens` rows: the first tokens % size ranks get one extra.
RowRange rows_of_rank(std::int64_t tokens, int rank, int size);

bool mpi_compiled_in();
bool started_by_mpi_launcher();
// Throws std::invalid_argument for a KLMINI_MPI_INIT other than 0, 1 or empty.
bool mpi_wanted();

}  // namespace klmini
