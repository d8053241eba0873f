#include "host/comm.hpp"

#include <cstdlib>

#ifdef KLMINI_HAVE_MPI
#include <mpi.h>
#endif

namespace klmini {

bool mpi_compiled_in() {
#ifdef KLMINI_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiSession::MpiSession(int& argc, char**& argv) {
#ifdef KLMINI_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#else
  (void)argc;
  (void)argv;
#endif
}

MpiSession::~MpiSession() {
#ifdef KLMINI_HAVE_MPI
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
#endif
}

Comm::Comm() {
#ifdef KLMINI_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
#endif
}

const Comm& Comm::world() {
  static const Comm comm;
  return comm;
}

double Comm::sum(double x) const {
  sum(&x, 1);
  return x;
}

void Comm::sum(double* values, int count) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values;
  (void)count;
#endif
}

double Comm::max(double x) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return x;
}

bool Comm::all(bool x) const {
#ifdef KLMINI_HAVE_MPI
  int v = x ? 1 : 0;
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
#else
  return x;
#endif
}

void Comm::barrier() const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<double> Comm::gather(double x) const {
  std::vector<double> all(static_cast<std::size_t>(size_), x);
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Gather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#endif
  return all;
}

void Comm::abort(int code) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

RowRange rows_of_rank(std::int64_t tokens, int rank, int size) {
  const std::int64_t base = tokens / size, extra = tokens % size;
  RowRange r;
  r.count = base + (rank < extra ? 1 : 0);
  r.begin = rank * base + (rank < extra ? rank : extra);
  return r;
}

}  // namespace klmini
